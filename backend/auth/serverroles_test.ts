// Roles per server (issue 49): a viewer's or operator's role on each server, API tokens limited to
// servers, and the upgrade of a panel.db written before there were several servers. Until the servers
// registry exists only server 1 does; a role on another server is granted in the store, as the admin's
// POST /api/user/servers will once that server exists.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, startPanel, type TestPanel, withPanel } from "../../tests/support/harness.ts";
import { ROLE_PASSWORD, TokenClient, userWithRole } from "../../tests/support/roles.ts";
import { MIGRATIONS, openDb } from "../store/db.ts";
import { hashPassword } from "./password.ts";
import { hashToken } from "./accounts.ts";
import type { SessionInfo } from "./accounts.ts";
import { ACCESS_MSG } from "../../shared/access.ts";
import { SERVERS_MSG } from "../../shared/servers.ts";
import type { ActivityEntry } from "../../shared/access.ts";

/** The identity the panel resolves for a client's next request (cookie or bearer token). */
function sessionOf(p: TestPanel, c: Client): SessionInfo {
  const cookie = c.cookie?.split("=")[1];
  const bearer = c instanceof TokenClient ? `Bearer ${c.token}` : undefined;
  const r = p.ctx.access.resolve(bearer ? undefined : cookie, bearer, "127.0.0.1");
  assert.ok("session" in r && r.session, "the client is signed in");
  return r.session;
}

const roleOn = (p: TestPanel, c: Client, server: number) => p.ctx.access.roleOn(sessionOf(p, c), server);
const userId = (p: TestPanel, name: string) => p.ctx.accounts.users.byName(name)!.id;

async function makeToken(owner: Client, body: Record<string, unknown>) {
  return await owner.post("/api/user/tokens", { name: "script", expires_days: 30, ...body });
}

Deno.test(
  "an operator of server 1 only: operator there, nothing elsewhere; an admin has every server",
  withPanel(async (p) => {
    const admin = await p.login();
    const olga = await userWithRole(p, admin, "olga", "operator");
    assert.equal(roleOn(p, admin, 1), "admin");
    assert.equal(roleOn(p, admin, 2), "admin");
    assert.equal(p.ctx.access.serversOf(sessionOf(p, admin)), "all");
    assert.equal(roleOn(p, olga, 1), "operator");
    assert.equal(roleOn(p, olga, 2), null);
    assert.deepEqual(p.ctx.access.serversOf(sessionOf(p, olga)), [1]);

    // Viewer of server 2 (granted as POST /api/user/servers will once server 2 exists): her next request
    // knows it, the same session, nothing closed.
    p.ctx.accounts.users.setServerRole(userId(p, "olga"), 2, "viewer");
    assert.equal(roleOn(p, olga, 2), "viewer");
    assert.deepEqual(p.ctx.access.serversOf(sessionOf(p, olga)), [1, 2]);

    // Made a viewer of server 1 by the admin: her next request is a viewer's there (today's routes too).
    assert.equal((await olga.post("/api/mods/toggle", { name: "x" })).status !== 403, true);
    const r = await admin.post("/api/user/servers", { username: "olga", servers: { "1": "viewer" } });
    assert.deepEqual([r.status, r.body], [200, ACCESS_MSG.serverRolesChanged("olga")]);
    assert.equal(roleOn(p, olga, 1), "viewer");
    assert.deepEqual(
      [
        (await olga.post("/api/mods/toggle", { name: "x" })).status,
        (await olga.get("/api/user/status")).body.role,
      ],
      [403, "viewer"],
    );
    // Server 1 taken away: no role there; server 2 stays.
    assert.equal(
      (await admin.post("/api/user/servers", { username: "olga", servers: { "1": null } })).status,
      200,
    );
    assert.equal(roleOn(p, olga, 1), null);
    assert.deepEqual(p.ctx.access.serversOf(sessionOf(p, olga)), [2]);

    // An admin has every server and no rows; made an operator again, server 1 is theirs with that role.
    await admin.post("/api/user/role", { username: "olga", role: "admin" });
    assert.equal(roleOn(p, olga, 2), "admin");
    assert.equal(roleOn(p, olga, 9), "admin");
    await admin.post("/api/user/role", { username: "olga", role: "operator" });
    assert.equal(roleOn(p, olga, 1), "operator");
    assert.equal(roleOn(p, olga, 2), null);
  }),
);

Deno.test(
  "GET /api/user/list answers each viewer's and operator's servers; POST /api/user/servers sets them and refuses in words",
  withPanel(async (p) => {
    const admin = await p.login();
    await userWithRole(p, admin, "olga", "operator");
    await userWithRole(p, admin, "vic", "viewer");
    const list = async () => (await admin.get("/api/user/list")).body;
    const before = [
      { username: "admin", role: "admin", email: "" },
      { username: "olga", role: "operator", email: "olga@example.org", servers: { "1": "operator" } },
      { username: "vic", role: "viewer", email: "vic@example.org", servers: { "1": "viewer" } },
    ];
    assert.deepEqual(await list(), before);

    const refusals: [Record<string, unknown>, number, string][] = [
      [{ servers: { "1": "viewer" } }, 400, "Username is required"],
      [{ username: "ghost", servers: { "1": "viewer" } }, 404, "User ghost does not exist"],
      [{ username: "admin", servers: { "1": "viewer" } }, 400, ACCESS_MSG.serverRolesOfAdmin("admin")],
      [{ username: "vic" }, 400, ACCESS_MSG.serverRolesShape],
      [{ username: "vic", servers: ["viewer"] }, 400, ACCESS_MSG.serverRolesShape],
      [{ username: "vic", servers: { "one": "viewer" } }, 400, ACCESS_MSG.serverIdInvalid("one")],
      [{ username: "vic", servers: { "0": "viewer" } }, 400, ACCESS_MSG.serverIdInvalid("0")],
      [{ username: "vic", servers: { "1": "admin" } }, 400, ACCESS_MSG.serverRoleAdmin],
      [{ username: "vic", servers: { "1": "boss" } }, 400, ACCESS_MSG.roleUnknown("boss")],
      // Server 2 does not exist (yet): a clear refusal, and server 1's change in the same body is not made.
      [{ username: "vic", servers: { "1": "operator", "2": "viewer" } }, 400, SERVERS_MSG.noSuchServer(2)],
    ];
    for (const [body, status, message] of refusals) {
      const r = await admin.post("/api/user/servers", body);
      assert.deepEqual([r.status, r.body], [status, message], JSON.stringify(body));
    }
    assert.deepEqual(await list(), before);
    // Admins only.
    const vic = await p.login("vic", ROLE_PASSWORD);
    assert.equal(
      (await vic.post("/api/user/servers", { username: "vic", servers: { "1": "operator" } })).status,
      403,
    );

    // Server 1's role is the user's role, both ways.
    assert.equal(
      (await admin.post("/api/user/servers", { username: "vic", servers: { "1": "operator" } })).status,
      200,
    );
    assert.deepEqual((await list())[2], {
      username: "vic",
      role: "operator",
      email: "vic@example.org",
      servers: { "1": "operator" },
    });
    assert.equal((await admin.post("/api/user/role", { username: "vic", role: "viewer" })).status, 200);
    assert.deepEqual((await list())[2].servers, { "1": "viewer" });
    // Removing a role on a server that is not there (deleted) is fine.
    const none = await admin.post("/api/user/servers", {
      username: "vic",
      servers: { "1": null, "5": null },
    });
    assert.equal(none.status, 200);
    assert.deepEqual((await list())[2].servers, {});
    // Made an admin: every server, no list.
    await admin.post("/api/user/role", { username: "vic", role: "admin" });
    assert.equal((await list())[2].servers, undefined);

    const record = p.ctx.activity.query({ action: "/api/user/servers", limit: 1 })[0] as ActivityEntry;
    assert.equal(record.detail, "vic: server 1: no access, server 5: no access");
  }),
);

Deno.test(
  "POST /api/user/add: servers optional (default: the role on server 1); refused for an admin or an unknown server",
  withPanel(async (p) => {
    const admin = await p.login();
    const user = (username: string, more: Record<string, unknown>) => ({
      username,
      email: `${username}@example.org`,
      password: ROLE_PASSWORD,
      password_confirmation: ROLE_PASSWORD,
      ...more,
    });
    const refused: [Record<string, unknown>, string][] = [
      [user("a1", { role: "admin", servers: { "1": "viewer" } }), ACCESS_MSG.serverRolesOfAdmin("a1")],
      [user("a2", { role: "viewer", servers: { "2": "viewer" } }), SERVERS_MSG.noSuchServer(2)],
      [user("a3", { role: "viewer", servers: { "1": null } }), ACCESS_MSG.roleUnknown("")],
      [user("a4", { role: "viewer", servers: "all" }), ACCESS_MSG.serverRolesShape],
    ];
    for (const [body, message] of refused) {
      const r = await admin.post("/api/user/add", body);
      assert.deepEqual([r.status, r.body], [400, message]);
    }
    assert.equal((await admin.get("/api/user/list")).body.length, 1);

    assert.equal((await admin.post("/api/user/add", user("op", { role: "operator" }))).status, 200);
    assert.equal(
      (await admin.post("/api/user/add", user("view", { role: "operator", servers: { "1": "viewer" } })))
        .status,
      200,
    );
    assert.equal(
      (await admin.post("/api/user/add", user("nobody", { role: "viewer", servers: {} }))).status,
      200,
    );
    const list = (await admin.get("/api/user/list")).body;
    assert.deepEqual(
      list.map((u: { username: string; role: string; servers?: unknown }) => [u.username, u.role, u.servers]),
      [
        ["admin", "admin", undefined],
        ["nobody", "viewer", {}],
        ["op", "operator", { "1": "operator" }],
        ["view", "viewer", { "1": "viewer" }],
      ],
    );
    const nobody = await p.login("nobody", ROLE_PASSWORD);
    assert.equal(roleOn(p, nobody, 1), null);

    // A deleted user's rows go with them.
    const count = () =>
      (p.ctx.db.prepare("SELECT COUNT(*) AS n FROM server_roles WHERE user_id = ?").get(userId(p, "op")) as {
        n: number;
      }).n;
    assert.equal(count(), 1);
    const id = userId(p, "op");
    assert.equal((await admin.post("/api/user/remove", { username: "op" })).status, 200);
    assert.equal(
      (p.ctx.db.prepare("SELECT COUNT(*) AS n FROM server_roles WHERE user_id = ?").get(id) as { n: number })
        .n,
      0,
    );
  }),
);

Deno.test(
  "API tokens limited to servers: none outside the list, the token's role caps the user's, and refusals in words",
  withPanel(async (p) => {
    const admin = await p.login();
    const olga = await userWithRole(p, admin, "olga", "operator");
    // Olga is also a viewer of server 2 (see the top of this file).
    p.ctx.accounts.users.setServerRole(userId(p, "olga"), 2, "viewer");

    const limited = await makeToken(olga, { role: "operator", servers: [1] });
    assert.equal(limited.status, 200, limited.text);
    assert.deepEqual(limited.body.servers, [1]);
    const script = new TokenClient(p.url, limited.body.token);
    assert.equal(roleOn(p, script, 1), "operator");
    assert.equal(roleOn(p, script, 2), null);
    assert.deepEqual(p.ctx.access.serversOf(sessionOf(p, script)), [1]);
    assert.equal((await script.get("/api/server/status")).status, 200);

    // Unlimited: every server of its user, each capped by the token's role and by the user's.
    const all = await makeToken(olga, { role: "operator" });
    assert.equal(all.body.servers, null);
    const everywhere = new TokenClient(p.url, all.body.token);
    assert.equal(roleOn(p, everywhere, 1), "operator");
    assert.equal(roleOn(p, everywhere, 2), "viewer");
    assert.deepEqual(p.ctx.access.serversOf(sessionOf(p, everywhere)), [1, 2]);
    const reader = new TokenClient(p.url, (await makeToken(olga, { role: "viewer" })).body.token);
    assert.equal(roleOn(p, reader, 1), "viewer");

    // An admin's token limited to server 1: an admin there, nothing elsewhere.
    const adminToken = new TokenClient(p.url, (await makeToken(admin, { servers: [1, 1] })).body.token);
    assert.deepEqual(sessionOf(p, adminToken).token?.servers, [1]);
    assert.equal(roleOn(p, adminToken, 1), "admin");
    assert.equal(roleOn(p, adminToken, 3), null);
    assert.deepEqual(p.ctx.access.serversOf(sessionOf(p, adminToken)), [1]);
    const adminOperator = new TokenClient(p.url, (await makeToken(admin, { role: "operator" })).body.token);
    assert.equal(roleOn(p, adminOperator, 3), "operator");

    const listed = (await olga.get("/api/user/tokens")).body as { name: string; servers: number[] | null }[];
    assert.deepEqual(listed.map((t) => t.servers), [[1], null, null]);

    const refusals: [Record<string, unknown>, string][] = [
      [{ servers: "1" }, ACCESS_MSG.tokenServersShape],
      [{ servers: [1.5] }, ACCESS_MSG.tokenServersShape],
      [{ servers: [0] }, ACCESS_MSG.tokenServersShape],
      [{ servers: [] }, ACCESS_MSG.tokenServersEmpty],
      [{ servers: [2] }, SERVERS_MSG.noSuchServer(2)],
    ];
    for (const [body, message] of refusals) {
      const r = await makeToken(olga, body);
      assert.deepEqual([r.status, r.body], [400, message], JSON.stringify(body));
    }
    // No role on server 1: no token for it.
    await admin.post("/api/user/servers", { username: "olga", servers: { "1": null } });
    const r = await makeToken(olga, { servers: [1] });
    assert.deepEqual([r.status, r.body], [400, ACCESS_MSG.tokenServerNotYours(1)]);
    // And the token made for server 1 has no role there any more, on its next request.
    assert.equal(roleOn(p, script, 1), null);
    assert.equal((await olga.get("/api/user/tokens")).body.length, 3);

    // A deleted server leaves the tokens' lists and nobody keeps a role on it.
    p.ctx.access.forgetServer(1);
    assert.deepEqual(
      ((await olga.get("/api/user/tokens")).body as { servers: number[] | null }[]).map((t) => t.servers),
      [
        [],
        null,
        null,
      ],
    );
    assert.deepEqual(p.ctx.access.serversOf(sessionOf(p, olga)), [2]);
  }),
);

Deno.test("a panel.db written before several servers upgrades with nothing lost", async () => {
  // Today's schema: every migration before this issue's.
  const cut = MIGRATIONS.findIndex((m) => m.id === "049-server-roles");
  assert.ok(cut > 0);
  const dataDir = mkdtempSync(join(tmpdir(), "panel-upgrade-"));
  try {
    const old = openDb(join(dataDir, "panel.db"), MIGRATIONS.slice(0, cut));
    const now = Date.now();
    const hash = await hashPassword(ROLE_PASSWORD);
    const addUser = old.prepare(
      "INSERT INTO users (username, password_hash, role, email, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
    );
    for (
      const [name, role] of [["admin", "admin"], ["boss", "admin"], ["olga", "operator"], ["vic", "viewer"]]
    ) {
      addUser.run(name, hash, role, `${name}@example.org`, now, now);
    }
    const olgaId = (old.prepare("SELECT id FROM users WHERE username = 'olga'").get() as { id: number }).id;
    const secret = "fpt_" + "o".repeat(43);
    old.prepare(
      "INSERT INTO api_tokens (user_id, name, role, token_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(olgaId, "nightly", "operator", hashToken(secret), now, now + 86_400_000);
    old.prepare(
      "INSERT INTO activity (at, username, via, address, user_agent, action, detail, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ).run(now, "olga", "session", "10.0.0.5", "ua", "POST /api/server/start", "", 200);
    old.close();

    const p = await startPanel({ dataDir });
    try {
      const admin = await p.login("boss", ROLE_PASSWORD);
      assert.deepEqual(
        (await admin.get("/api/user/list")).body.map((
          u: { username: string; role: string; servers?: unknown },
        ) => [
          u.username,
          u.role,
          u.servers,
        ]),
        [
          ["admin", "admin", undefined],
          ["boss", "admin", undefined],
          ["olga", "operator", { "1": "operator" }],
          ["vic", "viewer", { "1": "viewer" }],
        ],
      );
      const olga = await p.login("olga", ROLE_PASSWORD);
      assert.equal(roleOn(p, olga, 1), "operator");
      const vic = await p.login("vic", ROLE_PASSWORD);
      assert.equal(roleOn(p, vic, 1), "viewer");
      // The token still works, on every server of its owner.
      const script = new TokenClient(p.url, secret);
      assert.equal((await script.get("/api/server/status")).status, 200);
      assert.equal(roleOn(p, script, 1), "operator");
      const tokens = (await olga.get("/api/user/tokens")).body;
      assert.deepEqual(tokens.map((t: { name: string; servers: unknown }) => [t.name, t.servers]), [[
        "nightly",
        null,
      ]]);
      // The old record is there, panel-wide (it was made before servers had ids).
      const old = (await admin.get("/api/activity?user=olga&action=server/start")).body as ActivityEntry[];
      assert.deepEqual(old.map((e) => [e.address, e.server]), [["10.0.0.5", null]]);
    } finally {
      await p.close({ keepData: true });
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
