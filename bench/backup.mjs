// Backups, on the Factorio simulator:
//  - a backup of a running server with a 1 GiB save (POST /api/backups: the game saves its 1 GiB map
//    over RCON, then the panel streams it into the backup zip with checksums), timed against `cp` of the
//    same save in the same run (and against cp + sync, since the backup is fsynced), and the growth of the panel's resident memory while it runs (ps -o rss,
//    sampled every 50 ms; target under 64 MiB);
//  - GET /api/backups with 1,000 backups, timed against GET /api/user/status (a route that does nothing)
//    in the same run.
//   node bench/backup.mjs [MiB]

import { execFileSync, spawnSync } from "node:child_process";
import { createSocket } from "node:dgram";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchLogin, DENO, median, PANEL_PERMISSIONS, ROOT, startPanel, stopPanel } from "./lib.mjs";

const mib = Number(process.argv[2] ?? 1024);
const LISTED = 1000;
const dir = mkdtempSync(join(tmpdir(), "bench-backup-"));
const factorioDir = join(dir, "factorio");

// The simulator's installer and save writer are TypeScript: run them under Deno with the panel's permissions.
const setup = `
  import { installFakeFactorio, createFakeSave } from "${join(ROOT, "tests/fake-factorio/install.ts")}";
  import { writeSave } from "${join(ROOT, "tests/fake-factorio/savefile.ts")}";
  const f = installFakeFactorio(${JSON.stringify(factorioDir)}, "2.0");
  await createFakeSave(f, "small.zip");
  await writeSave(f.dir + "/saves/big.zip", { version: "2.0.72", build: 83505, mods: [], state: { tick: 0, players: [], seed: 7 }, mapBytes: ${mib} * 1024 * 1024 });
`;
const r = spawnSync(DENO, ["run", ...PANEL_PERMISSIONS, "-"], {
  cwd: ROOT,
  input: setup,
  stdio: ["pipe", "inherit", "inherit"],
});
if (r.status !== 0) process.exit(r.status ?? 1);
const bigSave = join(factorioDir, "saves", "big.zip");

function freeUdpPort() {
  return new Promise((ok) => {
    const s = createSocket("udp4");
    s.bind(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

const rssMiB = (pid) =>
  Number(execFileSync("ps", ["-o", "rss=", "-p", String(pid)]).toString().trim()) / 1024;

let panel;
try {
  panel = await startPanel({ args: ["--factorio-dir", factorioDir, "--backup-save-timeout", "600"] });
  const cookie = await benchLogin(panel.url);
  const api = async (method, path, body) => {
    const res = await fetch(panel.url + path, {
      method,
      headers: { Cookie: cookie, Origin: panel.url, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return JSON.parse(text);
  };
  await api("POST", "/api/backups/settings", {
    retention: { keep_last: null, keep_days: null },
    min_free_mb: 0,
  });

  // ---- 1 GiB backup of a running server vs cp ----
  await api("POST", "/api/server/start", {
    bindip: "127.0.0.1",
    port: await freeUdpPort(),
    savefile: "big.zip",
  });
  const size = statSync(bigSave).size;
  const copy = join(dir, "cp-copy.zip");
  // The references are timed before and after the backup and the faster kept: the disk of a shared
  // machine is noisy, and the first read may still be flushing the freshly written save.
  const timeCp = (sync) => {
    const t0 = performance.now();
    execFileSync("cp", [bigSave, copy]);
    // The backup is fsynced before it counts as made; cp alone leaves the data in the page cache.
    if (sync) execFileSync("sync", [copy]);
    const s = (performance.now() - t0) / 1000;
    rmSync(copy);
    return s;
  };
  let cpSeconds = timeCp(false);
  let cpSyncSeconds = timeCp(true);

  const pid = panel.child.pid;
  await new Promise((ok) => setTimeout(ok, 1000));
  const before = rssMiB(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 50);
  const t = performance.now();
  const made = await api("POST", "/api/backups", { include: [] });
  const backupSeconds = (performance.now() - t) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssMiB(pid));
  cpSeconds = Math.min(cpSeconds, timeCp(false));
  cpSyncSeconds = Math.min(cpSyncSeconds, timeCp(true));
  // The game's own save is part of the backup; its share is read from the game's log (seconds since start).
  const out = readFileSync(join(panel.dataDir, "game-output.log"), "utf8");
  const at = (re) => Number([...out.matchAll(re)].at(-1)?.[1] ?? NaN);
  const gameSave = at(/^\s*(\d+\.\d+) Info AppManagerStates\.cpp:\d+: Saving finished$/gm) -
    at(/^\s*(\d+\.\d+) Info AppManager\.cpp:\d+: Saving to big \(blocking\)\.$/gm);
  console.log(
    `backup of a running server with a ${
      (size / 1024 ** 3).toFixed(2)
    } GiB save (game saves, then the panel copies): ` +
      `${backupSeconds.toFixed(1)} s; cp of the same file: ${cpSeconds.toFixed(1)} s (ratio ${
        (backupSeconds / cpSeconds).toFixed(2)
      }); ` +
      `cp + sync: ${cpSyncSeconds.toFixed(1)} s (ratio ${(backupSeconds / cpSyncSeconds).toFixed(2)}); ` +
      `of which the game's own save ${gameSave.toFixed(1)} s, the panel's copy ${
        (backupSeconds - gameSave).toFixed(1)
      } s ` +
      `(ratio to cp + sync ${((backupSeconds - gameSave) / cpSyncSeconds).toFixed(2)})`,
  );
  console.log(
    `backend RSS before ${before.toFixed(1)} MiB, peak during the backup ${peak.toFixed(1)} MiB: growth ${
      (peak - before).toFixed(1)
    } MiB (target < 64 MiB); backup file ${(made.size / 1024 ** 3).toFixed(2)} GiB`,
  );
  await api("POST", `/api/backups/${made.id}/delete`, {});
  await api("GET", "/api/server/stop");

  // ---- Listing 1,000 backups ----
  for (let i = 0; i < LISTED; i++) await api("POST", "/api/backups", { save: "small.zip" });
  const timeOf = async (path) => {
    const times = [];
    for (let i = 0; i < 30; i++) {
      const s = performance.now();
      await api("GET", path);
      times.push(performance.now() - s);
    }
    return median(times);
  };
  const list = await api("GET", "/api/backups");
  if (list.length !== LISTED) throw new Error(`listed ${list.length} backups, made ${LISTED}`);
  const listMs = await timeOf("/api/backups");
  const refMs = await timeOf("/api/user/status");
  console.log(
    `GET /api/backups with ${LISTED} backups: median ${listMs.toFixed(1)} ms; GET /api/user/status: ${
      refMs.toFixed(1)
    } ms; ratio ${(listMs / refMs).toFixed(1)}`,
  );
} finally {
  if (panel) {
    try {
      const { pid } = JSON.parse(readFileSync(join(panel.dataDir, "game-process.json"), "utf8"));
      process.kill(pid, "SIGKILL");
    } catch {
      // no game left running
    }
    await stopPanel(panel);
  }
  rmSync(dir, { recursive: true, force: true });
}
