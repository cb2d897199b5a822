// The module graph Deno builds from an entry point (`deno info --json`), for tests about what start-up
// reads and what each module imports.

import assert from "node:assert/strict";
import { DENO, ROOT } from "../../scripts/launcher.mjs";

export interface ModuleGraph {
  roots: string[];
  modules: { specifier: string; dependencies?: { specifier: string; isDynamic?: boolean; code?: { specifier: string } }[] }[];
}

export async function moduleGraph(entry: string): Promise<ModuleGraph> {
  const out = await new Deno.Command(DENO, { args: ["info", "--json", entry], cwd: ROOT, stdout: "piped", stderr: "piped" }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}
