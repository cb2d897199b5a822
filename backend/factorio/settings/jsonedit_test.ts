import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import fc from "fast-check";
import { updateJsonText } from "./jsonedit.ts";

const example = readFileSync(
  new URL("../../../tests/fake-factorio/data/server-settings.example.json", import.meta.url),
  "utf8",
);

function changedLines(a: string, b: string): string[] {
  const left = a.split("\n");
  const right = b.split("\n");
  assert.equal(left.length, right.length, "same number of lines");
  return right.filter((line, i) => line !== left[i]);
}

Deno.test("an unchanged document is written back byte for byte", () => {
  assert.equal(updateJsonText(example, JSON.parse(example)), example);
});

Deno.test("a changed value rewrites only its own line, in the file's own spacing", () => {
  const next = {
    ...JSON.parse(example),
    max_players: 12,
    allow_commands: "true",
    name: 'My "quoted" server',
  };
  const out = updateJsonText(example, next);
  assert.deepEqual(changedLines(example, out), [
    '  "name": "My \\"quoted\\" server",',
    '  "max_players": 12,',
    '  "allow_commands": "true",',
  ]);
  assert.deepEqual(JSON.parse(out), next);
});

Deno.test("lists stay inline and nested flags change in place", () => {
  const before = JSON.parse(example);
  const next = { ...before, tags: ["vanilla", "friends"], visibility: { public: false, lan: true } };
  const out = updateJsonText(example, next);
  assert.deepEqual(changedLines(example, out), ['  "tags": ["vanilla", "friends"],', '    "public": false,']);
  assert.deepEqual(JSON.parse(out), next);
  assert.deepEqual(JSON.parse(updateJsonText(example, { ...before, tags: [] })).tags, []);
});

Deno.test("new keys are appended at the end of their object with the members' indent", () => {
  const before = JSON.parse(example);
  const next = { ...before, future_setting: true, visibility: { ...before.visibility, steam: true } };
  const out = updateJsonText(example, next);
  assert.deepEqual(JSON.parse(out), next);
  assert.deepEqual(Object.keys(JSON.parse(out)), Object.keys(next));
  assert.match(out, /"maximum_segment_size_peer_count": 10,\n {2}"future_setting": true\n}/);
  assert.match(out, /"lan": true,\n {4}"steam": true\n {2}}/);
});

Deno.test("a byte order mark and CRLF line ends survive", () => {
  const text = '\uFEFF{\r\n  "a": 1,\r\n  "b": "x"\r\n}\r\n';
  const out = updateJsonText(text, { a: 2, b: "x" });
  assert.equal(out, '\uFEFF{\r\n  "a": 2,\r\n  "b": "x"\r\n}\r\n');
});

Deno.test("odd but valid documents still come out exactly right", () => {
  const cases: [string, unknown][] = [
    ['{"a":1,"a":2}', { a: 3 }], // duplicate key: JSON.parse keeps the last value at the first position
    ["{}", { a: 1 }],
    ['{"a":{}}', { a: { b: [1, { c: null }] } }],
    ['{"a":[1,2]}', { a: [1, 2, 3] }],
    ['{"a":"\\u00e9\\\\"}', { a: "é\\", b: false }],
    ['  {"a" : 1e3 }  ', { a: 1000 }],
    ['{"a":1}', { b: 1 }], // a key removed: written fresh
  ];
  for (const [text, next] of cases) {
    const out = updateJsonText(text, next);
    assert.deepEqual(JSON.parse(out), next, text);
    assert.equal(JSON.stringify(JSON.parse(out)), JSON.stringify(next), `key order for ${text}`);
  }
  assert.equal(
    updateJsonText('  {"a" : 1e3 }  ', { a: 1000 }),
    '  {"a" : 1e3 }  ',
    "equal values keep their spelling",
  );
});

Deno.test("property: any edit of any document parses back to exactly the new value", () => {
  const json = fc.jsonValue({ maxDepth: 3 });
  fc.assert(
    fc.property(
      fc.dictionary(fc.string(), json, { maxKeys: 8 }),
      fc.dictionary(fc.string(), json, { maxKeys: 4 }),
      fc.constantFrom(0, 2, 4, "\t"),
      (before, changes, indent) => {
        const text = JSON.stringify(before, null, indent);
        const next = { ...before, ...changes };
        const out = updateJsonText(text, next);
        assert.equal(JSON.stringify(JSON.parse(out)), JSON.stringify(next));
      },
    ),
    { numRuns: 300 },
  );
});
