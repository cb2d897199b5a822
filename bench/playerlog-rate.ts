// Run by bench/alerts.mjs (under the panel's permissions): how many console lines per second the player
// history parses and stores while 50 players join and chat, beside parsing alone in the same run.
//   deno run <panel permissions> bench/playerlog-rate.ts [chat lines]

import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { openDb } from "../backend/store/db.ts";
import { EventBus } from "../backend/lib/events.ts";
import { createLogger } from "../backend/lib/log.ts";
import { PlayerHistory } from "../backend/factorio/players/history.ts";
import { parsePlayerLine } from "../backend/factorio/players/logline.ts";

const chats = Number(Deno.args[0] ?? 50_000);
const players = Array.from({ length: 50 }, (_, i) => (i % 7 === 0 ? `Player ${i} Ø` : `player_${i}`));
const stamp = "2026-11-22 12:00:00";
const lines: string[] = [];
for (const p of players) {
  lines.push(`${stamp} [JOIN] ${p} joined the game`);
  // The engine lines around them, as the game prints them: the parser must look at these too.
  lines.push(
    `  12.345 Info ServerMultiplayerManager.cpp:978: updateTick(7672) received stateChanged peerID(1)`,
  );
}
for (let i = 0; i < chats; i++) {
  lines.push(`${stamp} [CHAT] ${players[i % 50]}: message number ${i} about iron plates`);
}
for (const p of players) lines.push(`${stamp} [LEAVE] ${p} left the game`);

function rate(fn: () => void): number {
  const t0 = performance.now();
  fn();
  return lines.length / ((performance.now() - t0) / 1000);
}

// Warm-up, then parsing alone (the reference), then parse + store through the real history module.
rate(() => lines.forEach(parsePlayerLine));
const parseOnly = rate(() => {
  for (const l of lines) parsePlayerLine(l);
});
const dir = mkdtempSync(join(tmpdir(), "playerlog-bench-"));
const db = openDb(join(dir, "panel.db"));
const bus = new EventBus();
const history = new PlayerHistory({
  bus,
  db,
  log: createLogger({ file: join(dir, "panel.log"), quiet: true }),
  now: Date.now,
  gameState: () => "stopped",
  onlineNow: () => Promise.resolve([]),
  countDays: 30,
});
let alerts = 0;
bus.on("alert", () => alerts++);
const stored = rate(() => {
  for (const l of lines) bus.emit("server.log", { line: l });
  history.flush();
});
const rows = (db.prepare("SELECT COUNT(*) AS n FROM player_chat").get() as { n: number }).n;
history.close();
db.close();
rmSync(dir, { recursive: true, force: true });
if (rows !== chats || alerts !== 100) throw new Error(`stored ${rows} chat lines and ${alerts} alerts`);
console.log(JSON.stringify({ lines: lines.length, parseOnly, stored }));
