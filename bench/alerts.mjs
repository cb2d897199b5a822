// Alerts and player history figures:
// 1. Game crash -> Discord double has the embed. A panel process runs on the Factorio simulator with one
//    Discord channel pointing at the local double (tests/fake-alerts); the game is started and crashed
//    over RCON (/fake-crash) again and again, a little over the merge window apart so no crash is merged.
//      command -> received: from sending the crash command (the game exits at once) to the double's receipt;
//      exit -> received:    from the exit time the panel recorded (ServerExit.at, the embed's timestamp);
//      reference:           a POST from this script straight to the double, in the same run.
// 2. Player history: console lines per second parsed and stored while 50 players join and chat
//    (bench/playerlog-rate.ts, under the panel's permissions), beside parsing alone in the same run.
//   node bench/alerts.mjs [crashes] [chat lines]

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import {
  DENO,
  median,
  PANEL_PERMISSIONS,
  panelClient,
  percentile,
  ROOT,
  startPanel,
  stopPanel,
} from "./lib.mjs";
import { startFakeAlerts } from "../tests/fake-alerts/server.mjs";
import { freeUdpPort, installGame, rconExec } from "../tests/fake-factorio/launch.mjs";

const crashes = Number(process.argv[2] ?? 20);
const chats = Number(process.argv[3] ?? 50_000);
const MERGE_S = 1;

const factorioDir = installGame(mkdtempSync(join(tmpdir(), "factorio-bench-")));
const fake = await startFakeAlerts();
const panel = await startPanel({
  args: ["--factorio-dir", factorioDir, "--alert-merge-seconds", String(MERGE_S)],
});
const api = panelClient(panel);

const toReceipt = [];
const fromExit = [];
const direct = [];
try {
  await api("POST", "/api/login", { username: "admin", password: "bench-password" });
  const hook = fake.discordUrl("bench");
  const path = new URL(hook).pathname;
  await api("POST", "/api/notifications/channels", {
    type: "discord",
    name: "bench",
    url: hook,
    events: ["crashed"],
  });
  let seen = 0;
  for (let i = 0; i < crashes; i++) {
    await api("POST", "/api/server/start", {
      bindip: "127.0.0.1",
      port: await freeUdpPort(),
      savefile: "world.zip",
    });
    const sent = Date.now();
    await rconExec(panel.dataDir, "/fake-crash 3").catch(() => {}); // the game dies before it answers
    const r = await fake.waitFor(
      (x) =>
        x.seq > seen && x.path === path && x.status === 204 &&
        x.json.embeds[0].title === "Factorio server crashed",
      30_000,
    );
    seen = r.seq;
    toReceipt.push(r.at - sent);
    fromExit.push(r.at - Date.parse(r.json.embeds[0].timestamp));
    // The reference: the same kind of request, from here straight to the double.
    const t0 = performance.now();
    await fetch(fake.discordUrl("direct"), {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(r.json),
    });
    direct.push(performance.now() - t0);
    for (
      let s = (await api("GET", "/api/server/status")).status;
      s !== "stopped";
      s = (await api("GET", "/api/server/status")).status
    ) {
      await new Promise((res) => setTimeout(res, 20));
    }
    // Past the merge window, so the next crash is sent at once rather than merged.
    await new Promise((res) => setTimeout(res, MERGE_S * 1000 + 200));
  }
} finally {
  try {
    process.kill(JSON.parse(readFileSync(join(panel.dataDir, "game-process.json"), "utf8")).pid, "SIGKILL");
  } catch {
    // the last crash ended it
  }
  await stopPanel(panel);
  await fake.close();
  rmSync(factorioDir, { recursive: true, force: true });
}
const fmt = (t) =>
  `p50 ${median(t).toFixed(0)} ms, p95 ${percentile(t, 95).toFixed(0)} ms, max ${
    Math.max(...t).toFixed(0)
  } ms`;
console.log(`game crash command -> Discord double has the embed, ${crashes} crashes: ${fmt(toReceipt)}`);
console.log(`exit seen by the panel (ServerExit.at) -> received: ${fmt(fromExit)}`);
console.log(
  `reference, one POST from this script to the double: p50 ${median(direct).toFixed(1)} ms; ` +
    `exit -> received p50 is ${(median(fromExit) / median(direct)).toFixed(1)}x that`,
);

const run = spawnSync(DENO, [
  "run",
  ...PANEL_PERMISSIONS,
  join(ROOT, "bench", "playerlog-rate.ts"),
  String(chats),
], {
  cwd: ROOT,
  encoding: "utf8",
});
if (run.status !== 0) throw new Error(`playerlog-rate.ts failed: ${run.stderr}`);
const { lines, parseOnly, stored } = JSON.parse(run.stdout.trim().split("\n").pop());
console.log(
  `player history, 50 players joining and chatting, ${lines} console lines: parsed and stored ${
    stored.toFixed(0)
  } lines/s; ` +
    `parsed only ${parseOnly.toFixed(0)} lines/s (same run); storing costs ${
      (parseOnly / stored).toFixed(1)
    }x`,
);
