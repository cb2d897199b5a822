// The modules loaded by later() (later.ts) are exactly the ones scripts/launcher.mjs names for deno
// compile, each call says its module's type with the same path, no other computed import() exists, and
// Deno's start-up graph (what it reads before running anything) reaches none of them.

import assert from "node:assert/strict";
import { PANEL_LATER_MODULES, ROOT } from "../scripts/launcher.mjs";
import { sourceFiles, startupGraph } from "./testing/graph.ts";

/** `spec` as a path from the project's root, resolved from the module at `from`. */
function fromRoot(from: string, spec: string): string {
  return new URL(spec, `file://${from}`).pathname.slice(ROOT.length + 1);
}

Deno.test("every later() module is in PANEL_LATER_MODULES, and each of those is loaded by later()", () => {
  const loaded = new Set<string>();
  for (const file of sourceFiles(`${ROOT}/backend`)) {
    // Code only: comment lines may show the form.
    const text = Deno.readTextFileSync(file).split("\n").filter((l) => !/^\s*(\/\/|\/?\*)/.test(l)).join("\n");
    for (const m of text.matchAll(/import\(later\("([^"]+)"\)\)( as Promise<typeof import\("([^"]+)"\)>)?/g)) {
      // In the bundle the calling code lands in a chunk at the bundle's top (later.ts), so a relative
      // specifier only means the same there when its caller sits at backend/'s top.
      assert.equal(file.slice(0, file.lastIndexOf("/")), `${ROOT}/backend`, `${file}: later() is called from backend/ itself only`);
      assert.equal(m[3], m[1], `${file}: import(later("${m[1]}")) must say its type as Promise<typeof import("${m[1]}")>`);
      loaded.add(fromRoot(file, m[1]));
    }
    // Any other import() is a string literal (Deno reads it ahead, deno compile includes it) or a type.
    for (const m of text.matchAll(/(typeof )?\bimport\((?!"|later\(")/g)) {
      assert.ok(m[1], `${file}: an import() that is neither a string literal nor later("...")`);
    }
  }
  assert.deepEqual([...loaded].sort(), [...PANEL_LATER_MODULES].sort());
});

Deno.test("Deno's start-up graph does not reach the later() modules", async () => {
  const seen = await startupGraph("backend/main.ts");
  const reached = PANEL_LATER_MODULES.filter((m) => seen.has(`file://${ROOT}/${m}`));
  assert.deepEqual(reached, [], "a start-up module imports one of them by a literal");
  assert.ok(seen.has(`file://${ROOT}/backend/run.ts`), "the walk follows main.ts's import of run.ts");
});
