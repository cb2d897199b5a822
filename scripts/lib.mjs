// Helpers for the npm scripts. Node built-ins only: these run before `npm install` has.

import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { compressDir } from "./compress.mjs";

import { DENO, ROOT } from "./launcher.mjs";

export { DENO, ROOT };
export const BIN = (name) => join(ROOT, "node_modules", ".bin", name);

export function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: ROOT, stdio: "inherit", ...opts });
  if (r.error) throw r.error;
  return r.status ?? 1;
}

function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let max = st.mtimeMs;
  for (const name of readdirSync(path)) {
    if (name === "node_modules" || name === "dist") continue;
    max = Math.max(max, newest(join(path, name)));
  }
  return max;
}

/** Runs `npm install` when node_modules is missing or older than the lockfile. */
export function ensureDeps() {
  const marker = join(ROOT, "node_modules", ".package-lock.json");
  const stale = !existsSync(DENO) || !existsSync(marker) ||
    statSync(marker).mtimeMs < statSync(join(ROOT, "package-lock.json")).mtimeMs;
  if (!stale) return;
  console.log("Installing dependencies (npm install)...");
  const code = run("npm", ["install", "--no-audit", "--no-fund"]);
  if (code !== 0) {
    console.error("npm install failed; see above.");
    process.exit(code);
  }
}

/** Type-checks and builds the PWA into pwa/dist, unless `onlyIfStale` and the build is newer than its sources. */
export function buildPwa({ onlyIfStale = false } = {}) {
  const built = join(ROOT, "pwa", "dist", "index.html");
  if (onlyIfStale && existsSync(built)) {
    // Installed with the built app and without its sources (the Docker image): nothing to build from.
    if (!existsSync(join(ROOT, "pwa", "src"))) return 0;
    const sources = Math.max(
      newest(join(ROOT, "pwa")),
      newest(join(ROOT, "shared")),
      statSync(join(ROOT, "package-lock.json")).mtimeMs,
    );
    if (sources <= statSync(built).mtimeMs) return 0;
  }
  console.log("Building the web app...");
  let code = run(BIN("tsc"), ["-p", "pwa"]);
  if (code === 0 && existsSync(join(ROOT, "pwa", "tsconfig.sw.json"))) {
    code = run(BIN("tsc"), ["-p", "pwa/tsconfig.sw.json"]);
  }
  if (code === 0) code = run(BIN("vite"), ["build", "-c", "pwa/vite.config.ts", "--logLevel", "warn"]);
  if (code === 0) {
    code = run(process.execPath, [
      "-e",
      `import("./scripts/prerender.mjs").then((m) => m.prerenderLogin(${
        JSON.stringify(ROOT)
      })).catch((e) => { console.error(e); process.exit(1); })`,
    ]);
  }
  if (code === 0) compressDir(join(ROOT, "pwa", "dist"));
  return code;
}
