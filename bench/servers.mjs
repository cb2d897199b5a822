// Several servers from one panel (issue 49), each figure beside a reference measured in the same run. One
// panel started as `npm start` starts it, on the Factorio simulator, with 20 servers (server 1 and 19 copies
// of it), 10 of them running (servers 1 to 10):
// 1. GET /api/servers (the overview's data), 200 sequential requests alternated with GET /api/user/status
//    (a route that touches no server): before, then while server 5's game is SIGSTOPped (its RCON port
//    accepts TCP and never answers), measured once it has been stopped longer than one health sample
//    period. Wanted: p95 under 50 ms.
// 2. The panel process's own CPU time (/proc/<pid>/stat utime + stime) and RSS (VmRSS) over a quiet window
//    with 0 games running, then with 10 (20 servers defined both times); the difference divided by 10.
//    Wanted: at most 0.2% of a core and 5 MiB per running server. The games are other processes: not counted.
// 3. Backups of server 2 while a Save & Stop of server 3 takes 8 s (its game saves slowly: RCON
//    /fake-save-delay), beside backups of server 2 alone; and a backup of server 3 sent at the same time,
//    which waits for server 3's stop (one operation at a time on one server).
// Run alone, it takes about 3 minutes.
//   node bench/servers.mjs [window seconds, default 60]

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchLogin, median, panelClient, percentile, startPanel, stopPanel } from "./lib.mjs";
import { freeUdpPort, installGame, rconExec } from "../tests/fake-factorio/launch.mjs";

const WINDOW_S = Number(process.argv[2] ?? 60);
const SERVERS = 20;
const RUNNING = 10;
const HUNG = 5;
const REQUESTS = 200;
const SLOW_SAVE_MS = 8000;
const CLK_TCK = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** CPU seconds (user + system, all threads) of a process so far, from /proc/<pid>/stat. */
function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
}

const procState = (pid) => {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
};

const rssMiB = (pid) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]) / 1024;

/** The panel's CPU (% of one core) and RSS (median of samples every 5 s, MiB) over a window without requests. */
async function quietWindow(pid) {
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  const rss = [];
  for (let s = 0; s < WINDOW_S; s += 5) {
    await sleep(Math.min(5, WINDOW_S - s) * 1000);
    rss.push(rssMiB(pid));
  }
  const seconds = (performance.now() - t0) / 1000;
  return { cpu: ((cpuSeconds(pid) - cpu0) / seconds) * 100, rss: median(rss) };
}

const dir = mkdtempSync(join(tmpdir(), "bench-servers-"));
const factorioDir = join(dir, "factorio");
mkdirSync(factorioDir);
installGame(factorioDir);
const dataDir = join(dir, "data");

const gameDataDir = (id) => (id === 1 ? dataDir : join(dataDir, "servers", String(id)));
const gamePid = (id) => JSON.parse(readFileSync(join(gameDataDir(id), "game-process.json"), "utf8")).pid;

let panel;
let api;
let stopped = null;
try {
  // No check of factorio.com for new game versions: it is unreachable here, and each server's first check,
  // a minute after start, would fall into the reference window of figure 2 (it is hourly, not idle work).
  panel = await startPanel({
    dataDir,
    args: ["--factorio-dir", factorioDir, "--factorio-update-check-hours", "0"],
  });
  const pid = panel.child.pid;
  api = panelClient(panel);
  await api("POST", "/api/login", { username: "admin", password: "bench-password" });
  const cookie = await benchLogin(panel.url);
  const get = async (path) => {
    const t = performance.now();
    const r = await fetch(panel.url + path, { headers: { Cookie: cookie } });
    const body = await r.text();
    if (!r.ok) throw new Error(`GET ${path}: ${r.status} ${body}`);
    return { ms: performance.now() - t, body: JSON.parse(body) };
  };

  let t = performance.now();
  for (let i = 2; i <= SERVERS; i++) {
    await api("POST", "/api/servers", { name: `Map ${i}`, from: { server: 1 } });
  }
  const list = (await get("/api/servers")).body;
  if (list.length !== SERVERS) throw new Error(`${list.length} servers, not ${SERVERS}`);
  console.log(
    `${SERVERS} servers added (copies of server 1) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );

  // ---- 2, the reference: 20 servers, none running.
  await sleep(5000);
  const idle0 = await quietWindow(pid);

  t = performance.now();
  await Promise.all(Array.from({ length: RUNNING }, async (_, i) => {
    const port = await freeUdpPort();
    await api("POST", `/api/servers/${i + 1}/server/start`, {
      bindip: "127.0.0.1",
      port,
      savefile: "Load Latest",
    });
  }));
  for (let i = 0;; i++) {
    const running = (await get("/api/servers")).body.filter((s) => s.status === "running").length;
    if (running === RUNNING) break;
    if (i > 600) throw new Error(`${running} of ${RUNNING} games running after 60 s`);
    await sleep(100);
  }
  console.log(`${RUNNING} games started in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  await sleep(10_000); // past the starts: health samples, first RCON connections
  const idle10 = await quietWindow(pid);

  // ---- 1: the overview, before and while one game's RCON is black-holed.
  // A pair of requests every 50 ms, at least `pairs` of them and for at least `seconds`.
  const sample = async (pairs, seconds = 0) => {
    const times = { servers: [], status: [] };
    // The slowest answer of each route and when it came (s from the start of this sample).
    const slowest = { servers: [0, 0], status: [0, 0] };
    const t0 = performance.now();
    const cpu0 = cpuSeconds(pid);
    while (times.servers.length < pairs || performance.now() - t0 < seconds * 1000) {
      const next = performance.now() + 50;
      for (const [key, path] of [["servers", "/api/servers"], ["status", "/api/user/status"]]) {
        const { ms } = await get(path);
        times[key].push(ms);
        if (ms > slowest[key][0]) slowest[key] = [ms, (performance.now() - t0) / 1000];
      }
      await sleep(next - performance.now());
    }
    const cpu = ((cpuSeconds(pid) - cpu0) / ((performance.now() - t0) / 1000)) * 100;
    return { ...times, slowest, cpu };
  };
  await sample(20); // warm-up
  const before = await sample(REQUESTS);
  const hungPid = gamePid(HUNG);
  process.kill(hungPid, "SIGSTOP");
  stopped = hungPid;
  const stoppedAt = performance.now();
  // From the SIGSTOP on, for longer than one health sample period (10 s): the sampler has asked it.
  const during = await sample(REQUESTS, 12);
  const heldS = (performance.now() - stoppedAt) / 1000;
  const stillStopped = procState(hungPid) === "T";
  const hungSeen = (await get("/api/servers")).body.find((s) => s.id === HUNG);
  process.kill(hungPid, "SIGCONT");
  stopped = null;

  // ---- 3: a backup of server 2 while server 3 takes 8 s to Save & Stop.
  const backup = async (id) => {
    const t = performance.now();
    await api("POST", `/api/servers/${id}/backups`, {});
    return (performance.now() - t) / 1000;
  };
  await backup(2); // warm-up
  const alone = [await backup(2), await backup(2), await backup(2)];
  await rconExec(gameDataDir(3), `/fake-save-delay ${SLOW_SAVE_MS}`);
  t = performance.now();
  const stop3 = (async () => {
    await api("GET", "/api/servers/3/server/stop");
    for (;;) {
      if ((await get("/api/servers/3/server/status")).body.status === "stopped") break;
      await sleep(50);
    }
    return (performance.now() - t) / 1000;
  })();
  await sleep(500); // the stop is under way
  const sameServer = backup(3);
  const beside = [await backup(2), await backup(2), await backup(2)];
  const besideEnd = (performance.now() - t) / 1000;
  const [sameServerS, stopS] = await Promise.all([sameServer, stop3]);

  // ---- the report
  const ms = (v) => `${v.toFixed(1)} ms`;
  const p = (v, q) => percentile(v, q);
  console.log(
    `\n1. GET /api/servers, ${SERVERS} servers, ${RUNNING} running, sequential requests alternated with GET /api/user/status (touches no server), a pair every 50 ms:`,
  );
  console.log(
    `   before (${before.servers.length} pairs):  /api/servers p50 ${ms(p(before.servers, 50))}, p95 ${
      ms(p(before.servers, 95))
    }; ` +
      `/api/user/status p50 ${ms(p(before.status, 50))}, p95 ${ms(p(before.status, 95))}; ratio of p95 ${
        (p(before.servers, 95) / p(before.status, 95)).toFixed(2)
      }; the panel's CPU meanwhile ${before.cpu.toFixed(1)}% of a core`,
  );
  console.log(
    `   server ${HUNG}'s game SIGSTOPped (${during.servers.length} pairs from the SIGSTOP on, RCON black-holed ${
      heldS.toFixed(0)
    } s, still stopped at the end: ${stillStopped ? "yes" : "NO"}; the list said "${hungSeen.status}"):`,
  );
  console.log(
    `            /api/servers p50 ${ms(p(during.servers, 50))}, p95 ${
      ms(p(during.servers, 95))
    } (wanted under 50 ms); ` +
      `/api/user/status p50 ${ms(p(during.status, 50))}, p95 ${ms(p(during.status, 95))}; ratio of p95 ${
        (p(during.servers, 95) / p(during.status, 95)).toFixed(2)
      }; the panel's CPU meanwhile ${during.cpu.toFixed(1)}% of a core`,
  );
  console.log(
    `            slowest: /api/servers ${ms(during.slowest.servers[0])} (${
      during.slowest.servers[1].toFixed(1)
    } s after the SIGSTOP), /api/user/status ${ms(during.slowest.status[0])} (${
      during.slowest.status[1].toFixed(1)
    } s after)`,
  );
  const cpuPer = (idle10.cpu - idle0.cpu) / RUNNING;
  const rssPer = (idle10.rss - idle0.rss) / RUNNING;
  console.log(`\n2. The panel process alone, quiet ${WINDOW_S} s windows, ${SERVERS} servers defined:`);
  console.log(
    `   0 running (reference): CPU ${idle0.cpu.toFixed(2)}% of a core, RSS ${idle0.rss.toFixed(1)} MiB; ` +
      `${RUNNING} running: CPU ${idle10.cpu.toFixed(2)}%, RSS ${idle10.rss.toFixed(1)} MiB; ratio CPU ${
        (idle10.cpu / idle0.cpu).toFixed(2)
      }, RSS ${(idle10.rss / idle0.rss).toFixed(2)}`,
  );
  console.log(
    `   per running server: CPU ${cpuPer.toFixed(3)}% of a core (wanted at most 0.2%), RSS ${
      rssPer.toFixed(2)
    } MiB (wanted at most 5 MiB)`,
  );
  console.log(`\n3. Operations side by side:`);
  console.log(
    `   Save & Stop of server 3, its game saving for ${SLOW_SAVE_MS / 1000} s: ${stopS.toFixed(1)} s; ` +
      `3 backups of server 2 one after another meanwhile (from 0.5 s to ${besideEnd.toFixed(1)} s into it): ${
        median(beside).toFixed(2)
      } s median; reference, a backup of server 2 alone: ${median(alone).toFixed(2)} s (median of 3); ratio ${
        (median(beside) / median(alone)).toFixed(2)
      }`,
  );
  console.log(
    `   a backup of server 3 sent at 0.5 s: ${
      sameServerS.toFixed(1)
    } s (waits for server 3's stop: one operation at a time per server)`,
  );
} finally {
  if (stopped) process.kill(stopped, "SIGCONT");
  if (panel) {
    // Kill every game still running, then stop the panel.
    for (let id = 1; id <= SERVERS; id++) {
      await api?.("GET", `/api/servers/${id}/server/kill`).catch(() => {});
    }
    await stopPanel(panel);
  }
  for (let id = 1; id <= SERVERS; id++) {
    try {
      process.kill(gamePid(id), "SIGKILL");
    } catch {
      // not running, or never started
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
