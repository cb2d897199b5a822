// The route-by-role matrix: every route of the table, called by a viewer, an operator and an admin (each
// with a browser session and with an API token of that role), is refused with 403 exactly when the
// route's declared role is above the caller's. Routes added later are walked without edits here.

import assert from "node:assert/strict";
import { type Client, withPanel } from "../testing/harness.ts";
import { requiredRole, type Route } from "./routes.ts";
import { type Role, roleAtLeast, ROLES } from "../../shared/api.ts";
import { ACCESS_MSG } from "../../shared/access.ts";
import { PANEL_MSG } from "../../shared/messages.ts";
import { withGamePanel } from "../testing/game.ts";
import { tokenClient, userWithRole } from "../testing/roles.ts";

function concrete(r: Route): string {
  return r.path.replace(/:[a-zA-Z]+(\{[^}]*\})?/g, "x");
}

const name = (r: Route) => `${r.method} ${r.path}`;

/** Outside services point at a closed port: handlers that reach out fail fast instead of going online. */
const OFFLINE = ["--mod-portal-url", "http://127.0.0.1:9", "--auth-url", "http://127.0.0.1:9"];

/** Whether the answer is an access refusal (as opposed to the handler's own answer, 2xx or 4xx). */
function refusedForAccess(status: number, body: unknown): boolean {
  if (status === 401) return true;
  return status === 403 && typeof body === "string" &&
    (body.startsWith("This needs the ") || body === ACCESS_MSG.tokenNotAllowed || body === PANEL_MSG.crossSiteRefused);
}

Deno.test("every route answers each role as its declared role says, with a session and with a token", withPanel(async (p) => {
  const admin = await p.login();
  const sessions: Record<Role, Client> = {
    admin,
    operator: await userWithRole(p, admin, "olga", "operator"),
    viewer: await userWithRole(p, admin, "vic", "viewer"),
  };
  const tokens: Record<Role, Client> = {
    admin: await tokenClient(p, admin, "admin"),
    operator: await tokenClient(p, sessions.operator, "operator"),
    viewer: await tokenClient(p, sessions.viewer, "viewer"),
  };
  let checked = 0;
  for (const route of p.routes.filter((r) => !r.public)) {
    const need = requiredRole(route);
    for (const role of ROLES) {
      for (const via of ["session", "token"] as const) {
        const client = via === "session" ? sessions[role] : tokens[role];
        const r = await client.request(route.method, concrete(route), { json: route.method === "GET" ? undefined : {} });
        const what = `${name(route)} as ${role} (${via}): ${r.status} ${r.text.slice(0, 120)}`;
        if (via === "token" && route.interactive) {
          assert.equal(r.status, 403, what);
          assert.equal(r.body, ACCESS_MSG.tokenNotAllowed, what);
        } else if (!roleAtLeast(role, need)) {
          assert.equal(r.status, 403, what);
          assert.equal(r.body, ACCESS_MSG.roleTooWeak(need), what);
        } else {
          assert.ok(!refusedForAccess(r.status, r.body), what);
        }
        checked++;
        // Some routes end the caller's session on purpose (sign-out): sign in again for the next one.
        if (via === "session" && (await client.get("/api/user/status")).status === 401) {
          sessions[role] = await p.login(role === "admin" ? "admin" : role === "operator" ? "olga" : "vic",
            role === "admin" ? undefined : "role-test-password");
        }
      }
    }
  }
  assert.ok(checked >= 6 * 40, `walked ${checked} calls`);
}, { args: OFFLINE }));

Deno.test("the role of each kind of route: users and the activity log are admin's, changes are operator's, reads viewer's", withPanel((p) => {
  const role = (n: string) => {
    const r = p.routes.find((x) => name(x) === n);
    assert.ok(r, n);
    return requiredRole(r);
  };
  for (const n of ["GET /api/user/list", "POST /api/user/add", "POST /api/user/remove", "POST /api/user/role", "GET /api/activity"]) {
    assert.equal(role(n), "admin", n);
  }
  for (const n of ["GET /api/server/stop", "GET /api/server/kill", "POST /api/server/start", "GET /api/saves/rm/:name", "POST /api/mods/upload", "POST /api/players/bans/add", "POST /api/settings/update"]) {
    assert.equal(role(n), "operator", n);
  }
  for (const n of ["GET /api/server/status", "GET /api/saves/list", "GET /api/mods/list", "GET /api/players", "GET /api/log/tail", "GET /api/settings"]) {
    assert.equal(role(n), "viewer", n);
  }
  // Everyone manages their own account: password, tokens, sessions, second factors, alert devices.
  for (const n of ["POST /api/user/password", "POST /api/user/tokens", "POST /api/user/sessions/:id/revoke", "POST /api/user/2fa/totp/setup", "POST /api/push/subscribe", "GET /api/logout"]) {
    assert.equal(role(n), "viewer", n);
  }
  return Promise.resolve();
}));

Deno.test("an operator may change the server settings but not its passwords and tokens", withGamePanel(async (p) => {
  const admin = await p.login();
  const op = await userWithRole(p, admin, "olga", "operator");
  const before = (await op.get("/api/settings")).body;
  assert.equal((await op.post("/api/settings/update", { name: "Renamed by operator" })).status, 200);
  const masked = (await op.post("/api/settings/update", { name: "Again", game_password: before.game_password ?? "" }));
  assert.equal(masked.status, 200, "sending a secret back unchanged is fine: " + masked.text);
  const r = await op.post("/api/settings/update", { name: "Nope", game_password: "hunter2" });
  assert.equal(r.status, 403);
  assert.equal(r.body, ACCESS_MSG.secretsNeedAdmin);
  assert.equal((await op.get("/api/settings")).body.name, "Again", "nothing of the refused update was written");
  assert.equal((await admin.post("/api/settings/update", { game_password: "hunter2" })).status, 200);
}));

Deno.test("roles: chosen when adding, changed by an admin, the last admin stays, and a change counts at once", withPanel(async (p) => {
  const admin = await p.login();
  const vic = await userWithRole(p, admin, "vic", "viewer");
  const list = (await admin.get("/api/user/list")).body as { username: string; role: Role }[];
  assert.deepEqual(list.map((u) => [u.username, u.role]), [["admin", "admin"], ["vic", "viewer"]]);
  assert.equal((await vic.get("/api/server/kill")).status, 403);
  assert.deepEqual(
    await admin.post("/api/user/role", { username: "vic", role: "operator" }).then((r) => [r.status, r.body]),
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
  assert.equal((await vic.post("/api/user/remove", { username: "vic" })).status, 409, "the last admin cannot delete themselves");
}));
