// The level of a line of the game's log, for the Logs page's filter. The game writes its own levels
// ("   12.345 Info ...", "Warning", "Error"); its other lines (start-up facts, chat and joins) count as Info;
// the panel adds its notes ("Factorio Panel: ...") and the commands typed in its console ("admin> /time").
// A line with none of these marks continues the one before it (a crash's stack, a command's answer).

export const LOG_LEVELS = ["Info", "Warning", "Error", "Panel"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** The game's engine lines: seconds since start, then the level if it gives one. */
const ENGINE = /^\s*\d+\.\d{3} (?:(Info|Warning|Error) )?/;
/** Console events: "2024-10-21 12:03:00 [JOIN] alice joined the game". */
const EVENT = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d /;
const PANEL = /^(?:Factorio Panel: |\S+> )/;

export function levelOf(line: string, previous: LogLevel): LogLevel {
  const engine = ENGINE.exec(line);
  if (engine) return (engine[1] as LogLevel | undefined) ?? "Info";
  if (EVENT.test(line)) return "Info";
  if (PANEL.test(line)) return "Panel";
  return previous;
}
