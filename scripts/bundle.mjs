// The backend as the panel runs it: bundled by `deno bundle` into a few JavaScript files under
// .build/backend/<id>/, built again whenever a source changes. Deno starts a bundle in about half the time
// it takes to read the ~75 start-up modules one by one (bench/startup.mjs). The modules the panel loads
// after it answers (later(), backend/later.ts) stay separate: each is an entry point of its own.
//
// <id> is a digest of every source file's path, size and modification time (backend/, shared/, the
// package lock, deno.json and this file), so an edited, added, removed or replaced file gives a new id.
// A build goes to a temporary folder first and is renamed into place whole, so a panel never starts from
// half a bundle, and two launchers building at once both end up with one complete copy.
// When bundling fails (no esbuild for this machine, say), the panel runs from its sources as before.
//
// Node built-ins only: the launcher imports this before `npm install` has run.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

/** Builds that were not used for this long go, except the newest few (a running panel may use one). */
const KEEP_UNUSED_MS = 24 * 3600_000;
const KEEP_NEWEST = 3;

/** Every file under `dir` with its size and modification time, in a stable order. */
function listSources(root, dir, out) {
  let entries;
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const rel = join(dir, e.name);
    if (e.isDirectory()) listSources(root, rel, out);
    else if (e.isFile()) {
      const st = statSync(join(root, rel));
      out.push(`${rel}\0${st.size}\0${st.mtimeMs}`);
    }
  }
}

/** The id of the bundle for the sources as they are now. */
export function bundleId(root, inputs) {
  const lines = [];
  for (const input of inputs) {
    const path = join(root, input);
    if (!existsSync(path)) lines.push(`${input}\0-`);
    else if (statSync(path).isDirectory()) listSources(root, input, lines);
    else {
      const st = statSync(path);
      lines.push(`${input}\0${st.size}\0${st.mtimeMs}`);
    }
  }
  return createHash("sha256").update(lines.join("\n")).digest("hex").slice(0, 16);
}

/**
 * `deno bundle` puts `createRequire` from node:module at the top of the chunk every other chunk imports,
 * for the CommonJS packages that call require() (web-push's dependencies, loaded after start-up). Importing
 * node:module sets up Deno's whole Node layer first, which costs more than all of the panel's own start-up
 * work; so the require function is made on its first call instead. Returns how many chunks it changed.
 */
export function deferNodeRequire(dir) {
  const made = /^import \{ createRequire as (\w+) \} from "node:module";\nvar __require = \1\(import\.meta\.url\);$/m;
  let changed = 0;
  for (const name of readdirSync(dir, { recursive: true })) {
    if (!String(name).endsWith(".js")) continue;
    const file = join(dir, String(name));
    const text = readFileSync(file, "utf8");
    if (!made.test(text)) continue;
    writeFileSync(
      file,
      text.replace(
        made,
        "var __requireMade;\n" +
          'var __require = (id) => (__requireMade ??= globalThis.process.getBuiltinModule("node:module").createRequire(import.meta.url))(id);',
      ),
    );
    changed++;
  }
  return changed;
}

/** Removes the builds in `base` other than `keep` that nobody started for a day, sparing the newest few. */
function removeOldBuilds(base, keep) {
  let builds;
  try {
    builds = readdirSync(base, { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== keep)
      .map((e) => ({ path: join(base, e.name), name: e.name, mtime: statSync(join(base, e.name)).mtimeMs }))
      .sort((a, b) => b.mtime - a.mtime);
  } catch {
    return;
  }
  const now = Date.now();
  builds.forEach((b, i) => {
    // Unfinished builds of a launcher that died are named .tmp-*; anything older than an hour is one.
    const stale = b.name.startsWith(".tmp-") ? now - b.mtime > 3600_000 : i >= KEEP_NEWEST && now - b.mtime > KEEP_UNUSED_MS;
    if (stale) rmSync(b.path, { recursive: true, force: true });
  });
}

/**
 * Where the entry `entry` (a path under `root`/backend/) is in the build `buildDir`: esbuild keeps each
 * entry's place under the entries' common folder, so backend/http/server.ts is http/server.js there, and
 * the shared chunks sit beside main.js.
 */
export function bundledPath(root, buildDir, entry) {
  return join(buildDir, relative(join(root, "backend"), resolve(root, entry)).replace(/\.ts$/, ".js"));
}

/**
 * The bundle's entry file for `entries` (paths from `root`, the first one the panel's entry), built now if
 * the sources changed since the last build; null when it cannot be built (`onError` hears why).
 * @param {{ root: string, deno: string, entries: string[], inputs: string[], outBase: string,
 *   onError?: (why: string) => void, onBuild?: () => void }} opts
 * @returns {string | null}
 */
export function bundledEntry({ root, deno, entries, inputs, outBase, onError = () => {}, onBuild = () => {} }) {
  const id = bundleId(root, inputs);
  const dir = join(outBase, id);
  const main = bundledPath(root, dir, entries[0]);
  if (existsSync(main)) {
    // Marks it used (removeOldBuilds spares what was used lately).
    try {
      const now = new Date();
      utimesSync(dir, now, now);
    } catch { /* read-only checkout: still usable */ }
    return main;
  }
  onBuild();
  const tmp = join(outBase, `.tmp-${process.pid}-${Math.random().toString(36).slice(2)}`);
  try {
    mkdirSync(outBase, { recursive: true });
    const r = spawnSync(deno, [
      "bundle",
      "--quiet",
      "--platform", "deno",
      "--packages", "bundle",
      "--code-splitting",
      // Not --keep-names: it wraps every function made, each closure of every request included, in a call
      // that sets its name, which halved the status route's requests per second. esbuild renames only
      // what collides in a chunk; bundle_test.ts checks that none of the panel's own classes is, as
      // errors are named after their class (backend/errors.ts).
      // No source maps: Deno reads a module's map as it loads it (~3 ms more at start). A stack trace
      // still reads well: the code is as written, each module's part headed by its path.
      "--outdir", tmp,
      ...entries,
    ], { cwd: root, encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
    if (r.error) throw r.error;
    if (r.status !== 0) throw new Error(`${r.stderr ?? ""}${r.stdout ?? ""}`.trim() || `deno bundle exited with ${r.status}`);
    const missing = entries.find((e) => !existsSync(bundledPath(root, tmp, e)));
    if (missing) throw new Error(`deno bundle did not write ${bundledPath(root, tmp, missing)}`);
    deferNodeRequire(tmp);
    try {
      renameSync(tmp, dir);
    } catch (e) {
      // Another launcher finished the same build first: its copy is as good.
      if (!existsSync(main)) throw e;
      rmSync(tmp, { recursive: true, force: true });
    }
  } catch (e) {
    try {
      rmSync(tmp, { recursive: true, force: true });
    } catch { /* nothing was made */ }
    onError(e instanceof Error ? e.message : String(e));
    return null;
  }
  removeOldBuilds(outBase, id);
  return main;
}
