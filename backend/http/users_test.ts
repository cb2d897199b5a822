import assert from "node:assert/strict";
import { ADMIN_PASSWORD, withPanel } from "../../tests/support/harness.ts";
import { MSG, PANEL_MSG } from "../../shared/messages.ts";

const alice = {
  username: "alice",
  role: "admin",
  email: "alice@example.org",
  password: "alice password",
  password_confirmation: "alice password",
};

Deno.test(
  "the user list has username, role and email: never a hash",
  withPanel(async (p) => {
    const c = await p.login();
    assert.equal((await c.post("/api/user/add", alice)).status, 200);
    const r = await c.get("/api/user/list");
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, [
      { username: "admin", role: "admin", email: "" },
      { username: "alice", role: "admin", email: "alice@example.org" },
    ]);
    assert.ok(!/scrypt|password/i.test(r.text));
  }),
);

Deno.test(
  "adding a user: the spec's validation messages, and nothing is stored on refusal",
  withPanel(async (p) => {
    const c = await p.login();
    const cases: [Record<string, unknown>, number, string | RegExp][] = [
      [{ ...alice, username: "" }, 400, MSG.usernameRequired],
      [{ ...alice, username: "   " }, 400, MSG.usernameRequired],
      [{ ...alice, email: "" }, 400, MSG.emailRequired],
      [{ ...alice, password: "", password_confirmation: "" }, 400, MSG.passwordRequired],
      [{ ...alice, password_confirmation: "" }, 400, MSG.passwordConfirmationMismatch],
      [{ ...alice, password_confirmation: "different" }, 400, MSG.passwordConfirmationMismatch],
      [{ ...alice, role: "superuser" }, 400, /Roles are admin, operator and viewer/],
      [{ ...alice, password: "a", password_confirmation: "a" }, 400, PANEL_MSG.passwordTooShort],
      [
        { ...alice, password: "123456789", password_confirmation: "123456789" },
        400,
        PANEL_MSG.passwordTooShort,
      ],
      [{ ...alice, email: "not an address" }, 400, /valid email/],
      [{ ...alice, username: "al ice" }, 400, /without spaces/],
      [{ ...alice, username: "x".repeat(65) }, 400, /at most 64/],
      [{ ...alice, username: "admin" }, 409, "User admin already exists"],
      [{ ...alice, username: "ADMIN" }, 409, "User ADMIN already exists"],
    ];
    for (const [body, status, message] of cases) {
      const r = await c.post("/api/user/add", body);
      assert.equal(r.status, status, JSON.stringify(body));
      if (typeof message === "string") assert.equal(r.body, message);
      else assert.match(r.body, message);
    }
    assert.equal((await c.get("/api/user/list")).body.length, 1);
    const ok = await c.post("/api/user/add", alice);
    assert.deepEqual([ok.status, ok.body], [200, "User: alice successfully added."]);
    await p.login("alice", alice.password);
  }),
);

Deno.test(
  "a role left out defaults to admin (the old wire format)",
  withPanel(async (p) => {
    const c = await p.login();
    const { role: _role, ...noRole } = alice;
    assert.equal((await c.post("/api/user/add", noRole)).status, 200);
    assert.equal((await c.get("/api/user/list")).body[1].role, "admin");
  }),
);

Deno.test(
  "removing users: unknown is 404, the last admin is kept, removal revokes their sessions",
  withPanel(async (p) => {
    const c = await p.login();
    assert.deepEqual(
      await c.post("/api/user/remove", { username: "ghost" }).then((r) => [r.status, r.body]),
      [404, "User ghost does not exist"],
    );
    assert.deepEqual(await c.post("/api/user/remove", {}).then((r) => [r.status, r.body]), [
      400,
      MSG.usernameRequired,
    ]);
    const last = await c.post("/api/user/remove", { username: "admin" });
    assert.equal(last.status, 409);
    assert.match(last.body, /last admin/);

    await c.post("/api/user/add", alice);
    const aliceClient = await p.login("alice", alice.password);
    const r = await c.post("/api/user/remove", { username: "alice" });
    assert.deepEqual([r.status, r.body], [200, "User: alice successfully removed."]);
    assert.equal((await aliceClient.get("/api/user/status")).status, 401, "alice's session died with her");
    assert.equal((await c.get("/api/user/list")).body.length, 1);
  }),
);

Deno.test(
  "removing yourself is refused, even when another admin is left",
  withPanel(async (p) => {
    const admin = await p.login();
    await admin.post("/api/user/add", alice);
    const me = await p.login("alice", alice.password);
    for (const name of ["alice", "ALICE"]) {
      const r = await me.post("/api/user/remove", { username: name });
      assert.deepEqual([r.status, r.body], [409, PANEL_MSG.cannotDeleteSelf]);
    }
    assert.equal((await me.get("/api/user/status")).status, 200, "still signed in");
    assert.equal((await admin.get("/api/user/list")).body.length, 2);
    // Another admin can.
    assert.equal((await admin.post("/api/user/remove", { username: "alice" })).status, 200);
  }),
);

Deno.test(
  "changing the password: required fields, matching confirmation, correct old password",
  withPanel(async (p) => {
    const c = await p.login();
    const good = {
      old_password: ADMIN_PASSWORD,
      new_password: "brand new one",
      new_password_confirmation: "brand new one",
    };
    const cases: [Record<string, unknown>, string][] = [
      [{ ...good, old_password: "" }, MSG.oldPasswordRequired],
      [{ ...good, new_password: "" }, MSG.newPasswordRequired],
      [{ ...good, new_password_confirmation: "" }, MSG.newPasswordConfirmationRequired],
      [
        { ...good, new_password_confirmation: "brand old" },
        "New Password Confirmation must match the New Password",
      ],
      [{ ...good, old_password: "wrong" }, "Old Password is wrong"],
      [
        { ...good, new_password: "too short", new_password_confirmation: "too short" },
        PANEL_MSG.passwordTooShort,
      ],
    ];
    for (const [body, message] of cases) {
      const r = await c.post("/api/user/password", body);
      assert.deepEqual([r.status, r.body], [400, message], JSON.stringify(body));
    }
    // Nothing changed: the old password still works.
    await p.login("admin", ADMIN_PASSWORD);
    assert.equal((await c.post("/api/user/password", good)).status, 200);
    await p.login("admin", "brand new one");
  }),
);
