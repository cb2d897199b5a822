// Accounts.session() keeps the sessions it looked up while nothing was written to the database. These
// check that every way a session ends is seen by the very next request, even right after a cached answer.

import assert from "node:assert/strict";
import { withPanel } from "../../tests/support/harness.ts";

const bob = {
  username: "bob",
  role: "admin",
  email: "bob@example.org",
  password: "bob password!",
  password_confirmation: "bob password!",
};

Deno.test(
  "a cached session ends at once: logout, removal, password change, another session's write",
  withPanel(async (p) => {
    const admin = await p.login();
    assert.equal((await admin.post("/api/user/add", bob)).status, 200);

    // Logout.
    const b1 = await p.login("bob", bob.password);
    for (let i = 0; i < 3; i++) assert.equal((await b1.get("/api/user/status")).status, 200, "cached");
    const cookie = b1.cookie;
    assert.equal((await b1.get("/api/logout")).status, 200);
    b1.cookie = cookie; // the same token again, as a stolen cookie would be
    assert.equal((await b1.get("/api/user/status")).status, 401, "a logged-out token is refused at once");

    // Password change ends the other sessions.
    const b2 = await p.login("bob", bob.password);
    const b3 = await p.login("bob", bob.password);
    assert.equal((await b2.get("/api/user/status")).status, 200);
    assert.equal((await b3.get("/api/user/status")).status, 200);
    const changed = await b3.post("/api/user/password", {
      old_password: bob.password,
      new_password: "a new password!",
      new_password_confirmation: "a new password!",
    });
    assert.equal(changed.status, 200, changed.text);
    assert.equal(
      (await b2.get("/api/user/status")).status,
      401,
      "another session of the user is refused at once",
    );

    // Removal of the user.
    const b4 = await p.login("bob", "a new password!");
    assert.equal((await b4.get("/api/user/status")).status, 200);
    assert.equal((await admin.post("/api/user/remove", { username: "bob" })).status, 200);
    assert.equal(
      (await b4.get("/api/user/status")).status,
      401,
      "a removed user's session is refused at once",
    );
    assert.equal((await admin.get("/api/user/status")).status, 200, "the others stay signed in");
  }),
);

Deno.test("a cached session still expires on time", async () => {
  const clock = { t: Date.now() };
  await withPanel(async (p) => {
    const c = await p.login();
    assert.equal((await c.get("/api/user/status")).status, 200);
    assert.equal((await c.get("/api/user/status")).status, 200);
    clock.t += p.config.sessionDays * 24 * 3600_000 + 1000;
    assert.equal(
      (await c.get("/api/user/status")).status,
      401,
      "expired, though nothing was written meanwhile",
    );
  }, { now: () => clock.t })();
});
