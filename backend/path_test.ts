// backend/path.ts against node:path (posix) on hand-picked and generated inputs.

import * as node from "node:path";
import * as ours from "./path.ts";

function assertSame(what: string, got: string, want: string): void {
  if (got !== want) throw new Error(`${what}: got ${JSON.stringify(got)}, node:path gives ${JSON.stringify(want)}`);
}

const PICKED = [
  "", ".", "..", "/", "//", "///a", "a", "a/", "a//", "/a", "/a/", "a/b", "a//b", "a/b/", "/a/b/c", "./a", "../a",
  "a/..", "a/../", "a/../..", "/..", "/../a", "a/./b", ".a", "a.", "a.b", ".a.b", "a.b.c", "..a", "a..", "/a.b/c",
  "/a/b.txt", "b.txt", "dir/.hidden", "x/y/../../..", "/x/y/../../..", "a/b/../c/./d/", "save 1.zip", "ü/ß.zip",
];

// Every path of up to four parts built from these pieces.
const PIECES = ["", ".", "..", "a", "b.c", ".d", "/"];
function* generated(): Generator<string> {
  const rec = function* (prefix: string, depth: number): Generator<string> {
    yield prefix;
    if (depth === 0) return;
    for (const p of PIECES) yield* rec(prefix === "" ? p : `${prefix}/${p}`, depth - 1);
  };
  yield* rec("", 4);
}

const ALL = [...new Set([...PICKED, ...generated()])];

Deno.test("normalize, dirname, basename, extname and isAbsolute match node:path", () => {
  for (const p of ALL) {
    assertSame(`normalize(${p})`, ours.normalize(p), node.posix.normalize(p));
    assertSame(`dirname(${p})`, ours.dirname(p), node.posix.dirname(p));
    assertSame(`basename(${p})`, ours.basename(p), node.posix.basename(p));
    assertSame(`extname(${p})`, ours.extname(p), node.posix.extname(p));
    assertSame(`isAbsolute(${p})`, String(ours.isAbsolute(p)), String(node.posix.isAbsolute(p)));
  }
});

Deno.test("join, resolve and relative match node:path", () => {
  const some = ALL.filter((_, i) => i % 7 === 0).concat(PICKED);
  for (const a of some) {
    assertSame(`resolve(${a})`, ours.resolve(a), node.posix.resolve(a));
    for (const b of PICKED) {
      assertSame(`join(${a}, ${b})`, ours.join(a, b), node.posix.join(a, b));
      assertSame(`resolve(${a}, ${b})`, ours.resolve(a, b), node.posix.resolve(a, b));
      assertSame(`relative(${a}, ${b})`, ours.relative(a, b), node.posix.relative(a, b));
    }
  }
  assertSame("join()", ours.join(), node.posix.join());
  assertSame("join('', '')", ours.join("", ""), node.posix.join("", ""));
  assertSame("join(a, b, c)", ours.join("/x", "y/", "../z", "w.zip"), node.posix.join("/x", "y/", "../z", "w.zip"));
  assertSame("resolve()", ours.resolve(), node.posix.resolve());
  assertSame("resolve(/a, b, /c, d)", ours.resolve("/a", "b", "/c", "d"), node.posix.resolve("/a", "b", "/c", "d"));
  assertSame("sep", ours.sep, node.posix.sep);
});
