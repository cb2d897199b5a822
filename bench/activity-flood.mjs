// The activity log under a flood of anonymous sign-in attempts (issue 46): a panel started as `npm start`
// starts it (the launcher), then 30,000 POST /api/login with wrong passwords from one address, 32 at a
// time; printed: the answers by status, the activity records added, and the bytes the table and its index
// take in panel.db (SQLite's dbstat), before and after. Before the fix every attempt was a record; refusals
// by the sign-in limit are now one record per address and 15 minutes. This machine, 2026-12-01, a
// browser's user agent on each request:
//   start commit bdba9e5: 30,000 records added, the table and index 8 -> 5,188 KiB, 205.8 s
//   now:                  31 records added (30 checked passwords and one count), 8 -> 16 KiB, 17.5 s
//   node bench/activity-flood.mjs [attempts]
// It runs itself under Deno, for node:sqlite (Node 20 has none).

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { DENO, PANEL_PERMISSIONS, ROOT } from "./lib.mjs";

if (typeof Deno === "undefined") {
  const r = spawnSync(DENO, [
    "run",
    ...PANEL_PERMISSIONS,
    fileURLToPath(import.meta.url),
    ...process.argv.slice(2),
  ], { cwd: ROOT, stdio: "inherit" });
  process.exit(r.status ?? 1);
}

const { join } = await import("node:path");
const { DatabaseSync } = await import("node:sqlite");
const { startPanel, stopPanel } = await import("./lib.mjs");

const ATTEMPTS = Number(Deno.args[0] ?? 30_000);
const IN_FLIGHT = 32;
const NAMES = ["admin", "root", "administrator", "factorio", "bob"];
/** A browser's user agent: what each record kept before the fix, beside the name and the address. */
const BROWSER =
  "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/** Records and bytes of the activity table (with its index), read from the file as it is. */
function measure(dataDir) {
  const db = new DatabaseSync(join(dataDir, "panel.db"), { readOnly: true });
  try {
    const rows = db.prepare("SELECT COUNT(*) AS n FROM activity").get().n;
    const bytes =
      db.prepare("SELECT COALESCE(SUM(pgsize), 0) AS b FROM dbstat WHERE name IN ('activity', 'activity_at')")
        .get().b;
    return { rows, bytes };
  } finally {
    db.close();
  }
}

const kib = (b) => `${(b / 1024).toFixed(0)} KiB`;
const panel = await startPanel();
let before;
const statuses = new Map();
let seconds = 0;
try {
  before = measure(panel.dataDir);
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < ATTEMPTS) {
      const i = next++;
      const r = await fetch(`${panel.url}/api/login`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: panel.url, "User-Agent": BROWSER },
        body: JSON.stringify({ username: NAMES[i % NAMES.length], password: `guess ${i}` }),
      });
      await r.body?.cancel();
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  seconds = (performance.now() - started) / 1000;
} finally {
  // Stopped first: the last counts of the summary records are written at shutdown.
  await stopPanel({ ...panel, ownDir: false });
}
const after = measure(panel.dataDir);
Deno.removeSync(panel.dataDir, { recursive: true });
const answers = [...statuses].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${n} x ${s}`).join(", ");
console.log(
  `activity flood, ${ATTEMPTS} anonymous sign-in attempts in ${seconds.toFixed(1)} s (${answers}): ` +
    `${after.rows - before.rows} records added (${before.rows} -> ${after.rows}), ` +
    `table and index ${kib(before.bytes)} -> ${kib(after.bytes)} (+${kib(after.bytes - before.bytes)})`,
);
