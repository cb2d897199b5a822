// jsonText(): a kept JSON answer carries the same headers and body whether it is small (its headers
// given after it is made) or large (made with them), built alone and as Deno.serve sends it.

import assert from "node:assert/strict";
import { hasFinalHeaders, jsonText, SMALL_ANSWER } from "./routes.ts";

const SMALL = JSON.stringify({ status: "stopped", running: false, players: [] });
const LARGE = JSON.stringify(Array.from({ length: 600 }, (_, i) => ({ name: `save-${i}.zip`, size: i * 1024 })));
const WANTED = { "cache-control": "no-store", "content-type": "application/json", "x-content-type-options": "nosniff" };

const own = (headers: Headers) => Object.fromEntries([...headers].filter(([k]) => !["content-length", "date", "vary"].includes(k)));

Deno.test("jsonText: small and large answers carry the API headers and the text as given", async () => {
  assert.ok(SMALL.length < SMALL_ANSWER && LARGE.length > SMALL_ANSWER, "one of each kind");
  for (const text of [SMALL, LARGE, "", "[]"]) {
    const res = jsonText(text);
    assert.ok(hasFinalHeaders(res), "app.ts leaves it as it is");
    assert.equal(res.status, 200);
    assert.deepEqual(own(res.headers), WANTED);
    assert.equal(await res.text(), text);
  }
});

Deno.test("jsonText: Deno.serve sends the same headers and body for both kinds", async () => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => jsonText(req.url.endsWith("/large") ? LARGE : SMALL));
  try {
    for (const [path, text] of [["/small", SMALL], ["/large", LARGE]]) {
      const res = await fetch(`http://127.0.0.1:${server.addr.port}${path}`);
      assert.equal(res.status, 200);
      assert.deepEqual(own(res.headers), WANTED, path);
      assert.equal(res.headers.get("content-length"), String(new TextEncoder().encode(text).length));
      assert.equal(await res.text(), text);
    }
  } finally {
    await server.shutdown();
  }
});
