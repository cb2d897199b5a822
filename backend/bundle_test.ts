// The backend's bundle (scripts/bundle.mjs): the launcher starts the panel from it, it is built again
// when a source changes, a build that fails leaves nothing behind and the panel runs from its sources,
// and Node's require() is made on first use instead of at start-up.

import assert from "node:assert/strict";
import { BUNDLE_DIR, DENO, PANEL_LATER_MODULES, panelDenoArgs, panelEntry, ROOT } from "../scripts/launcher.mjs";
import { bundledEntry, bundledPath, bundleId } from "../scripts/bundle.mjs";
import { sourceFiles, startupGraph } from "./testing/graph.ts";

Deno.test("the launcher starts the panel from its bundle: no class of the panel renamed, start-up reads neither node:module nor a later() module", async () => {
  const entry = panelEntry();
  assert.match(entry, new RegExp(`^${BUNDLE_DIR}/[0-9a-f]{16}/main\\.js$`));
  assert.ok(panelDenoArgs([]).includes(entry));
  const dir = entry.slice(0, -"/main.js".length);
  for (const m of PANEL_LATER_MODULES) {
    const out = bundledPath(ROOT, dir, m);
    assert.ok(Deno.statSync(out).isFile, `${m} is an entry of the bundle (${out})`);
  }
  // esbuild renames a declaration whose name another module of the same chunk uses (Foo -> Foo2); errors
  // take their name from their class (errors.ts), so none of the panel's own classes may be renamed.
  const ownClasses = new Set<string>();
  for (const file of [...sourceFiles(`${ROOT}/backend`), ...sourceFiles(`${ROOT}/shared`)]) {
    for (const m of Deno.readTextFileSync(file).matchAll(/^(?:export )?(?:abstract )?class (\w+)/gm)) ownClasses.add(m[1]);
  }
  assert.ok(ownClasses.has("HttpError"));
  const bundled = [...Deno.readDirSync(dir)].filter((e) => e.isFile && e.name.endsWith(".js")).map((e) => `${dir}/${e.name}`);
  for (const m of PANEL_LATER_MODULES) bundled.push(bundledPath(ROOT, dir, m));
  const renamed: string[] = [];
  for (const file of bundled) {
    for (const m of Deno.readTextFileSync(file).matchAll(/\b(?:class |var |let |const )([A-Za-z_]\w*?)(\d+)\b(?: = class\b| extends\b| \{)/g)) {
      if (ownClasses.has(m[1]) && !ownClasses.has(m[1] + m[2])) renamed.push(`${m[1]}${m[2]} in ${file}`);
    }
  }
  assert.deepEqual(renamed, []);
  const reached = await startupGraph(entry);
  assert.ok(!reached.has("node:module"), "start-up imports node:module (the require deferral did not apply)");
  const later = PANEL_LATER_MODULES.map((m) => `file://${bundledPath(ROOT, dir, m)}`);
  assert.deepEqual(later.filter((m) => reached.has(m)), []);
});

function project(): string {
  const root = Deno.makeTempDirSync({ prefix: "bundle-test-" });
  Deno.mkdirSync(`${root}/backend/sub`, { recursive: true });
  Deno.writeTextFileSync(`${root}/backend/main.ts`, 'import { word } from "./word.ts";\nimport sep from "./sep.cjs";\nconsole.log(word(), sep);\n');
  Deno.writeTextFileSync(`${root}/backend/word.ts`, 'export const word = (): string => "first";\n');
  // A CommonJS module that calls require(): the bundle's require must work, made on its first call.
  Deno.writeTextFileSync(`${root}/backend/sep.cjs`, 'module.exports = require("node:path").sep;\n');
  Deno.writeTextFileSync(`${root}/backend/sub/later.ts`, 'export const later = 1;\n');
  return root;
}

function build(root: string, errors: string[] = []) {
  return bundledEntry({
    root,
    deno: DENO,
    entries: ["backend/main.ts", "backend/sub/later.ts"],
    inputs: ["backend"],
    outBase: `${root}/.build/backend`,
    onError: (why: string) => errors.push(why),
  });
}

function runs(entry: string): string {
  const out = new Deno.Command(DENO, { args: ["run", "--allow-read", "--allow-env", entry], stdout: "piped", stderr: "piped" }).outputSync();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim();
}

function builds(root: string): string[] {
  return [...Deno.readDirSync(`${root}/.build/backend`)].map((e) => e.name).sort();
}

Deno.test("a bundle is built once, again after any source changes, and a failed build leaves nothing", () => {
  const root = project();
  try {
    const first = build(root)!;
    assert.ok(first.endsWith("/main.js"));
    assert.ok(Deno.statSync(first.replace(/main\.js$/, "sub/later.js")).isFile, "each entry keeps its place");
    assert.equal(runs(first), "first /");
    assert.ok(!/from "node:module"/.test(Deno.readTextFileSync(first)), "main.js itself");
    const chunks = [...Deno.readDirSync(first.replace(/\/main\.js$/, ""))].filter((e) => e.name.endsWith(".js"));
    for (const c of chunks) {
      assert.ok(!/from "node:module"/.test(Deno.readTextFileSync(first.replace(/main\.js$/, c.name))), `${c.name} imports node:module`);
    }
    const at = Deno.statSync(first).mtime;
    assert.equal(build(root), first, "nothing changed: the same build");
    assert.deepEqual(Deno.statSync(first).mtime, at, "and not built again");

    // An edit of the same size, with a later modification time (what an editor or a checkout does).
    Deno.writeTextFileSync(`${root}/backend/word.ts`, 'export const word = (): string => "again";\n');
    Deno.utimeSync(`${root}/backend/word.ts`, new Date(), new Date(Date.now() + 5000));
    const second = build(root)!;
    assert.notEqual(second, first);
    assert.equal(runs(second), "again /");

    // An added file counts too, though nothing imports it yet.
    const id = bundleId(root, ["backend"]);
    Deno.writeTextFileSync(`${root}/backend/extra.ts`, "export {};\n");
    assert.notEqual(bundleId(root, ["backend"]), id);
    Deno.removeSync(`${root}/backend/extra.ts`);
    assert.equal(bundleId(root, ["backend"]), id, "and a removed one");

    // A source that does not compile: no bundle, the reason told, no half-written build left.
    Deno.writeTextFileSync(`${root}/backend/word.ts`, "export const word = (: string => ;\n");
    const errors: string[] = [];
    assert.equal(build(root, errors), null);
    assert.equal(errors.length, 1);
    assert.match(errors[0], /word\.ts/);
    assert.deepEqual(builds(root), [first, second].map((p) => p.split("/").at(-2)!).sort());

    // Nowhere to write it (a read-only checkout, say): told, and no exception for the launcher.
    const nowhere: string[] = [];
    Deno.writeTextFileSync(`${root}/backend/word.ts`, 'export const word = (): string => "third";\n');
    const unwritable = bundledEntry({
      root,
      deno: DENO,
      entries: ["backend/main.ts"],
      inputs: ["backend"],
      outBase: `${root}/backend/main.ts/.build`,
      onError: (why: string) => nowhere.push(why),
    });
    assert.equal(unwritable, null);
    assert.match(nowhere[0] ?? "", /ENOTDIR|not a directory/i);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
