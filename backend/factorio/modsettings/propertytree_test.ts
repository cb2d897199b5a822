// The property-tree codec against real mod-settings.dat files (0.16.36, 0.16.51, 1.1.27, 1.1.110, 2.0.55) and files it
// writes, with property tests for round trips and for truncated, damaged and hostile input.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { MOD_FIXTURES } from "../../../tests/support/modpanel.ts";
import {
  decodeModSettings,
  decodeTree,
  encodeModSettings,
  encodeTree,
  MAX_DEPTH,
  type ModSettingsFile,
  PropertyTreeError,
  type PTree,
} from "./propertytree.ts";
import { treeToJson } from "./values.ts";

const REAL_FILES = [
  { file: "mod-settings.dat", version: [1, 1, 27, 0] },
  { file: "mod-settings/factorio-1.1.110.mod-settings.dat", version: [1, 1, 110, 0] },
  { file: "mod-settings/factorio-2.0.55.mod-settings.dat", version: [2, 0, 55, 0] },
  // Before 0.17 no byte sits between the version and the tree.
  { file: "mod-settings/factorio-0.16.51.mod-settings.dat", version: [0, 16, 51, 0] },
  { file: "mod-settings/factorio-0.16.36.mod-settings.dat", version: [0, 16, 36, 2] },
];
const read = (f: string) => new Uint8Array(readFileSync(join(MOD_FIXTURES, f)));

for (const { file, version } of REAL_FILES) {
  Deno.test(`real file ${file}: decodes, and encodes back byte for byte`, () => {
    const bytes = read(file);
    const decoded = decodeModSettings(bytes);
    assert.deepEqual(decoded.version, version);
    assert.equal(decoded.flag, 0);
    const root = decoded.tree;
    assert.equal(root.type, "dict");
    assert.deepEqual(root.type === "dict" && root.entries.map((e) => e.key), [
      "startup",
      "runtime-global",
      "runtime-per-user",
    ]);
    assert.deepEqual(encodeModSettings(decoded), bytes);
  });
}

Deno.test("real files: known values, and integers as doubles in 1.1 but 64-bit integers in 2.0", () => {
  const json = (f: string) =>
    treeToJson(decodeModSettings(read(f)).tree) as Record<string, Record<string, { value: unknown }>>;
  const old = json("mod-settings.dat");
  assert.equal(old.startup["sct-difficulty-cost"].value, "noadjustment");
  assert.equal(old["runtime-global"]["bottleneck-signals-per-tick"].value, 40);
  const v110 = json("mod-settings/factorio-1.1.110.mod-settings.dat");
  assert.equal(v110.startup["bet-cheatsy-speed"].value, 259.2);
  const count = (f: string, type: PTree["type"]) => {
    let n = 0;
    const walk = (t: PTree) => {
      if (t.type === type) n++;
      if (t.type === "dict" || t.type === "list") t.entries.forEach((e) => walk(e.value));
    };
    walk(decodeModSettings(read(f)).tree);
    return n;
  };
  assert.equal(count("mod-settings/factorio-1.1.110.mod-settings.dat", "int"), 0);
  assert.ok(count("mod-settings/factorio-2.0.55.mod-settings.dat", "int") > 100);
});

Deno.test("0.16 files: no header byte; values read, and written with a newer version the byte is there", () => {
  const bytes = read("mod-settings/factorio-0.16.51.mod-settings.dat");
  // The tree's type byte (5, a dictionary) follows the version at once.
  assert.equal(bytes[8], 5);
  const file = decodeModSettings(bytes);
  const json = treeToJson(file.tree) as Record<string, Record<string, { value: unknown }>>;
  assert.equal(json.startup["AR-use-items-from-bioindustries"].value, true);
  assert.ok(Object.keys(json["runtime-global"]).length > 10);
  // The game of today rewrites the file it loaded with its own version: 0.17 and later write the byte.
  const rewritten = encodeModSettings({ ...file, version: [1, 1, 110, 0] });
  assert.equal(rewritten.length, bytes.length + 1);
  assert.equal(rewritten[8], 0);
  assert.deepEqual(decodeModSettings(rewritten).tree, file.tree);
  // And back to 0.16: the original bytes.
  assert.deepEqual(encodeModSettings({ ...decodeModSettings(rewritten), version: [0, 16, 51, 0] }), bytes);
});

// Trees of every kind, with both forms of strings (empty flag or not) and odd numbers.
const key = fc.oneof(fc.constant(null), fc.string({ unit: "grapheme", maxLength: 300 }));
const any = fc.boolean();
// fc.record makes objects without a prototype; the decoder makes plain ones.
const entryArb = (value: fc.Arbitrary<PTree>) => fc.tuple(key, value).map(([k, v]) => ({ key: k, value: v }));
const treeArb: fc.Arbitrary<PTree> = fc.letrec<{ tree: PTree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    any.map((a) => ({ type: "none", any: a }) as PTree),
    fc.tuple(any, fc.boolean()).map(([a, value]) => ({ type: "bool", any: a, value }) as PTree),
    fc.tuple(any, fc.double({ noNaN: true })).map(([a, value]) =>
      ({ type: "double", any: a, value }) as PTree
    ),
    fc.tuple(any, key).map(([a, value]) => ({ type: "string", any: a, value }) as PTree),
    fc.tuple(any, fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })).map(([a, value]) =>
      ({ type: "int", any: a, value }) as PTree
    ),
    fc.tuple(any, fc.bigInt({ min: 0n, max: 2n ** 64n - 1n })).map(([a, value]) =>
      ({ type: "uint", any: a, value }) as PTree
    ),
    fc.tuple(any, fc.array(entryArb(tie("tree")), { maxLength: 5 }))
      .map(([a, entries]) => ({ type: "list", any: a, entries }) as PTree),
    fc.tuple(any, fc.array(entryArb(tie("tree")), { maxLength: 5 }))
      .map(([a, entries]) => ({ type: "dict", any: a, entries }) as PTree),
  ),
})).tree;

Deno.test("property: decode(encode(tree)) is the tree, and encode(decode(bytes)) the bytes", () => {
  fc.assert(
    fc.property(treeArb, (tree) => {
      const bytes = encodeTree(tree);
      const back = decodeTree(bytes);
      assert.deepEqual(back, tree);
      assert.deepEqual(encodeTree(back), bytes);
    }),
    { numRuns: 400 },
  );
});

Deno.test("property: whole files with any version round-trip", () => {
  const fileArb = fc.record({
    version: fc.tuple(fc.nat(65535), fc.nat(65535), fc.nat(65535), fc.nat(65535)),
    flag: fc.constant(0),
    tree: fc.array(entryArb(treeArb), { maxLength: 4 }).map((entries) =>
      ({ type: "dict", any: false, entries }) as PTree
    ),
  }) as fc.Arbitrary<ModSettingsFile>;
  fc.assert(
    fc.property(fileArb, (file) => {
      assert.deepEqual(decodeModSettings(encodeModSettings(file)), { ...file });
    }),
    { numRuns: 200 },
  );
});

/** Decoding either succeeds and round-trips, or fails with a PropertyTreeError: nothing else. */
function decodesCleanly(bytes: Uint8Array): void {
  let file: ModSettingsFile;
  try {
    file = decodeModSettings(bytes);
  } catch (e) {
    if (e instanceof PropertyTreeError) return;
    throw e;
  }
  assert.deepEqual(encodeModSettings(file), bytes, "whatever decodes writes back the same bytes");
}

Deno.test("truncations of a real file are PropertyTreeErrors", () => {
  const bytes = read("mod-settings.dat");
  // Every cut in the header and the first settings, then every 7th (each decode reads the whole prefix).
  for (let n = 0; n < bytes.length; n += n < 1024 ? 1 : 7) {
    assert.throws(() => decodeModSettings(bytes.subarray(0, n)), PropertyTreeError, `truncated at ${n}`);
  }
});

Deno.test("property: a real file with bytes changed, cut or added either decodes exactly or fails cleanly", () => {
  const bytes = read("mod-settings/factorio-2.0.55.mod-settings.dat");
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(bytes.length - 1), fc.nat(255)), { minLength: 1, maxLength: 8 }),
      fc.nat(bytes.length),
      fc.uint8Array({ maxLength: 16 }),
      (changes, cut, tail) => {
        const copy = bytes.slice();
        for (const [at, v] of changes) copy[at] = v;
        decodesCleanly(copy);
        decodesCleanly(copy.subarray(0, cut));
        decodesCleanly(new Uint8Array([...copy, ...tail]));
      },
    ),
    { numRuns: 150 },
  );
});

Deno.test("property: random bytes never crash the decoder", () => {
  fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), decodesCleanly), { numRuns: 2000 });
});

const header = [2, 0, 0, 0, 0, 0, 0, 0, 0];

Deno.test("hostile: huge counts and lengths are refused before anything is allocated", () => {
  // a dictionary claiming 4 billion entries, a string claiming 4 GiB
  const dictHuge = new Uint8Array([...header, 5, 0, 0xff, 0xff, 0xff, 0xff]);
  assert.throws(() => decodeModSettings(dictHuge), /claims 4294967295 entries/);
  const stringHuge = new Uint8Array([...header, 5, 0, 1, 0, 0, 0, 0, 255, 0xff, 0xff, 0xff, 0xff]);
  assert.throws(() => decodeModSettings(stringHuge), /ends in the middle/);
});

Deno.test("hostile: deep nesting is refused, not a stack overflow", () => {
  // 100 000 nested lists, each with one entry: 7 bytes per level
  const levels = 100_000;
  const bytes = new Uint8Array(header.length + levels * 7 + 2);
  bytes.set(header);
  let at = header.length;
  for (let i = 0; i < levels; i++) {
    bytes.set([4, 0, 1, 0, 0, 0, 1], at); // list, any=0, count 1, key in empty form
    at += 7;
  }
  bytes.set([0, 0], at);
  assert.throws(() => decodeModSettings(bytes), new RegExp(`deeper than ${MAX_DEPTH}`));
});

Deno.test("non-canonical forms the game never writes are refused", () => {
  const wrap = (...t: number[]) => new Uint8Array([...header, 5, 0, 1, 0, 0, 0, 0, 1, 0x61, ...t]);
  assert.ok(decodeModSettings(wrap(1, 0, 1)), "a bool true under key 'a'");
  assert.throws(() => decodeModSettings(wrap(1, 0, 2)), /not 0 or 1/);
  assert.throws(() => decodeModSettings(wrap(1, 2, 1)), /any-type flag/);
  assert.throws(
    () => decodeModSettings(wrap(3, 0, 0, 255, 3, 0, 0, 0, 0x61, 0x62, 0x63)),
    /long form but only 3/,
  );
  assert.throws(() => decodeModSettings(wrap(3, 0, 0, 2, 0xc3, 0x28)), /not valid UTF-8/);
  assert.throws(() => decodeModSettings(wrap(8, 0)), /unknown value type 8/);
  assert.throws(() => decodeModSettings(wrap(0, 0, 0)), /1 bytes follow/);
  assert.throws(
    () => decodeModSettings(new Uint8Array([...header.slice(0, 8), 0, 3, 0, 0, 1, 0x61])),
    /not a dictionary/,
  );
});

Deno.test("NaN payloads and negative zero are written back as read", () => {
  const nan = new Uint8Array([2, 0, 1, 0, 0, 0, 0, 0, 0xf8, 0x7f]);
  assert.deepEqual(encodeTree(decodeTree(nan)), nan);
  const odd = new Uint8Array([2, 0, 0xef, 0xbe, 0xad, 0xde, 0, 0, 0xf0, 0xff]);
  assert.deepEqual(encodeTree(decodeTree(odd)), odd);
  const negZero = new Uint8Array([2, 0, 0, 0, 0, 0, 0, 0, 0, 0x80]);
  assert.deepEqual(encodeTree(decodeTree(negZero)), negZero);
});

Deno.test("long strings use the long length form", () => {
  const s = "x".repeat(300);
  const bytes = encodeTree({ type: "string", any: false, value: s });
  assert.deepEqual([...bytes.subarray(0, 8)], [3, 0, 0, 255, 44, 1, 0, 0]);
  assert.deepEqual(decodeTree(bytes), { type: "string", any: false, value: s });
});
