// The route-by-role matrix: every route of the table (enumerated from the table itself, so a new route is
// walked without edits here) called by nobody, a viewer, an operator, an admin and an admin who must still
// set up a second factor (--require-2fa-admins), each with a browser session, and by an API token of each
// role (the last one an admin's who turned the second factor off). What each may do comes from the
// policy below, written out on its own rather than read from the routes' declarations: a route that
// forgets its guard (or declares a weaker one) answers where the policy says it must refuse, and fails.

import assert from "node:assert/strict";
import * as OTPAuth from "otpauth";
import { ADMIN_PASSWORD, Client, type TestPanel, withPanel } from "../../tests/support/harness.ts";
import { changesState, requiredRole, type Route } from "./routes.ts";
import { type Role, roleAtLeast, ROLES } from "../../shared/api.ts";
import { ACCESS_MSG } from "../../shared/access.ts";
import { PANEL_MSG } from "../../shared/messages.ts";
import { withGamePanel } from "../../tests/support/game.ts";
import { ROLE_PASSWORD, tokenClient, userWithRole } from "../../tests/support/roles.ts";

function concrete(r: Route): string {
  return r.path.replace(/:[a-zA-Z]+(\{[^}]*\})?/g, "x");
}

const name = (r: Route) => `${r.method} ${r.path}`;

/** Outside services point at a closed port: handlers that reach out fail fast instead of going online. */
const OFFLINE = [
  "--mod-portal-url",
  "http://127.0.0.1:9",
  "--auth-url",
  "http://127.0.0.1:9",
  "--factorio-com-url",
  "http://127.0.0.1:9",
];

// ---- The policy ----

/** The sign-in steps: nobody is signed in yet. (The local CA's /ca.crt is a public file, not a route of the table.) */
const PUBLIC = new Set([
  "POST /api/login",
  "POST /api/login/second-factor",
  "POST /api/login/passkey/options",
  "POST /api/login/passkey",
]);
/** The caller's own account: any role, in a browser (never a token), and open before enrolment (but making tokens). */
const OWN = /^(GET|POST) \/api\/user\/(password|2fa|tokens|sessions|passkeys)(\/|$)/;
/** Admins only: panel users, the activity log, alert channels, imports, HTTPS, exact UPS and the public status page. */
const ADMIN = [
  /^(GET|POST) \/api\/user\/(list|add|remove|role|servers)$/,
  /^GET \/api\/activity$/,
  / \/api\/notifications\//,
  / \/api\/import\//,
  / \/api\/https(\/|$)/,
  /^POST \/api\/health\/settings$/,
];
/** Any signed-in role: the own account, this device's alerts, who am I, sign out. */
const ANY_ROLE = [OWN, / \/api\/push\//, /^GET \/api\/(logout|user\/status)$/];
/** Browser-only besides the own account: running an import (it replaces the panel's users). */
const NOT_FOR_TOKENS = [OWN, /^POST \/api\/import\//];
/** The GETs that change something (operator, unless listed above): everything else a GET is is a read. */
const CHANGING_GETS = new Set([
  "GET /api/logout",
  "GET /api/server/stop",
  "GET /api/server/kill",
  "GET /api/saves/create/:name",
  "GET /api/saves/rm/:name",
  "GET /api/mods/portal/logout",
]);
/** What an admin who must still set up a second factor may do. */
const BEFORE_ENROLMENT = [OWN, /^GET \/api\/(logout|user\/status)$/];

const matches = (patterns: RegExp[], route: string) => patterns.some((p) => p.test(route));

function expectedRole(route: string): Role {
  if (matches(ADMIN, route)) return "admin";
  if (matches(ANY_ROLE, route)) return "viewer";
  return route.startsWith("GET ") && !CHANGING_GETS.has(route) ? "viewer" : "operator";
}

const beforeEnrolment = (route: string) =>
  matches(BEFORE_ENROLMENT, route) && route !== "POST /api/user/tokens";

/** What an identity should get: through the guards ("in": the handler's own answer), or refused with 401 or this 403. */
type Expected = { in: true } | { status: 401 | 403; body: string };

interface Identity {
  label: string;
  role: Role;
  via: "session" | "token" | "nobody";
  /** An admin held to setting up a second factor. */
  enrolling?: boolean;
}

function expected(who: Identity, route: string): Expected {
  if (who.via === "nobody") return { status: 401, body: PANEL_MSG.notSignedIn };
  if (who.via === "token" && matches(NOT_FOR_TOKENS, route)) {
    return { status: 403, body: ACCESS_MSG.tokenNotAllowed };
  }
  const need = expectedRole(route);
  if (!roleAtLeast(who.role, need)) return { status: 403, body: ACCESS_MSG.roleTooWeak(need) };
  if (who.enrolling && !beforeEnrolment(route)) return { status: 403, body: ACCESS_MSG.enrolFirst };
  return { in: true };
}

/** Whether the answer is an access refusal (as opposed to the handler's own answer, 2xx or 4xx). */
function refusedForAccess(status: number, body: unknown): boolean {
  if (status === 401 && body === PANEL_MSG.notSignedIn) return true;
  return status === 403 && typeof body === "string" &&
    (body.startsWith("This needs the ") || body === ACCESS_MSG.tokenNotAllowed ||
      body === ACCESS_MSG.enrolFirst ||
      body === PANEL_MSG.crossSiteRefused);
}

// ---- Signing in the identities ----

function codeOf(secret: string): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate();
}

/** Sets up TOTP for the signed-in client; answers the secret and its recovery codes. */
async function enrol(c: Client): Promise<{ secret: string; codes: string[] }> {
  const setup = await c.post("/api/user/2fa/totp/setup");
  assert.equal(setup.status, 200, setup.text);
  const ok = await c.post("/api/user/2fa/totp/confirm", { code: codeOf(setup.body.secret) });
  assert.equal(ok.status, 200, ok.text);
  return { secret: setup.body.secret, codes: ok.body.recovery_codes };
}

/** Both sign-in steps, the second with a recovery code (each works once, TOTP codes once per 30 s). */
async function signInWithCode(
  p: TestPanel,
  username: string,
  password: string,
  recovery: string,
): Promise<Client> {
  const c = p.client();
  const first = await fetch(p.url + "/api/login", {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: p.origin },
    body: JSON.stringify({ username, password }),
  });
  assert.equal((await first.json()).second_factor, true);
  const pending =
    first.headers.getSetCookie().find((l) => l.startsWith("authentication-2fa="))!.split(";")[0];
  const second = await c.post("/api/login/second-factor", { recovery_code: recovery }, {
    headers: { Cookie: pending },
  });
  assert.equal(second.status, 200, second.text);
  return c;
}

Deno.test(
  "the route x role matrix: every route of the table, for nobody, each role, an admin before enrolment and a token of each, as the policy says",
  withPanel(async (p) => {
    // --require-2fa-admins: the first admin sets up a second factor, then signs in with it.
    let admin = await p.login();
    const { codes } = await enrol(admin);
    admin = await signInWithCode(p, "admin", ADMIN_PASSWORD, codes.pop()!);
    const operator = await userWithRole(p, admin, "olga", "operator");
    const viewer = await userWithRole(p, admin, "vic", "viewer");
    // Ada, an admin, made a token while she had TOTP, then turned it off: her session and her token are
    // held to setting one up again.
    const ada = await userWithRole(p, admin, "ada", "admin");
    await enrol(ada);
    const adasToken = await tokenClient(p, ada, "admin");
    assert.equal((await ada.post("/api/user/2fa/totp/disable", { password: ROLE_PASSWORD })).status, 200);

    const sign: Record<string, () => Promise<Client>> = {
      admin: () => signInWithCode(p, "admin", ADMIN_PASSWORD, codes.pop()!),
      operator: () => p.login("olga", ROLE_PASSWORD),
      viewer: () => p.login("vic", ROLE_PASSWORD),
      enrolling: () => p.login("ada", ROLE_PASSWORD),
    };
    const clients: Record<string, Client> = {
      nobody: p.client(),
      admin,
      operator,
      viewer,
      enrolling: ada,
      "admin token": await tokenClient(p, admin, "admin"),
      "operator token": await tokenClient(p, operator, "operator"),
      "viewer token": await tokenClient(p, viewer, "viewer"),
      "enrolling admin's token": adasToken,
    };
    const identities: Identity[] = [
      { label: "nobody", role: "viewer", via: "nobody" },
      ...ROLES.map((role): Identity => ({ label: role, role, via: "session" })),
      { label: "enrolling", role: "admin", via: "session", enrolling: true },
      ...ROLES.map((role): Identity => ({ label: `${role} token`, role, via: "token" })),
      { label: "enrolling admin's token", role: "admin", via: "token", enrolling: true },
    ];

    // The GETs the table flags as changing state are the policy's: a new one is classified here first.
    assert.deepEqual(
      p.routes.filter((r) => r.method === "GET" && changesState(r)).map(name).sort(),
      [...CHANGING_GETS].sort(),
    );
    const routes = p.routes.filter((r) => !PUBLIC.has(name(r)));
    assert.deepEqual(
      p.routes.filter((r) => r.public).map(name).sort(),
      [...PUBLIC].sort(),
      "only the sign-in steps are public",
    );
    assert.ok(routes.length >= 120, `${routes.length} routes`);
    const wrong: string[] = [];
    for (const route of routes) {
      for (const who of identities) {
        const r = await clients[who.label].request(route.method, concrete(route), {
          json: route.method === "GET" ? undefined : {},
        });
        const want = expected(who, name(route));
        const got = refusedForAccess(r.status, r.body) ? `${r.status} ${r.body}` : "in";
        const wanted = "in" in want ? "in" : `${want.status} ${want.body}`;
        if (got !== wanted) wrong.push(`${name(route)} as ${who.label}: ${got}, the policy says ${wanted}`);
        // Some routes end the caller's session on purpose (sign-out): sign in again for the next one.
        if (who.via === "session" && (await clients[who.label].get("/api/user/status")).status === 401) {
          clients[who.label] = await sign[who.label]();
        }
      }
    }
    assert.deepEqual(wrong, []);
    // The declarations agree with the policy too (so the PWA, which reads them, hides what it should).
    for (const route of routes) assert.equal(requiredRole(route), expectedRole(name(route)), name(route));
  }, { args: [...OFFLINE, "--require-2fa-admins"] }),
);

Deno.test(
  "the role of each kind of route: users and the activity log are admin's, changes are operator's, reads viewer's",
  withPanel((p) => {
    const role = (n: string) => {
      const r = p.routes.find((x) => name(x) === n);
      assert.ok(r, n);
      return requiredRole(r);
    };
    for (
      const n of [
        "GET /api/user/list",
        "POST /api/user/add",
        "POST /api/user/remove",
        "POST /api/user/role",
        "GET /api/activity",
      ]
    ) {
      assert.equal(role(n), "admin", n);
    }
    for (
      const n of [
        "GET /api/server/stop",
        "GET /api/server/kill",
        "POST /api/server/start",
        "GET /api/saves/rm/:name",
        "POST /api/mods/upload",
        "POST /api/players/bans/add",
        "POST /api/settings/update",
      ]
    ) {
      assert.equal(role(n), "operator", n);
    }
    for (
      const n of [
        "GET /api/server/status",
        "GET /api/saves/list",
        "GET /api/mods/list",
        "GET /api/players",
        "GET /api/log/tail",
        "GET /api/settings",
      ]
    ) {
      assert.equal(role(n), "viewer", n);
    }
    // Everyone manages their own account: password, tokens, sessions, second factors, alert devices.
    for (
      const n of [
        "POST /api/user/password",
        "POST /api/user/tokens",
        "POST /api/user/sessions/:id/revoke",
        "POST /api/user/2fa/totp/setup",
        "POST /api/push/subscribe",
        "GET /api/logout",
      ]
    ) {
      assert.equal(role(n), "viewer", n);
    }
    return Promise.resolve();
  }),
);

Deno.test(
  "an operator may change the server settings but not its passwords and tokens",
  withGamePanel(async (p) => {
    const admin = await p.login();
    const op = await userWithRole(p, admin, "olga", "operator");
    const before = (await op.get("/api/settings")).body;
    assert.equal((await op.post("/api/settings/update", { name: "Renamed by operator" })).status, 200);
    const masked = await op.post("/api/settings/update", {
      name: "Again",
      game_password: before.game_password ?? "",
    });
    assert.equal(masked.status, 200, "sending a secret back unchanged is fine: " + masked.text);
    const r = await op.post("/api/settings/update", { name: "Nope", game_password: "hunter2" });
    assert.equal(r.status, 403);
    assert.equal(r.body, ACCESS_MSG.secretsNeedAdmin);
    assert.equal(
      (await op.get("/api/settings")).body.name,
      "Again",
      "nothing of the refused update was written",
    );
    assert.equal((await admin.post("/api/settings/update", { game_password: "hunter2" })).status, 200);
  }),
);

Deno.test(
  "roles: chosen when adding, changed by an admin, the last admin stays, and a change counts at once",
  withPanel(async (p) => {
    const admin = await p.login();
    const vic = await userWithRole(p, admin, "vic", "viewer");
    const list = (await admin.get("/api/user/list")).body as { username: string; role: Role }[];
    assert.deepEqual(list.map((u) => [u.username, u.role]), [["admin", "admin"], ["vic", "viewer"]]);
    assert.equal((await vic.get("/api/server/kill")).status, 403);
    assert.deepEqual(
      await admin.post("/api/user/role", { username: "vic", role: "operator" }).then((
        r,
      ) => [r.status, r.body]),
      [200, ACCESS_MSG.roleChanged("vic", "operator")],
    );
    // The same session, no new sign-in: the server reads the role on every request.
    assert.notEqual((await vic.get("/api/server/kill")).status, 403);
    assert.equal((await vic.post("/api/user/role", { username: "vic", role: "admin" })).status, 403);
    const bad = await admin.post("/api/user/role", { username: "vic", role: "root" });
    assert.equal(bad.status, 400);
    assert.equal(bad.body, ACCESS_MSG.roleUnknown("root"));
    assert.equal((await admin.post("/api/user/role", { username: "ghost", role: "viewer" })).status, 404);
    const last = await admin.post("/api/user/role", { username: "admin", role: "viewer" });
    assert.deepEqual([last.status, last.body], [409, ACCESS_MSG.lastAdmin("admin")]);
    // With a second admin, the first may step down.
    assert.equal((await admin.post("/api/user/role", { username: "vic", role: "admin" })).status, 200);
    assert.equal((await admin.post("/api/user/role", { username: "admin", role: "operator" })).status, 200);
    assert.equal((await admin.get("/api/user/list")).status, 403);
    assert.equal(
      (await vic.post("/api/user/remove", { username: "vic" })).status,
      409,
      "the last admin cannot delete themselves",
    );
  }),
);
