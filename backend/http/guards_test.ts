// The guards that hold for every route, checked against the route table itself: a route added later is
// covered without anyone remembering to add it here.

import assert from "node:assert/strict";
import { startPanel, withPanel } from "../../tests/support/harness.ts";
import { changesState, type Route } from "./routes.ts";
import { PANEL_MSG } from "../../shared/messages.ts";

/** A concrete path for a route pattern (":name" parameters get a harmless value). */
function concrete(r: Route): string {
  return r.path.replace(/:[a-zA-Z]+(\{[^}]*\})?/g, "x");
}

/** The sign-in steps: the password, then a second factor, or a passkey alone. */
const PUBLIC_ROUTES = [
  "POST /api/login",
  "POST /api/login/second-factor",
  "POST /api/login/passkey/options",
  "POST /api/login/passkey",
];

const FOUNDATION_ROUTES = [
  "POST /api/login",
  "GET /api/logout",
  "GET /api/user/status",
  "GET /api/user/list",
  "POST /api/user/add",
  "POST /api/user/remove",
  "POST /api/user/password",
];

Deno.test(
  "the route table holds the API of the spec",
  withPanel(async (p) => {
    const table = p.routes.map((r) => `${r.method} ${r.path}`);
    for (const r of FOUNDATION_ROUTES) assert.ok(table.includes(r), r);
    assert.equal(new Set(table).size, table.length, "no route twice");
  }),
);

Deno.test(
  "every /api route except the sign-in steps answers 401 without a session",
  withPanel(async (p) => {
    const c = p.client();
    const checked: string[] = [];
    for (const r of p.routes) {
      const res = await c.request(r.method, concrete(r), { json: r.method === "GET" ? undefined : {} });
      if (r.public) {
        assert.ok(
          PUBLIC_ROUTES.includes(`${r.method} ${r.path}`),
          `only the sign-in steps are public: ${r.path}`,
        );
        continue;
      }
      assert.equal(res.status, 401, `${r.method} ${r.path}`);
      assert.equal(res.body, PANEL_MSG.notSignedIn);
      checked.push(r.path);
    }
    assert.ok(checked.length >= FOUNDATION_ROUTES.length - 1);
    // Paths that are not routes are no way around it either.
    assert.equal((await c.get("/api/does/not/exist")).status, 401);
    assert.equal((await c.request("DELETE", "/api/user/list")).status, 401);
  }),
);

Deno.test(
  "state-changing requests from another site are refused with 403, and change nothing",
  withPanel(async (p) => {
    const c = await p.login();
    const stateChanging = p.routes.filter(changesState);
    for (
      const name of ["GET /api/logout", "POST /api/user/add", "POST /api/user/remove", "POST /api/login"]
    ) {
      assert.ok(stateChanging.some((r) => `${r.method} ${r.path}` === name), name);
    }
    for (const r of stateChanging) {
      const viaOrigin = await c.request(r.method, concrete(r), {
        json: r.method === "GET" ? undefined : {},
        crossSite: true,
      });
      assert.equal(viaOrigin.status, 403, `${r.method} ${r.path} with a foreign Origin`);
      assert.equal(viaOrigin.body, PANEL_MSG.crossSiteRefused);
      const viaFetchMeta = await c.request(r.method, concrete(r), {
        json: r.method === "GET" ? undefined : {},
        noOrigin: true,
        headers: { "Sec-Fetch-Site": "cross-site" },
      });
      assert.equal(viaFetchMeta.status, 403, `${r.method} ${r.path} with Sec-Fetch-Site: cross-site`);
    }
    // The session survived all of that, including the cross-site logout.
    assert.equal((await c.get("/api/user/status")).status, 200);
    assert.equal((await c.get("/api/user/list")).body.length, 1);
    // Same-site subdomains and opaque origins are other sites too.
    for (
      const headers of [{ "Sec-Fetch-Site": "same-site" }, { Origin: "null" }] as Record<string, string>[]
    ) {
      const r = await c.request("GET", "/api/logout", { noOrigin: true, headers });
      assert.equal(r.status, 403, JSON.stringify(headers));
    }
  }),
);

Deno.test(
  "reads are allowed cross-site only as far as the browser allows: GETs without side effects pass",
  withPanel(async (p) => {
    const c = await p.login();
    assert.equal((await c.get("/api/user/status", { crossSite: true })).status, 200);
  }),
);

Deno.test(
  "same-origin pages and non-browser clients may change state",
  withPanel(async (p) => {
    const c = await p.login();
    const alice = {
      username: "a1",
      role: "admin",
      email: "a@b.c",
      password: "p".repeat(10),
      password_confirmation: "p".repeat(10),
    };
    assert.equal((await c.post("/api/user/add", alice)).status, 200);
    assert.equal(
      (await c.post("/api/user/add", { ...alice, username: "a2" }, { noOrigin: true })).status,
      200,
    );
    assert.equal(
      (await c.post("/api/user/add", { ...alice, username: "a3" }, {
        noOrigin: true,
        headers: { "Sec-Fetch-Site": "same-origin" },
      })).status,
      200,
    );
  }),
);

Deno.test(
  "--allowed-origins lets a reverse proxy's public origin through",
  withPanel(async (p) => {
    const c = await p.login();
    const r = await c.request("GET", "/api/logout", {
      noOrigin: true,
      headers: { Origin: "https://panel.example.org" },
    });
    assert.equal(r.status, 200);
  }, { args: ["--allowed-origins", "https://Panel.example.org/"] }),
);

Deno.test(
  "/ws refuses upgrades without a session or from another site",
  withPanel(async (p) => {
    const noSession = await fetch(p.url + "/ws", { headers: { Upgrade: "websocket", Origin: p.origin } });
    assert.equal(noSession.status, 401);
    await noSession.body?.cancel();
    const c = await p.login();
    const foreign = await fetch(p.url + "/ws", {
      headers: { Upgrade: "websocket", Origin: "https://evil.example", Cookie: c.cookie! },
    });
    assert.equal(foreign.status, 403);
    await foreign.body?.cancel();
  }),
);

Deno.test(
  "API answers are not cached and not sniffed; errors and documents say they are the panel's",
  withPanel(async (p) => {
    const c = await p.login();
    const r = await c.get("/api/user/status");
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("Cache-Control"), "no-store");
    assert.equal(r.headers.get("X-Content-Type-Options"), "nosniff");
    // The kept JSON texts (routes.ts, jsonText) get the same headers.
    for (const path of ["/api/server/status", "/api/saves/list", "/api/mods/list", "/api/backups"]) {
      const kept = await c.get(path);
      assert.equal(kept.status, 200, path);
      assert.equal(kept.headers.get("Content-Type"), "application/json", path);
      assert.equal(kept.headers.get("Cache-Control"), "no-store", path);
      assert.equal(kept.headers.get("X-Content-Type-Options"), "nosniff", path);
      assert.equal(kept.headers.get("X-Factorio-Panel"), null, path);
    }
    const missing = await c.get("/api/nope");
    assert.equal(missing.status, 404);
    assert.equal(missing.body, "No such API route: GET /api/nope");
    assert.equal(missing.headers.get("Cache-Control"), "no-store");
    assert.equal(missing.headers.get("X-Factorio-Panel"), "1", "an error answer is told from a proxy's");
    const signedOut = await fetch(p.url + "/api/server/status");
    assert.equal(signedOut.status, 401);
    assert.equal(signedOut.headers.get("X-Factorio-Panel"), "1");
    await signedOut.body?.cancel();
    const page = await fetch(p.url + "/login");
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("X-Frame-Options"), "DENY");
    assert.equal(page.headers.get("Referrer-Policy"), "same-origin");
    assert.equal(page.headers.get("X-Content-Type-Options"), "nosniff");
    assert.equal(page.headers.get("X-Factorio-Panel"), "1");
    await page.body?.cancel();
    // HEAD gets GET's headers and no body, for the pages and the API alike; a POST to a page is a 404.
    const pageHead = await fetch(p.url + "/login", { method: "HEAD" });
    assert.equal(pageHead.status, 200);
    assert.equal(pageHead.headers.get("X-Frame-Options"), "DENY");
    assert.equal(await pageHead.text(), "");
    const apiHead = await fetch(p.url + "/api/server/status", {
      method: "HEAD",
      headers: { Cookie: c.cookie ?? "" },
    });
    assert.equal(apiHead.status, 200);
    assert.equal(apiHead.headers.get("Cache-Control"), "no-store");
    assert.equal(await apiHead.text(), "");
    const postPage = await fetch(p.url + "/login", { method: "POST", headers: { Origin: p.url } });
    assert.equal(postPage.status, 404);
    assert.equal(postPage.headers.get("X-Frame-Options"), "DENY");
    await postPage.body?.cancel();
  }),
);

/** One raw request with the given Host header; the status line's code. */
async function statusForHost(url: string, host: string, path = "/api/user/status"): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(url).port) });
  try {
    await conn.write(
      new TextEncoder().encode(`GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`),
    );
    let text = "";
    const buf = new Uint8Array(4096);
    for (let n = await conn.read(buf); n !== null; n = await conn.read(buf)) {
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
    return Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]);
  } finally {
    conn.close();
  }
}

Deno.test("Host names the panel does not have are refused (DNS rebinding); its own names and IPs pass", async () => {
  const p = await startPanel({ args: ["--allowed-origins", "https://panel.example.org"] });
  try {
    const port = new URL(p.url).port;
    for (
      const host of [
        "attacker.example",
        `attacker.example:${port}`,
        "rebind.127.0.0.1.nip.io",
        "panel.example.org.evil.net",
      ]
    ) {
      assert.equal(await statusForHost(p.url, host), 421, host);
    }
    for (
      const host of [
        `127.0.0.1:${port}`,
        `localhost:${port}`,
        "LOCALHOST",
        `[::1]:${port}`,
        "192.168.1.20",
        "app.localhost",
        `${Deno.hostname()}:${port}`,
        "panel.example.org",
      ]
    ) {
      assert.equal(await statusForHost(p.url, host), 401, host);
    }
    // A name refused right after one let through is still refused.
    assert.equal(await statusForHost(p.url, `127.0.0.1:${port}`), 401);
    assert.equal(
      await statusForHost(p.url, `attacker.example:${port}`),
      421,
      "refused right after an accepted name",
    );
    assert.equal(
      await statusForHost(p.url, "attacker.example", "/"),
      421,
      "the web app is not served to that name either",
    );
    assert.equal(await statusForHost(p.url, "attacker.example", "/ws"), 421);
  } finally {
    await p.close();
  }
  // The HTTPS names pass too: a wildcard covers one level under it. No CA answers here (a closed port), so
  // the panel serves plain HTTP while it has no certificate, which is enough for the host check.
  const https = await startPanel({
    args: [
      "--https-domain",
      "panel.example.org,*.games.example.org",
      "--acme-challenge",
      "dns-01",
      "--acme-dns-provider",
      "cloudflare",
      "--acme-directory-url",
      "http://127.0.0.1:9/directory",
      "--acme-http-port",
      "0",
    ],
  });
  try {
    for (const host of ["panel.example.org", "factorio.games.example.org:8443"]) {
      assert.equal(await statusForHost(https.url, host), 401, host);
    }
    for (const host of ["games.example.org", "a.b.games.example.org", "example.org"]) {
      assert.equal(await statusForHost(https.url, host), 421, host);
    }
  } finally {
    await https.close();
  }
  // Behind a trusted proxy the proxy decides which names reach the panel.
  const proxied = await startPanel({ args: ["--trust-proxy"] });
  try {
    assert.equal(await statusForHost(proxied.url, "panel.example.net"), 401);
  } finally {
    await proxied.close();
  }
});
