// The one place that reads players out of the game's console lines. Factorio 1.1 and 2.x write them
// the same way, to stdout and to the --console-log file:
//
//   2022-01-26 18:30:15 [JOIN] Mattie joined the game
//   2022-01-26 18:06:44 [LEAVE] kkndvulcanic left the game
//   2024-10-21 12:03:00 [CHAT] alice: hello            (a player with a tag: "alice [builder]: hello")
//   2024-10-21 12:03:00 [CHAT] <server>: restarting    (the console / RCON)
//   2024-10-21 12:04:00 [KICK] bob was kicked by alice. Reason: afk.
//   2024-10-21 12:05:00 [BAN] bob was banned by alice. Reason: griefing.
//   2024-10-21 12:05:00 [BAN] carol (not on map) was banned by <server>. Reason: unspecified.
//
// The time is the game machine's local time without a zone, so callers use their own clock for when
// it happened (the panel reads the lines as they are written). Names are taken whole: servers that do
// not verify identities let players pick names with spaces or any Unicode letters.

export type PlayerLine =
  | { kind: "join"; name: string }
  | { kind: "leave"; name: string }
  | { kind: "chat"; name: string; tag: string | null; message: string }
  | { kind: "kick" | "ban"; name: string; by: string; reason: string };

const CONSOLE = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[(JOIN|LEAVE|CHAT|KICK|BAN)\] (.*)$/;
const JOIN = /^(.+) joined the game$/;
const LEAVE = /^(.+) left the game$/;
// The name runs to the first ": "; a tag is the bracketed part just before it.
const CHAT = /^(.+?)(?: \[([^\]]*)\])?: (.*)$/s;
const KICK_BAN = /^(.+?)(?: \(not on map\))? was (?:kicked|banned) by (.+?)\. Reason: (.*?)\.?$/;

export function parsePlayerLine(line: string): PlayerLine | null {
  const m = CONSOLE.exec(line.endsWith("\r") ? line.slice(0, -1) : line);
  if (!m) return null;
  const [, tag, rest] = m;
  switch (tag) {
    case "JOIN": {
      const j = JOIN.exec(rest);
      return j ? { kind: "join", name: j[1] } : null;
    }
    case "LEAVE": {
      const l = LEAVE.exec(rest);
      return l ? { kind: "leave", name: l[1] } : null;
    }
    case "CHAT": {
      const c = CHAT.exec(rest);
      return c ? { kind: "chat", name: c[1], tag: c[2] ?? null, message: c[3] } : null;
    }
    default: {
      const k = KICK_BAN.exec(rest);
      if (!k) return null;
      return { kind: tag === "KICK" ? "kick" : "ban", name: k[1], by: k[2], reason: k[3] };
    }
  }
}
