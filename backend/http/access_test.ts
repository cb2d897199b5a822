// API tokens and the list of signed-in sessions.

import assert from "node:assert/strict";
import { ADMIN_PASSWORD, Client, withPanel } from "../../tests/support/harness.ts";
import { TokenClient, tokenClient, userWithRole } from "../../tests/support/roles.ts";
import { ACCESS_MSG, type ApiToken, type SessionEntry } from "../../shared/access.ts";
import { PANEL_MSG } from "../../shared/messages.ts";
import { TestSocket } from "../../tests/support/ws.ts";
import * as OTPAuth from "otpauth";

Deno.test(
  "a token is shown once, stored hashed, limited to its role, and names its use",
  withPanel(async (p) => {
    const admin = await p.login();
    const made = await admin.post("/api/user/tokens", {
      name: "backup script",
      role: "operator",
      expires_days: 7,
    });
    assert.equal(made.status, 200, made.text);
    const secret: string = made.body.token;
    assert.match(secret, /^fpt_[A-Za-z0-9_-]{43}$/);
    const stored = p.ctx.db.prepare("SELECT * FROM api_tokens").all();
    assert.ok(!JSON.stringify(stored).includes(secret), "the secret is not in the database");

    const listed = (await admin.get("/api/user/tokens")).body as ApiToken[];
    assert.equal(listed.length, 1);
    assert.equal(listed[0].name, "backup script");
    assert.equal(listed[0].role, "operator");
    assert.equal(listed[0].state, "active");
    assert.equal(listed[0].last_used_at, null);
    assert.ok(!JSON.stringify(listed).includes(secret), "listing never shows the secret again");

    const script = new TokenClient(p.url, secret);
    assert.equal((await script.get("/api/server/status")).status, 200);
    // An operator token of an admin cannot do admin things.
    const users = await script.get("/api/user/list");
    assert.deepEqual([users.status, users.body], [403, ACCESS_MSG.roleTooWeak("admin")]);
    const after = ((await admin.get("/api/user/tokens")).body as ApiToken[])[0];
    assert.ok(after.last_used_at !== null);
    assert.equal(after.last_used_address, "127.0.0.1");
    // What the script did is recorded under its user and token.
    await script.get("/api/server/kill");
    const [rec] = p.ctx.activity.query({ limit: 1 });
    assert.deepEqual([rec.username, rec.via, rec.action], [
      "admin",
      "token backup script",
      "GET /api/server/kill",
    ]);
  }),
);

Deno.test(
  "a token cannot be stronger than its user, nor outlive a demotion",
  withPanel(async (p) => {
    const admin = await p.login();
    const olga = await userWithRole(p, admin, "olga", "operator");
    const tooStrong = await olga.post("/api/user/tokens", { name: "x", role: "admin", expires_days: 1 });
    assert.deepEqual([tooStrong.status, tooStrong.body], [403, ACCESS_MSG.tokenRoleAboveUser]);
    for (
      const [body, message] of [
        [{ name: "", role: "viewer", expires_days: 1 }, ACCESS_MSG.tokenNameRequired],
        [{ name: "x", role: "root", expires_days: 1 }, ACCESS_MSG.roleUnknown("root")],
        [{ name: "x", role: "viewer", expires_days: 0 }, ACCESS_MSG.tokenExpiryRange(3650)],
        [{ name: "x", role: "viewer", expires_days: 1.5 }, ACCESS_MSG.tokenExpiryRange(3650)],
        [{ name: "x", role: "viewer" }, ACCESS_MSG.tokenExpiryRange(3650)],
      ] as const
    ) {
      const r = await olga.post("/api/user/tokens", body);
      assert.deepEqual([r.status, r.body], [400, message], JSON.stringify(body));
    }
    assert.equal((await olga.get("/api/user/tokens")).body.length, 0, "nothing was stored on refusal");
    const script = await tokenClient(p, olga, "operator");
    assert.notEqual((await script.get("/api/server/kill")).status, 403);
    await admin.post("/api/user/role", { username: "olga", role: "viewer" });
    const r = await script.get("/api/server/kill");
    assert.deepEqual([r.status, r.body], [403, ACCESS_MSG.roleTooWeak("operator")]);
  }),
);

Deno.test("tokens expire and can be revoked; a token cannot manage tokens or sessions", async () => {
  let now = Date.parse("2026-05-01T00:00:00Z");
  await withPanel(async (p) => {
    const admin = await p.login();
    const shortLived = await tokenClient(p, admin, "viewer", 1);
    const revoked = await tokenClient(p, admin, "viewer", 30);
    assert.equal((await shortLived.get("/api/server/status")).status, 200);
    const ids = ((await admin.get("/api/user/tokens")).body as ApiToken[]).map((t) => t.id);
    assert.equal((await admin.post(`/api/user/tokens/${ids[1]}/revoke`)).status, 200);
    let r = await revoked.get("/api/server/status");
    assert.deepEqual([r.status, r.body], [401, ACCESS_MSG.badToken]);
    now += 24 * 3600_000 + 1;
    r = await shortLived.get("/api/server/status");
    assert.deepEqual([r.status, r.body], [401, ACCESS_MSG.badToken]);
    const states = ((await admin.get("/api/user/tokens")).body as ApiToken[]).map((t) => t.state);
    assert.deepEqual(states, ["expired", "revoked"]);
    // Someone else's token id is not found, and revoking is for the owner.
    const olga = await userWithRole(p, admin, "olga", "operator");
    assert.equal((await olga.post(`/api/user/tokens/${ids[0]}/revoke`)).status, 404);
    assert.equal((await admin.post("/api/user/tokens/999/revoke")).status, 404);
    assert.equal((await admin.post("/api/user/tokens/abc/revoke")).status, 404);

    const live = await tokenClient(p, admin, "admin");
    for (
      const [method, path] of [["GET", "/api/user/tokens"], ["POST", "/api/user/tokens"], [
        "GET",
        "/api/user/sessions",
      ], ["POST", "/api/user/password"]]
    ) {
      const res = await live.request(method, path, {
        json: method === "POST" ? { name: "x", role: "viewer", expires_days: 1 } : undefined,
      });
      assert.deepEqual([res.status, res.body], [403, ACCESS_MSG.tokenNotAllowed], path);
    }
    r = await live.get("/api/user/status");
    assert.equal(r.body.username, "admin");
  }, { now: () => now })();
});

Deno.test(
  "a bearer token with a cookie is refused; bearer requests skip the cross-site rule but cookie sessions do not",
  withPanel(async (p) => {
    const admin = await p.login();
    const script = await tokenClient(p, admin, "admin");
    const mixed = await admin.get("/api/server/status", {
      headers: { Authorization: `Bearer ${script.token}` },
    });
    assert.deepEqual([mixed.status, mixed.body], [400, ACCESS_MSG.cookieAndToken]);
    const garbage = await p.client().get("/api/server/status", {
      headers: { Authorization: "Basic YWRtaW46YWRtaW4=" },
    });
    assert.deepEqual([garbage.status, garbage.body], [401, ACCESS_MSG.badToken]);
    const unknown = await p.client().get("/api/server/status", {
      headers: { Authorization: "Bearer fpt_nope" },
    });
    assert.deepEqual([unknown.status, unknown.body], [401, ACCESS_MSG.badToken]);

    // A script may send any Origin (or a browser fetch with an explicit header): the token is the proof.
    const add = {
      username: "scripted",
      role: "viewer",
      email: "s@e.org",
      password: "scripted-password",
      password_confirmation: "scripted-password",
    };
    const viaToken = await script.post("/api/user/add", add, { noOrigin: false, crossSite: true });
    assert.equal(viaToken.status, 200, viaToken.text);
    // The cookie session from another site is still refused.
    const viaCookie = await admin.post("/api/user/add", { ...add, username: "csrf" }, { crossSite: true });
    assert.deepEqual([viaCookie.status, viaCookie.body], [403, PANEL_MSG.crossSiteRefused]);
    assert.ok(
      !((await admin.get("/api/user/list")).body as { username: string }[]).some((u) =>
        u.username === "csrf"
      ),
    );
  }),
);

Deno.test(
  "your sessions: browser, address, last seen; revoke your own, admins revoke anyone's",
  withPanel(async (p) => {
    const phone = await p.login();
    const laptop = new Client(p.url, p.origin);
    await laptop.post("/api/login", { username: "admin", password: ADMIN_PASSWORD }, {
      headers: { "User-Agent": "Laptop Firefox" },
    });
    const admin = phone;
    const olga = await userWithRole(p, admin, "olga", "operator");
    const olgaTablet = await p.login("olga", "role-test-password");

    const mine = (await phone.get("/api/user/sessions")).body as SessionEntry[];
    assert.equal(mine.length, 2);
    assert.ok(mine.every((s) => s.username === "admin" && s.address === "127.0.0.1"));
    assert.equal(mine.filter((s) => s.current).length, 1);
    assert.ok(mine.some((s) => s.user_agent === "Laptop Firefox"));
    assert.ok(!JSON.stringify(mine).includes(phone.cookie!.split("=")[1]), "no session secret in the list");

    const laptopRow = mine.find((s) => s.user_agent === "Laptop Firefox")!;
    assert.equal((await phone.post(`/api/user/sessions/${laptopRow.id}/revoke`)).status, 200);
    assert.equal((await laptop.get("/api/user/status")).status, 401);

    // Olga cannot see or end the admin's sessions; the admin sees all with ?all=1 and ends hers.
    const olgaSees = (await olga.get("/api/user/sessions?all=1")).body as SessionEntry[];
    assert.ok(olgaSees.every((s) => s.username === "olga"));
    const phoneRow = ((await phone.get("/api/user/sessions")).body as SessionEntry[])[0];
    assert.equal((await olga.post(`/api/user/sessions/${phoneRow.id}/revoke`)).status, 404);
    const everyone = (await admin.get("/api/user/sessions?all=1")).body as SessionEntry[];
    const tabletRow = everyone.filter((s) => s.username === "olga");
    assert.equal(tabletRow.length, 2);
    for (const s of tabletRow) {
      assert.equal((await admin.post(`/api/user/sessions/${s.id}/revoke`)).status, 200);
    }
    assert.equal((await olgaTablet.get("/api/user/status")).status, 401);
    assert.equal((await olga.get("/api/user/status")).status, 401);

    // Revoking the current session signs this browser out.
    const current = ((await phone.get("/api/user/sessions")).body as SessionEntry[]).find((s) => s.current)!;
    const r = await phone.post(`/api/user/sessions/${current.id}/revoke`);
    assert.equal(r.status, 200);
    assert.equal(phone.cookie, undefined);
  }),
);

Deno.test(
  "a password change revokes the user's API tokens, and their sockets close",
  withPanel(async (p) => {
    const admin = await p.login();
    const vic = await userWithRole(p, admin, "vic", "viewer");
    const mine = await tokenClient(p, vic, "viewer");
    const others = await tokenClient(p, admin, "admin");
    assert.equal((await mine.get("/api/server/status")).status, 200);
    const socket = await TestSocket.connect(mine);
    try {
      const changed = await vic.post("/api/user/password", {
        old_password: "role-test-password",
        new_password: "vic's new password",
        new_password_confirmation: "vic's new password",
      });
      assert.equal(changed.status, 200, changed.text);
      const r = await mine.get("/api/server/status");
      assert.deepEqual(
        [r.status, r.body],
        [401, ACCESS_MSG.badToken],
        "a token made with the old password does not outlive it",
      );
      assert.deepEqual(((await vic.get("/api/user/tokens")).body as ApiToken[]).map((t) => t.state), [
        "revoked",
      ]);
      await socket.waitFor((s) => s.closed !== null, "the token's socket to close");
      assert.equal(socket.closed!.code, 4001);
      assert.equal((await others.get("/api/server/status")).status, 200, "other users' tokens are untouched");
    } finally {
      await socket.close();
    }
  }),
);

Deno.test(
  "admins list everyone's tokens with their owners and revoke any; others see and revoke their own only",
  withPanel(async (p) => {
    const admin = await p.login();
    const olga = await userWithRole(p, admin, "olga", "operator");
    const olgas = await tokenClient(p, olga, "operator");
    await tokenClient(p, admin, "viewer");
    const all = (await admin.get("/api/user/tokens?all=1")).body as ApiToken[];
    assert.deepEqual(all.map((t) => [t.username, t.name]), [["admin", "viewer script"], [
      "olga",
      "operator script",
    ]]);
    assert.deepEqual(((await admin.get("/api/user/tokens")).body as ApiToken[]).map((t) => t.username), [
      undefined,
    ], "without ?all=1, the admin's own");
    const asOlga = (await olga.get("/api/user/tokens?all=1")).body as ApiToken[];
    assert.deepEqual(asOlga.map((t) => t.name), ["operator script"], "?all=1 is for admins");
    const adminsId = all.find((t) => t.username === "admin")!.id;
    assert.equal((await olga.post(`/api/user/tokens/${adminsId}/revoke`)).status, 404);
    const olgasId = all.find((t) => t.username === "olga")!.id;
    assert.deepEqual(await admin.post(`/api/user/tokens/${olgasId}/revoke`).then((r) => [r.status, r.body]), [
      200,
      ACCESS_MSG.tokenRevoked,
    ]);
    assert.deepEqual(await olgas.get("/api/server/status").then((r) => [r.status, r.body]), [
      401,
      ACCESS_MSG.badToken,
    ]);
  }),
);

Deno.test(
  "GET /api/logout with a token says a token is not signed out, and changes nothing",
  withPanel(async (p) => {
    const admin = await p.login();
    const script = await tokenClient(p, admin, "viewer");
    const r = await script.get("/api/logout");
    assert.deepEqual([r.status, r.body], [400, ACCESS_MSG.tokenNotSignedOut]);
    assert.equal(
      (await script.get("/api/server/status")).status,
      200,
      "the token still works, as the answer says",
    );
    assert.deepEqual(((await admin.get("/api/user/tokens")).body as ApiToken[]).map((t) => t.state), [
      "active",
    ]);
  }),
);

Deno.test("--require-2fa-admins holds an admin's API tokens too while the admin has no second factor", async () => {
  const now = Date.parse("2026-06-01T10:00:00Z");
  await withPanel(async (p) => {
    // An admin who set up TOTP, made tokens, then turned it off: each token is held until a factor is back.
    const admin = await p.login();
    const setup = await admin.post("/api/user/2fa/totp/setup");
    const code = new OTPAuth.TOTP({
      secret: OTPAuth.Secret.fromBase32(setup.body.secret),
      digits: 6,
      period: 30,
    }).generate({ timestamp: now });
    assert.equal((await admin.post("/api/user/2fa/totp/confirm", { code })).status, 200);
    const strong = await tokenClient(p, admin, "admin");
    const weak = await tokenClient(p, admin, "viewer");
    assert.equal((await strong.get("/api/user/list")).status, 200);
    assert.equal((await admin.post("/api/user/2fa/totp/disable", { password: ADMIN_PASSWORD })).status, 200);
    for (
      const [script, paths] of [[strong, ["/api/user/list", "/api/server/status", "/api/activity"]], [weak, [
        "/api/server/status",
      ]]] as const
    ) {
      for (const path of paths) {
        const r = await script.get(path);
        assert.deepEqual([r.status, r.body], [403, ACCESS_MSG.enrolFirst], path);
      }
      assert.equal((await script.get("/api/user/status")).status, 200, "who it is may still be asked");
    }
    // An operator's token is not held.
    const olga = await userWithRole(p, admin, "olga", "operator").catch(() => null);
    assert.equal(olga, null, "the admin cannot even add users until a factor is back");
  }, { now: () => now, args: ["--require-2fa-admins"] })();
});
