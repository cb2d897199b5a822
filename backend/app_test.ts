// The areas app.ts loads on first use: the request that loads them is answered like any other, with the
// same guards, headers and errors, and requests that arrive while they load wait for them. The reads
// app.ts answers without Hono answer as Hono would.

import assert from "node:assert/strict";
import { Client, withPanel } from "./testing/harness.ts";
import { TokenClient, tokenClient, userWithRole } from "./testing/roles.ts";
import { createApp } from "./app.ts";
import { PANEL_MSG } from "../shared/messages.ts";

Deno.test("a lazily loaded area answers its first requests with the usual guards", withPanel(async (p) => {
  // The harness's app has loaded every area already; a second app on the same context has not.
  const { app } = createApp(p.ctx);
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req, info) => app.fetch(req, info));
  try {
    const url = `http://127.0.0.1:${server.addr.port}`;
    const signedIn = await p.login();
    const c = new Client(url, url);
    c.cookie = signedIn.cookie;
    const stranger = new Client(url, url);
    // All at once, before anything is loaded: each waits for the areas and gets its own answer.
    const [list, unknown, anonymous, crossSite] = await Promise.all([
      c.get("/api/saves/list"),
      c.get("/api/saves/nothing-here"),
      stranger.get("/api/backups"),
      c.request("POST", "/api/push/test", { json: {}, crossSite: true }),
    ]);
    assert.equal(list.status, 200);
    assert.ok(Array.isArray(list.body));
    assert.equal(list.headers.get("Cache-Control"), "no-store");
    assert.equal(list.headers.get("X-Content-Type-Options"), "nosniff");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers.get("X-Factorio-Panel"), "1", "an error answer says it is the panel's");
    assert.equal(unknown.body, "No such API route: GET /api/saves/nothing-here");
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.body, PANEL_MSG.notSignedIn);
    assert.equal(crossSite.status, 403);
    assert.equal(crossSite.body, PANEL_MSG.crossSiteRefused);
    assert.equal(crossSite.headers.get("X-Factorio-Panel"), "1");
    // A typed error from a lazy area's handler goes through the same error handler.
    const bad = await c.request("POST", "/api/mods/settings/update", { json: [] });
    assert.equal(bad.status, 400);
    assert.equal(typeof bad.body, "string");
  } finally {
    await server.shutdown();
  }
}));

Deno.test("the reads answered without Hono (status, kept lists) answer as through Hono, to everyone", withPanel(async (p) => {
  const admin = await p.login();
  const callers: [string, Client][] = [
    ["admin", admin],
    ["viewer", await userWithRole(p, admin, "vera", "viewer")],
    ["token", await tokenClient(p, admin, "viewer")],
    ["nobody", p.client()],
    ["unknown token", new TokenClient(p.url, "fpt_nope")],
    ["malformed token", new TokenClient(p.url, "")],
  ];
  const both = new Client(p.url, p.url);
  both.cookie = admin.cookie;
  callers.push(["cookie and token", both]);
  // Hono decodes a percent-encoded path and finds the same route; app.ts leaves such paths to Hono, so
  // the one path answered both ways shows any difference.
  for (const [area, name] of [["/api/server/", "status"], ["/api/saves/", "list"], ["/api/mods/", "list"], ["/api/", "backups"]]) {
    const viaHono = `${area}%${name.charCodeAt(0).toString(16)}${name.slice(1)}`;
    for (const [who, c] of callers) {
      const headers = who === "cookie and token" ? { Authorization: "Bearer fpt_nope" } : undefined;
      const direct = await c.get(area + name, { headers });
      const hono = await c.get(viaHono, { headers });
      const withQuery = await c.get(`${area}${name}?t=1`, { headers });
      for (const r of [hono, withQuery]) {
        assert.equal(r.status, direct.status, `${who}, ${area}${name}`);
        assert.deepEqual(r.body, direct.body, `${who}, ${area}${name}`);
        const kept = (h: Headers) => [...h].filter(([k]) => k !== "date");
        assert.deepEqual(kept(r.headers), kept(direct.headers), `${who}, ${area}${name}`);
      }
      const expected = ["admin", "viewer", "token"].includes(who) ? 200 : who === "cookie and token" ? 400 : 401;
      assert.equal(direct.status, expected, `${who}, ${area}${name}: ${direct.text}`);
    }
  }
}));
