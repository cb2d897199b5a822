// The module graph Deno builds from an entry point (`deno info --json`), for tests about what start-up
// reads and what each module imports.

import assert from "node:assert/strict";
import { DENO, ROOT } from "../../scripts/launcher.mjs";

export interface ModuleGraph {
  roots: string[];
  modules: {
    specifier: string;
    dependencies?: { specifier: string; isDynamic?: boolean; code?: { specifier: string } }[];
  }[];
}

/** Every module of the panel's code under `dir` (its .ts files, tests left out), for tests that read them. */
export function sourceFiles(dir: string): string[] {
  const found: string[] = [];
  for (const entry of Deno.readDirSync(dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) found.push(...sourceFiles(path));
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) found.push(path);
  }
  return found;
}

export async function moduleGraph(entry: string): Promise<ModuleGraph> {
  const out = await new Deno.Command(DENO, {
    args: ["info", "--json", entry],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/**
 * What Deno reads before it runs `entry`: every import it can follow, static or a string-literal
 * `import()`, Node built-ins included ("node:fs"). Type-only imports (`import type`, `typeof import()`)
 * are not code and not followed.
 */
export async function startupGraph(entry: string): Promise<Set<string>> {
  const info = await moduleGraph(entry);
  const byName = new Map(info.modules.map((m) => [m.specifier, m]));
  const seen = new Set<string>();
  const todo = [info.roots[0]];
  while (todo.length > 0) {
    const at = todo.pop()!;
    if (seen.has(at)) continue;
    seen.add(at);
    for (const d of byName.get(at)?.dependencies ?? []) if (d.code) todo.push(d.code.specifier);
  }
  return seen;
}
