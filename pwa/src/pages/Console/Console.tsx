import { type KeyboardEvent, useEffect, useRef, useState } from "react";
import { Box, TextField, Typography } from "@mui/material";
import { useSnapshot } from "valtio";
import { Page, Panel } from "../../components/Page.tsx";
import { server } from "../../state/server.ts";
import { socket } from "../../state/socket.ts";
import { showFlash } from "../../state/flash.ts";
import { MSG } from "../../../../shared/messages.ts";
import { factorio } from "../../theme.ts";
import { logBoxSx } from "../../components/logStyle.ts";

/** Lines the console keeps on screen; older ones scroll away for good. */
export const CONSOLE_MAX_LINES = 2000;
const HISTORY_MAX = 100;

// Earlier commands, newest last. Module state: it survives leaving the page and coming back.
const history: string[] = [];

/** The live game log: replayed recent lines on open, then live, following the bottom unless scrolled up. */
function GameLog() {
  const [lines, setLines] = useState<{ id: number; text: string }[]>([]);
  const box = useRef<HTMLDivElement>(null);
  const follow = useRef(true);

  useEffect(() => {
    let id = 0;
    return socket.subscribe(
      "gamelog",
      (text) => {
        setLines((old) => {
          const next = [...old, { id: id++, text }];
          return next.length > CONSOLE_MAX_LINES ? next.slice(-CONSOLE_MAX_LINES) : next;
        });
      },
      // After a reconnect the server replays its recent lines: they replace what is shown, not add to it.
      () => setLines([]),
    );
  }, []);

  useEffect(() => {
    const el = box.current;
    if (el && follow.current) el.scrollTop = el.scrollHeight;
  }, [lines]);

  return (
    <Box
      ref={box}
      role="log"
      aria-label="Game log"
      aria-live="polite"
      onScroll={(e) => {
        const el = e.currentTarget;
        follow.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
      sx={[logBoxSx, { height: { xs: "55vh", md: "62vh" } }]}
    >
      {lines.length === 0 && <Typography color="text.secondary" sx={{ fontSize: "inherit" }}>Waiting for the game's output...</Typography>}
      {lines.map((l) => (
        <Box key={l.id} sx={{ color: lineColor(l.text) }}>{l.text}</Box>
      ))}
    </Box>
  );
}

function lineColor(line: string): string | undefined {
  if (/^\S+> /.test(line)) return factorio.orange; // a command someone typed
  if (/\sError\s|crashed/.test(line)) return "#ff7b66";
  if (/\[(CHAT|JOIN|LEAVE|KICK|BAN|PROMOTE|DEMOTE)\]/.test(line)) return factorio.title;
  return undefined;
}

/** The command line: Enter sends and clears, up/down walk through earlier commands. */
function CommandInput() {
  const [text, setText] = useState("");
  const [pos, setPos] = useState<number | null>(null);

  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key === "Enter") {
      e.preventDefault();
      const command = text.trim();
      if (command === "") return;
      if (!socket.command(command)) {
        showFlash("Not connected to the panel: the command was not sent. It reconnects in a few seconds.", "error");
        return;
      }
      if (history[history.length - 1] !== command) history.push(command);
      if (history.length > HISTORY_MAX) history.shift();
      setText("");
      setPos(null);
    } else if (e.key === "ArrowUp" && history.length > 0) {
      e.preventDefault();
      const next = pos === null ? history.length - 1 : Math.max(0, pos - 1);
      setPos(next);
      setText(history[next]);
    } else if (e.key === "ArrowDown" && pos !== null) {
      e.preventDefault();
      const next = pos + 1;
      if (next >= history.length) {
        setPos(null);
        setText("");
      } else {
        setPos(next);
        setText(history[next]);
      }
    }
  }

  return (
    <TextField
      label="Command"
      placeholder="/players, /time, or text to chat as the server"
      value={text}
      onChange={(e) => {
        setText(e.target.value);
        setPos(null);
      }}
      onKeyDown={onKeyDown}
      autoFocus
      slotProps={{ htmlInput: { autoComplete: "off", autoCapitalize: "off", spellCheck: false, enterKeyHint: "send" } }}
      helperText="Enter sends; the up and down arrows bring back earlier commands."
    />
  );
}

export default function Console() {
  const { status } = useSnapshot(server);
  const running = status?.status === "running";
  return (
    <Page title="Console">
      <Panel title="Console">
        {running
          ? (
            <Box sx={{ display: "grid", gap: 2 }}>
              <GameLog />
              <CommandInput />
            </Box>
          )
          : <Typography>{MSG.consoleUnavailable}</Typography>}
      </Panel>
    </Page>
  );
}

/** For tests: forget the command history. */
export function clearHistory(): void {
  history.splice(0);
}
