// KeptPathRouter keeps the TrieRouter's answer for a path declared without parameters; it must answer
// exactly as the TrieRouter does, also after routes are added and for paths two routes match.

import assert from "node:assert/strict";
import { TrieRouter } from "hono/router/trie-router";
import { KeptPathRouter } from "./router.ts";

const ROUTES: [string, string, string][] = [
  ["GET", "/api/saves/list", "saves list"],
  ["GET", "/api/saves/dl/:name", "save download"],
  ["GET", "/api/user/passkeys/options", "passkey options"],
  ["GET", "/api/user/passkeys/:id", "one passkey"],
  ["POST", "/api/user/passkeys/:id", "passkey post"],
  ["GET", "/api/backups/settings", "backup settings"],
  ["POST", "/api/backups/:id/delete", "backup delete"],
];

const REQUESTS: [string, string][] = [
  ["GET", "/api/saves/list"],
  ["POST", "/api/saves/list"],
  ["GET", "/api/saves/dl/a.zip"],
  ["GET", "/api/saves/dl/b.zip"],
  ["GET", "/api/user/passkeys/options"],
  ["POST", "/api/user/passkeys/options"],
  ["GET", "/api/user/passkeys/7"],
  ["GET", "/api/backups/settings"],
  ["POST", "/api/backups/3/delete"],
  ["GET", "/api/nothing"],
];

function both(routes: [string, string, string][]) {
  const kept = new KeptPathRouter<string>();
  const trie = new TrieRouter<string>();
  for (const [m, p, h] of routes) {
    kept.add(m, p, h);
    trie.add(m, p, h);
  }
  return { kept, trie };
}

Deno.test("KeptPathRouter answers as the TrieRouter does, the first time and every time after", () => {
  const { kept, trie } = both(ROUTES);
  for (let round = 0; round < 3; round++) {
    for (const [m, p] of REQUESTS) assert.deepEqual(kept.match(m, p), trie.match(m, p), `${m} ${p}, round ${round}`);
  }
  // A fixed path a parameter route also matches gets both, in the order they were added.
  assert.deepEqual(kept.match("GET", "/api/user/passkeys/options")[0].map(([h]) => h), ["passkey options", "one passkey"]);
  // Parameters are not kept from an earlier request.
  const params = (r: ReturnType<typeof kept.match>) => (r[0][0] as [string, Record<string, string>])[1];
  assert.deepEqual({ ...params(kept.match("GET", "/api/saves/dl/a.zip")) }, { name: "a.zip" });
  assert.deepEqual({ ...params(kept.match("GET", "/api/saves/dl/b.zip")) }, { name: "b.zip" });
});

Deno.test("KeptPathRouter: a route added after a path was answered is part of its next answer", () => {
  const { kept, trie } = both(ROUTES);
  assert.deepEqual(kept.match("GET", "/api/saves/list")[0].map(([h]) => h), ["saves list"]);
  kept.add("GET", "/api/saves/:what", "any saves path");
  trie.add("GET", "/api/saves/:what", "any saves path");
  assert.deepEqual(kept.match("GET", "/api/saves/list"), trie.match("GET", "/api/saves/list"));
  assert.deepEqual(kept.match("GET", "/api/saves/list")[0].map(([h]) => h), ["saves list", "any saves path"]);
});

Deno.test("KeptPathRouter keeps only declared fixed routes: a flood of other URLs or methods does not grow it", () => {
  const { kept } = both(ROUTES);
  for (let i = 0; i < 1000; i++) {
    kept.match("GET", `/api/saves/dl/${i}.zip`);
    kept.match("GET", `/api/unknown/${i}`);
  }
  assert.equal(kept.keptCount, 0);
  for (let i = 0; i < 1000; i++) kept.match(`M${i}`, "/api/saves/list"); // any token is a method on the wire
  assert.equal(kept.keptCount, 0);
  kept.match("GET", "/api/saves/list");
  kept.match("GET", "/api/backups/settings");
  assert.equal(kept.keptCount, 2);
});
