// Delay from the game process exiting to the push service receiving the alert. A panel process runs on
// the Factorio simulator with one device subscribed at the fake push service; the game is started and
// crashed over RCON (/fake-crash) again and again. Per crash:
//   command -> received: from sending the crash command (the game exits at once) to the fake service
//                        having the decrypted alert (an upper bound of exit -> received);
//   exit -> received:    from the exit time the panel recorded (ServerExit.at, in the alert) to receipt.
//   node bench/push-delay.mjs [crashes]

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, panelClient, percentile, startPanel, stopPanel } from "./lib.mjs";
import { startFakePush } from "../tests/fake-push/launch.mjs";
import { freeUdpPort, installGame, rconExec } from "../tests/fake-factorio/launch.mjs";

const crashes = Number(process.argv[2] ?? 20);

const factorioDir = installGame(mkdtempSync(join(tmpdir(), "factorio-bench-")));
const fake = await startFakePush();
const panel = await startPanel({
  args: ["--factorio-dir", factorioDir, "--push-ca-file", fake.caFile, "--push-private-hosts", "127.0.0.1"],
});
const api = panelClient(panel);

const toReceipt = [];
const fromExit = [];
try {
  await api("POST", "/api/login", { username: "admin", password: "bench-password" });
  const { publicKey } = await api("GET", "/api/push/key");
  const { id: _id, ...subscription } = await fake.subscribe(publicKey);
  await api("POST", "/api/push/subscribe", { subscription, events: ["crashed"] });
  let seen = 0;
  for (let i = 0; i < crashes; i++) {
    // Start answers once the game hosts (or failed).
    await api("POST", "/api/server/start", {
      bindip: "127.0.0.1",
      port: await freeUdpPort(),
      savefile: "world.zip",
    });
    const sent = Date.now();
    await rconExec(panel.dataDir, "/fake-crash 3");
    const r = await fake.waitFor((x) => x.status === 201, { after: seen, timeoutMs: 30_000 });
    seen = r.seq;
    const alert = JSON.parse(r.payload);
    if (alert.kind !== "crashed") throw new Error(`expected a crash alert, got ${r.payload}`);
    toReceipt.push(r.receivedAt - sent);
    fromExit.push(r.receivedAt - Date.parse(alert.at));
    // The next start needs the panel to have settled the crash (status stopped).
    for (
      let s = (await api("GET", "/api/server/status")).status;
      s !== "stopped";
      s = (await api("GET", "/api/server/status")).status
    ) {
      await new Promise((res) => setTimeout(res, 20));
    }
  }
} finally {
  try {
    // The panel leaves a running game alone when it stops; the bench must not leave one behind.
    process.kill(JSON.parse(readFileSync(join(panel.dataDir, "game-process.json"), "utf8")).pid, "SIGKILL");
  } catch {
    // the last crash ended it
  }
  await stopPanel(panel);
  await fake.stop();
  rmSync(factorioDir, { recursive: true, force: true });
}
const fmt = (t) =>
  `p50 ${median(t).toFixed(0)} ms, p95 ${percentile(t, 95).toFixed(0)} ms, max ${
    Math.max(...t).toFixed(0)
  } ms`;
console.log(
  `game crash command -> fake push service has the decrypted alert, ${crashes} crashes: ${fmt(toReceipt)}`,
);
console.log(`exit seen by the panel (ServerExit.at) -> received, ${crashes} crashes: ${fmt(fromExit)}`);
