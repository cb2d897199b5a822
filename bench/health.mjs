// Server health (issue 51), beside references measured in the same run:
// - sampling: CPU and memory of 20 game processes (20 `sleep`s stand in) with one `ps` per sample, as
//   backend/health/process.ts does it: the CPU it costs (the panel's side and ps's, from the shell's `times`
//   of a process that samples N times, less one that samples none), as a share of one core at one sample
//   every 10 s (the issue wants at most 0.5%); reference: spawning `true` the same way;
// - history: 90 days of points for 20 servers (every resolution full: 550k rows), then the chart's query of
//   one server's 90 days (8,640 points, wants under 100 ms), median of 30; reference: the same SELECT
//   alone; and what adding samples costs (three upserts each, one commit per round of 20);
// - /metrics: the exposition text of 20 servers (the route wants under 20 ms whole); reference:
//   JSON.stringify of the same figures.
//   node bench/health.mjs [samples]
// It runs itself under Deno, with the panel's permissions.

import { fileURLToPath } from "node:url";
import { DENO, median, PANEL_PERMISSIONS, rerunUnderDeno } from "./lib.mjs";

rerunUnderDeno(import.meta.url);

const { mkdtempSync, rmSync } = await import("node:fs");
const { tmpdir } = await import("node:os");
const { join } = await import("node:path");
const { sampleProcesses } = await import("../backend/health/process.ts");
const { HealthStore, SERIES, TIERS } = await import("../backend/health/store.ts");
const { formatMetrics, serverFamilies } = await import("../backend/health/metrics.ts");
const { openDb } = await import("../backend/store/db.ts");

const self = fileURLToPath(import.meta.url);

// A child of this script: `loop N what pids...` samples N times and exits.
if (Deno.args[0] === "loop") {
  const [, n, what, ...pids] = Deno.args;
  for (let i = 0; i < Number(n); i++) {
    if (what === "ps") await sampleProcesses(pids.map(Number));
    else await new Deno.Command("true", { stdout: "null", stderr: "null" }).output();
  }
  Deno.exit(0);
}

/** CPU seconds (user + system) of `deno run <this> loop N what pids`, its children included, from sh's `times`. */
function childCpu(n, what, pids) {
  const quoted = [DENO, "run", ...PANEL_PERMISSIONS, self, "loop", String(n), what, ...pids.map(String)].map((
    a,
  ) => `'${a}'`).join(" ");
  const out = new TextDecoder().decode(
    new Deno.Command("sh", { args: ["-c", `${quoted}; times`], stdout: "piped" }).outputSync().stdout,
  );
  // The second line is the children's user and system time: "0m1.23s 0m0.45s".
  const [, user, sys] = /\n?(\d+m[\d.]+s) (\d+m[\d.]+s)\s*$/.exec(out.trim()) ?? [];
  const seconds = (t) => {
    const [, m, s] = /(\d+)m([\d.]+)s/.exec(t);
    return Number(m) * 60 + Number(s);
  };
  return seconds(user) + seconds(sys);
}

// ---- sampling
const samples = Number(Deno.args[0] ?? 200);
const sleepers = Array.from(
  { length: 20 },
  () => new Deno.Command("sleep", { args: ["600"], stdout: "null", stderr: "null" }).spawn(),
);
try {
  const pids = sleepers.map((c) => c.pid);
  const check = await sampleProcesses(pids);
  if (check.usage.size !== 20) throw new Error(`ps saw ${check.usage.size} of the 20 processes`);
  const rows = [];
  for (let round = 0; round < 3; round++) {
    const base = childCpu(0, "ps", pids);
    const ps = childCpu(samples, "ps", pids) - base;
    const bare = childCpu(samples, "true", []) - base;
    rows.push({ ps: (ps / samples) * 1000, bare: (bare / samples) * 1000 });
  }
  const ps = median(rows.map((r) => r.ps));
  const bare = median(rows.map((r) => r.bare));
  console.log(
    `sampling 20 processes with one ps: ${
      ps.toFixed(2)
    } ms of CPU per sample (median of 3 rounds of ${samples})`,
  );
  console.log(
    `  at one sample every 10 s: ${(ps / 10_000 * 100).toFixed(3)}% of one core (wanted: at most 0.5%)`,
  );
  console.log(`  reference, spawning \`true\` the same way: ${bare.toFixed(2)} ms of CPU each`);
} finally {
  for (const c of sleepers) c.kill("SIGKILL");
  await Promise.all(sleepers.map((c) => c.status));
}

// ---- history
const dir = mkdtempSync(join(tmpdir(), "health-bench-"));
try {
  const db = openDb(join(dir, "panel.db"));
  const store = new HealthStore(db);
  const now = Date.UTC(2026, 11, 1);
  const cols = SERIES.flatMap((s) => [`${s}_n`, `${s}_sum`, `${s}_min`, `${s}_max`]);
  const insert = db.prepare(
    `INSERT INTO health_points (server, tier, at, n, up_n, paused_n, ${
      cols.join(", ")
    }) VALUES (?, ?, ?, ?, ?, 0, ${cols.map(() => "?").join(", ")})`,
  );
  const filled = performance.now();
  let rowCount = 0;
  db.exec("BEGIN");
  for (let server = 1; server <= 20; server++) {
    for (const [tier, { stepMs, keepMs }] of TIERS.entries()) {
      const n = stepMs / 10_000;
      for (let at = Math.floor((now - keepMs) / stepMs) * stepMs; at <= now; at += stepMs) {
        const v = (
          base,
          spread,
        ) => [n, n * (base + spread * Math.sin(at / 3.6e6)), base - spread, base + spread];
        insert.run(
          server,
          tier,
          at,
          n,
          n,
          ...v(59, 1),
          ...v(60, 20),
          ...v(2e9, 1e8),
          ...v(3, 3),
          ...v(5e10, 1e9),
        );
        rowCount++;
      }
    }
  }
  db.exec("COMMIT");
  console.log(
    `history: ${rowCount} points for 20 servers written in ${
      ((performance.now() - filled) / 1000).toFixed(1)
    } s`,
  );

  // The reference: the rows the store asks for (the same columns, as arrays), without making columns of them.
  const bareSelect = db.prepare(
    `SELECT at, up_n, paused_n, ${
      SERIES.map((s) => `${s}_sum / NULLIF(${s}_n, 0), ${s}_min, ${s}_max`).join(", ")
    }
    FROM health_points WHERE server = ? AND tier = 2 AND at >= ? AND at <= ? ORDER BY at -- bench`,
  );
  bareSelect.setReturnArrays(true);
  const query = [];
  const bare = [];
  let points = 0;
  for (let i = 0; i < 30; i++) {
    const server = 1 + (i % 20);
    let t = performance.now();
    points = store.range(server, "90d", now).at.length;
    query.push(performance.now() - t);
    t = performance.now();
    bareSelect.all(server, now - 90 * 24 * 3600_000, now);
    bare.push(performance.now() - t);
  }
  console.log(
    `  the 90-day chart of one server (${points} points, every series): ${
      median(query).toFixed(1)
    } ms median (wanted: under 100 ms)`,
  );
  console.log(`  reference, the same SELECT alone (no columns made): ${median(bare).toFixed(1)} ms`);

  const rounds = 300;
  const sample = (i) => ({
    at: now + i * 10_000,
    up: true,
    paused: false,
    ups: 60,
    cpu: 40,
    memory: 2e9,
    players: 3,
    disk: 5e10,
  });
  let t = performance.now();
  for (let i = 0; i < rounds; i++) store.add(21, sample(i));
  const one = ((performance.now() - t) * 1000) / rounds;
  t = performance.now();
  for (let i = 0; i < rounds; i++) store.addAll(Array.from({ length: 20 }, (_, s) => [22 + s, sample(i)]));
  const round = ((performance.now() - t) * 1000) / rounds;
  console.log(`  adding one sample (three resolutions, one commit): ${one.toFixed(0)} µs of wall time`);
  console.log(
    `  a round of 20 servers in one commit: ${round.toFixed(0)} µs, every 10 s: ${
      (round / 10_000 / 10).toFixed(3)
    }% of the time`,
  );
  // A day's worth of points past their time at every resolution, as after a panel stopped for a day.
  t = performance.now();
  const purged = await store.purge(now + 24 * 3600_000);
  console.log(
    `  purging after a day off: ${purged} rows in ${
      (performance.now() - t).toFixed(0)
    } ms, in batches of 500`,
  );
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// ---- /metrics
const servers = Array.from({ length: 20 }, (_, i) => ({
  server: String(i + 1),
  up: i % 5 !== 0,
  paused: i % 7 === 0,
  ups: 59.7,
  playersOnline: i,
  mapAgeSeconds: 400_000 + i,
  cpuSecondsTotal: 12_345 + i,
  residentMemoryBytes: 2e9 + i,
  diskFreeBytes: 5e10,
}));
const runs = 2000;
let t = performance.now();
let size = 0;
for (let i = 0; i < runs; i++) size = formatMetrics(serverFamilies(servers)).length;
const format = ((performance.now() - t) * 1000) / runs;
t = performance.now();
for (let i = 0; i < runs; i++) JSON.stringify(servers);
const json = ((performance.now() - t) * 1000) / runs;
console.log(
  `/metrics text of 20 servers (${size} bytes): ${format.toFixed(0)} µs (the route wants under 20 ms whole)`,
);
console.log(`  reference, JSON.stringify of the same figures: ${json.toFixed(0)} µs`);
