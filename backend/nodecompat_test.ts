// The modules loaded at start (main.ts, the run.ts it loads at once, the live side and the services.ts
// the context loads after the first answer and a second later, the game's routes, and everything they
// import statically) import no `node:` module
// but node:sqlite: the first one would bring in Deno's Node compatibility layer, about 45 ms at every
// start and 10 MiB for as long as the panel runs (backend/fs.ts). Nor do the routes of the pages used
// every day, loaded at their first request. What runs seldom (a new world, an import or export, a
// passkey, sending a push, writing a zip, a file's checksum) may load it when it runs.

import assert from "node:assert/strict";
import { ROOT } from "../scripts/launcher.mjs";
import { moduleGraph, type ModuleGraph } from "./testing/graph.ts";

/** The `node:` modules imported statically from `root`, with the module that imports each. */
function staticNodeImports(info: ModuleGraph, root: string): string[] {
  const byName = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const found: string[] = [];
  const todo = [root];
  while (todo.length > 0) {
    const at = todo.pop()!;
    if (seen.has(at)) continue;
    seen.add(at);
    for (const d of byName.get(at)?.dependencies ?? []) {
      const to = d.code?.specifier;
      if (!to || d.isDynamic) continue;
      if (to.startsWith("node:")) found.push(`${at.replace(/^file:\/\/.*?\/backend\//, "backend/")} imports ${to}`);
      else todo.push(to);
    }
  }
  return found;
}

Deno.test("the modules loaded at start import no node: built-in but node:sqlite", async () => {
  const info = await moduleGraph("backend/main.ts");
  const roots = ["backend/run.ts", "backend/live.ts", "backend/services.ts", "backend/http/server.ts"].map((m) =>
    new URL(m, new URL(ROOT + "/", "file://")).href
  );
  for (const root of roots) assert.ok(info.modules.some((m) => m.specifier === root), `the panel does not load ${root}`);
  const found = [info.roots[0], ...roots].flatMap((root) => staticNodeImports(info, root))
    .filter((f) => !f.endsWith(" node:sqlite"));
  assert.deepEqual(found, []);
});

Deno.test("nor do the routes of the pages used every day", async () => {
  const info = await moduleGraph("backend/main.ts");
  // The areas load together at the first request to any of them (app.ts, http/areas.ts), so every one counts.
  for (const area of ["saves", "mods", "modsettings", "world", "settings", "push", "versions", "backups", "alerts", "playerhistory", "access", "passkeys", "transfer", "https"]) {
    const root = new URL(`backend/http/${area}.ts`, new URL(ROOT + "/", "file://")).href;
    assert.ok(info.modules.some((m) => m.specifier === root), `${area}.ts is not loaded by the panel`);
    assert.deepEqual(staticNodeImports(info, root).filter((f) => !f.endsWith(" node:sqlite")), [], area);
  }
});
