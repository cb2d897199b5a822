// Reading one request header at a time gives what the request's Headers give, for a request Deno serves
// (each read one call into Rust) and for one made in JavaScript (read through its Headers); the session
// cookie is parsed as Hono's getCookie parses it.

import assert from "node:assert/strict";
import { Hono } from "hono";
import { getCookie } from "hono/cookie";
import { readsOneHeader, requestCookie, requestHeader } from "./reqheader.ts";
import { createLogger } from "../log.ts";
import { Gate } from "../serve/gate.ts";

const NAMES = ["host", "cookie", "authorization", "origin", "sec-fetch-site", "absent"];
const COOKIES = [
  "fp_session=abc",
  "a=1; fp_session=tok%2Fen; b=2",
  'fp_session="quoted"',
  "fp_session=bad value; fp_session=second",
  "xfp_session=1; fp_session=real",
  "fp_session=",
  "other=1",
  "fp_session=%E0%A4%A",
];

interface Seen {
  one: boolean;
  headers: Record<string, string | undefined>;
  expected: Record<string, string | undefined>;
  cookie: string | undefined;
  honoCookie: string | undefined;
}

/** What a handler sees of `req`: each header read one at a time and through Headers, and the cookie both ways. */
function seen(req: Request): Seen {
  const headers: Record<string, string | undefined> = {};
  for (const n of NAMES) headers[n] = requestHeader(req, n);
  const cookie = requestCookie(req, "fp_session");
  // Read after: touching Headers first would not change the one-at-a-time reads, but keep them honest.
  const expected: Record<string, string | undefined> = {};
  for (const n of NAMES) expected[n] = req.headers.get(n) ?? undefined;
  let honoCookie: string | undefined;
  const app = new Hono();
  app.get("*", (c) => {
    honoCookie = getCookie(c, "fp_session");
    return c.text("");
  });
  void app.fetch(new Request(req.url, { headers: req.headers }));
  return { one: readsOneHeader(req), headers, expected, cookie, honoCookie };
}

function checkSeen(s: Seen, one: boolean, what: string): void {
  assert.equal(s.one, one, what);
  assert.deepEqual(s.headers, s.expected, what);
  assert.equal(s.cookie, s.honoCookie, `${what}: the cookie as Hono parses it`);
}

/** Request headers as a browser sends them, names in mixed case. */
function browserHeaders(cookie: string): Record<string, string> {
  return {
    "User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131",
    Accept: "application/json",
    "Accept-Language": "en-GB,en;q=0.9",
    Cookie: cookie,
    Origin: "http://panel.lan:8080",
    "Sec-Fetch-Site": "same-origin",
    Authorization: "Bearer t0ken",
  };
}

Deno.test("a request Deno serves is read a header at a time, with the values its Headers give", async () => {
  const seenBy: Seen[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req) => {
    seenBy.push(seen(req));
    return new Response("ok");
  });
  try {
    for (const cookie of COOKIES) {
      const res = await fetch(`http://127.0.0.1:${server.addr.port}/api/saves/list`, { headers: browserHeaders(cookie) });
      await res.body?.cancel();
    }
    // Without any of them.
    await (await fetch(`http://127.0.0.1:${server.addr.port}/`)).body?.cancel();
  } finally {
    await server.shutdown();
  }
  assert.equal(seenBy.length, COOKIES.length + 1);
  seenBy.forEach((s, i) => checkSeen(s, true, `request ${i}`));
  assert.equal(seenBy[1].cookie, "tok/en");
  assert.equal(seenBy[4].cookie, "real");
  assert.equal(seenBy[COOKIES.length].headers.cookie, undefined);
});

Deno.test("a request made in JavaScript is read through its Headers", () => {
  for (const cookie of COOKIES) {
    checkSeen(seen(new Request("http://panel.lan:8080/api/saves/list", { headers: browserHeaders(cookie) })), false, cookie);
  }
  checkSeen(seen(new Request("http://panel.lan/")), false, "no headers");
});

Deno.test("a cookie read again, or another cookie of the same header, is the one the header holds", () => {
  const req = (cookie: string) => new Request("http://panel.lan/", { headers: { Cookie: cookie } });
  // The same header twice in a row (kept from the first read), a different one, then back.
  for (const cookie of [...COOKIES, ...COOKIES.toReversed(), COOKIES[1], COOKIES[1]]) {
    for (const name of ["fp_session", "a", "fp_session"]) {
      assert.equal(requestCookie(req(cookie), name), honoCookie(cookie, name), `${name} of ${cookie}`);
    }
  }
  assert.equal(requestCookie(new Request("http://panel.lan/"), "fp_session"), undefined, "no Cookie header");
  assert.equal(requestCookie(req("a=1; fp_session=x"), "a"), "1");
  assert.equal(requestCookie(req("a=2; fp_session=x"), "a"), "2", "a new header is parsed again");
});

/** The value Hono's getCookie gives for `name` in `cookie`. */
function honoCookie(cookie: string, name: string): string | undefined {
  let value: string | undefined;
  const app = new Hono();
  app.get("*", (c) => {
    value = getCookie(c, name);
    return c.text("");
  });
  void app.fetch(new Request("http://panel.lan/", { headers: { Cookie: cookie } }));
  return value;
}

Deno.test("behind the gate: relayed and handed-over requests are read a header at a time, the gate's own answers through Headers", async () => {
  const seenBy: Record<string, Seen> = {};
  const gate = new Gate({
    hostname: "127.0.0.1",
    port: 0,
    limits: {},
    log: createLogger({ quiet: true }),
    handler: async (req) => {
      const path = new URL(req.url).pathname;
      seenBy[path] = seen(req);
      await req.body?.cancel();
      return new Response("ok");
    },
  });
  try {
    const url = `http://127.0.0.1:${gate.addr.port}`;
    const headers = browserHeaders("a=1; fp_session=tok");
    // A first request on a connection (relayed), then one on the same kept-alive connection (handed over).
    for (const path of ["/first", "/second"]) await (await fetch(url + path, { headers })).body?.cancel();
    // A first request with a large body, on a new connection: answered by the gate itself.
    const client = Deno.createHttpClient({ poolMaxIdlePerHost: 0 });
    try {
      const res = await fetch(url + "/upload", { method: "POST", headers, body: new Uint8Array(2 << 20), client });
      await res.body?.cancel();
    } finally {
      client.close();
    }
    assert.ok(gate.stats.handedOver >= 1, "the kept-alive connection was handed over");
  } finally {
    await gate.shutdown();
  }
  checkSeen(seenBy["/first"], true, "relayed");
  checkSeen(seenBy["/second"], true, "handed over");
  checkSeen(seenBy["/upload"], false, "answered by the gate");
  assert.equal(seenBy["/second"].cookie, "tok");
  assert.equal(seenBy["/upload"].cookie, "tok");
});
