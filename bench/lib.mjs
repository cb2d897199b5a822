// Shared bits of the benchmark scripts: start a real panel process and read its memory.

import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "..");
export const DENO = join(ROOT, "node_modules", ".bin", "deno");

/** Starts backend/main.ts on a free port; resolves once it prints its URL. */
export function startPanel({ dataDir, args = [], env = {} } = {}) {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), "panel-bench-"));
  const started = performance.now();
  const child = spawn(DENO, ["run", "-A", "backend/main.ts", "--port", "0", "--bind", "127.0.0.1", "--data-dir", dir, ...args], {
    cwd: ROOT,
    env: { ...process.env, PANEL_ADMIN_PASSWORD: "bench-password", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  return new Promise((ok, fail) => {
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) ok({ url: m[1], child, started, dataDir: dir, ownDir: !dataDir, output: () => out });
    });
    child.stderr.on("data", (d) => (out += d));
    child.on("exit", (code) => fail(new Error(`panel exited (${code}): ${out}`)));
  });
}

export async function stopPanel(p) {
  const exited = new Promise((r) => p.child.once("exit", r));
  p.child.kill("SIGTERM");
  await exited;
  if (p.ownDir) rmSync(p.dataDir, { recursive: true, force: true });
}

/** Resident memory of a process in MiB, from /proc. */
export function rssMiB(pid, field = "VmRSS") {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}
