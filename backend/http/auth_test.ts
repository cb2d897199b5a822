import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { ADMIN_PASSWORD, Client, startPanel, withPanel } from "../../tests/support/harness.ts";
import { MSG, PANEL_MSG } from "../../shared/messages.ts";
import { LOGIN_LIMITS } from "../auth/ratelimit.ts";
import { FSM_HASH_PREFIX, hashStats } from "../auth/password.ts";
import { loadConfig } from "../boot/config.ts";
import { createContext } from "../boot/context.ts";
import { INITIAL_PASSWORD_FILE } from "../auth/accounts.ts";

Deno.test(
  "login with the right password answers the user and sets a strict, HttpOnly session cookie",
  withPanel(async (p) => {
    const c = p.client();
    const r = await c.post("/api/login", { username: "admin", password: ADMIN_PASSWORD });
    assert.equal(r.status, 200);
    const { server_status, ...user } = r.body;
    assert.deepEqual(user, { username: "admin", role: "admin", email: "" });
    // The game's status comes along (the app shows Controls without asking again), the same as the route says.
    assert.deepEqual(server_status, (await c.get("/api/server/status")).body);
    const cookie = r.headers.getSetCookie().find((l) => l.startsWith("authentication="))!;
    assert.match(cookie, /HttpOnly/);
    assert.match(cookie, /SameSite=Strict/);
    assert.match(cookie, /Path=\//);
    assert.match(cookie, /Max-Age=2592000/);
    assert.doesNotMatch(cookie, /Secure/, "plain http: no Secure flag, or the browser drops the cookie");
    const status = await c.get("/api/user/status");
    assert.equal(status.status, 200);
    assert.equal(status.body.username, "admin");
    // The token is stored hashed: the cookie value is nowhere in the database.
    const token = c.cookie!.split("=")[1];
    const rows = p.ctx.db.prepare("SELECT token_hash FROM sessions").all() as { token_hash: string }[];
    assert.equal(rows.length, 1);
    assert.notEqual(rows[0].token_hash, token);
  }),
);

Deno.test(
  "usernames are matched without regard to case",
  withPanel(async (p) => {
    const r = await p.client().post("/api/login", { username: "ADMIN", password: ADMIN_PASSWORD });
    assert.equal(r.status, 200);
  }),
);

Deno.test(
  "the cookie is Secure behind a trusted https proxy",
  withPanel(async (p) => {
    const r = await p.client().post("/api/login", { username: "admin", password: ADMIN_PASSWORD }, {
      headers: { "X-Forwarded-Proto": "https" },
      noOrigin: true,
    });
    assert.equal(r.status, 200);
    assert.match(r.headers.getSetCookie().join(";"), /Secure/);
  }, { args: ["--trust-proxy"] }),
);

Deno.test(
  "wrong password or unknown user: 401 with the spec's text, and no cookie",
  withPanel(async (p) => {
    for (const body of [{ username: "admin", password: "nope" }, { username: "ghost", password: "x" }]) {
      const c = p.client();
      const r = await c.post("/api/login", body);
      assert.equal(r.status, 401);
      assert.equal(r.body, MSG.loginFailed);
      assert.equal(c.cookie, undefined);
    }
  }),
);

Deno.test(
  "missing fields and bad bodies get clear 4xx messages",
  withPanel(async (p) => {
    const c = p.client();
    assert.deepEqual(await c.post("/api/login", { password: "x" }).then((r) => [r.status, r.body]), [
      400,
      MSG.usernameRequired,
    ]);
    assert.deepEqual(await c.post("/api/login", { username: "admin" }).then((r) => [r.status, r.body]), [
      400,
      MSG.passwordRequired,
    ]);
    const broken = await c.request("POST", "/api/login", {
      body: "{",
      headers: { "Content-Type": "application/json" },
    });
    assert.deepEqual([broken.status, broken.body], [400, PANEL_MSG.jsonInvalid]);
    const form = await c.request("POST", "/api/login", {
      body: "username=admin&password=x",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    assert.deepEqual([form.status, form.body], [415, PANEL_MSG.jsonExpected]);
    const huge = await c.post("/api/login", { username: "admin", password: "x".repeat(2 * 1024 * 1024) });
    assert.equal(huge.status, 413);
  }),
);

Deno.test("sign-in attempts are rate-limited per username and address, with a retry time", async () => {
  let now = Date.UTC(2026, 0, 1);
  const p = await startPanel({ now: () => now });
  try {
    for (let i = 0; i < LOGIN_LIMITS.perUserAddress.max; i++) {
      assert.equal((await p.client().post("/api/login", { username: "admin", password: "bad" })).status, 401);
    }
    const limited = await p.client().post("/api/login", { username: "admin", password: ADMIN_PASSWORD });
    assert.equal(limited.status, 429, "even the right password is refused while limited");
    assert.match(limited.body, /Too many failed sign-in attempts\. Try again in 15 minutes\./);
    assert.equal(limited.headers.get("Retry-After"), String(LOGIN_LIMITS.perUserAddress.windowMs / 1000));
    // Another username from the same address is not affected by the username limit.
    assert.equal((await p.client().post("/api/login", { username: "other", password: "bad" })).status, 401);
    now += LOGIN_LIMITS.perUserAddress.windowMs + 1;
    assert.equal(
      (await p.client().post("/api/login", { username: "admin", password: ADMIN_PASSWORD })).status,
      200,
    );
  } finally {
    await p.close();
  }
});

Deno.test("sign-in attempts are rate-limited per client address", async () => {
  let now = Date.UTC(2026, 0, 1);
  const p = await startPanel({ now: () => now });
  try {
    for (let i = 0; i < LOGIN_LIMITS.perAddress.max; i++) {
      assert.equal(
        (await p.client().post("/api/login", { username: `user${i}`, password: "bad" })).status,
        401,
      );
    }
    const limited = await p.client().post("/api/login", { username: "admin", password: ADMIN_PASSWORD });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get("Retry-After")) > 0);
    now += LOGIN_LIMITS.perAddress.windowMs + 1;
    assert.equal(
      (await p.client().post("/api/login", { username: "admin", password: ADMIN_PASSWORD })).status,
      200,
    );
  } finally {
    await p.close();
  }
});

Deno.test("sessions expire after --session-days", async () => {
  let now = Date.UTC(2026, 0, 1);
  const p = await startPanel({ now: () => now, args: ["--session-days", "2"] });
  try {
    const c = await p.login();
    now += 2 * 24 * 3600_000 - 1000;
    assert.equal((await c.get("/api/user/status")).status, 200);
    now += 2000;
    assert.equal((await c.get("/api/user/status")).status, 401);
  } finally {
    await p.close();
  }
});

Deno.test(
  "logout revokes the session on the server: a copied cookie stops working",
  withPanel(async (p) => {
    const c = await p.login();
    const copy = new Client(p.url, p.origin);
    copy.cookie = c.cookie;
    const out = await c.get("/api/logout");
    assert.equal(out.status, 200);
    assert.equal(out.body, "User logged out successfully.");
    assert.match(out.headers.getSetCookie().join(";"), /authentication=;.*Max-Age=0/);
    assert.equal((await copy.get("/api/user/status")).status, 401);
  }),
);

Deno.test(
  "a password change revokes every other session and keeps the caller signed in",
  withPanel(async (p) => {
    const a = await p.login();
    const b = await p.login();
    const r = await a.post("/api/user/password", {
      old_password: ADMIN_PASSWORD,
      new_password: "a new password",
      new_password_confirmation: "a new password",
    });
    assert.equal(r.status, 200);
    assert.equal(r.body, true);
    assert.equal((await a.get("/api/user/status")).status, 200, "the caller got a fresh session");
    assert.equal((await b.get("/api/user/status")).status, 401, "other sessions are gone");
    assert.equal(
      (await p.client().post("/api/login", { username: "admin", password: ADMIN_PASSWORD })).status,
      401,
    );
    await p.login("admin", "a new password");
  }),
);

Deno.test("first start creates admin with a generated password in an owner-only file", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-boot-"));
  try {
    const r = loadConfig(["--data-dir", dataDir, "--port", "0"], {});
    if (r.kind !== "config") throw new Error();
    const { ctx, bootstrap } = await createContext(r.config, { quiet: true, adminPassword: "" });
    const created = bootstrap.generatedAdmin!;
    try {
      assert.equal(created.created, true);
      assert.equal(created.username, "admin");
      assert.ok(created.password && created.password.length >= 16);
      const file = join(dataDir, INITIAL_PASSWORD_FILE);
      assert.equal(readFileSync(file, "utf8").trim(), created.password);
      assert.equal(statSync(file).mode & 0o777, 0o600);
      assert.equal(statSync(join(dataDir, "panel.db")).mode & 0o777, 0o600);
      assert.ok(!readFileSync(join(dataDir, "panel.log"), "utf8").includes(created.password), "never logged");
      assert.equal(ctx.accounts.list().length, 1);
    } finally {
      await ctx.close();
    }
    // A second start keeps the users and creates nobody; the unchanged password is answered again, to print.
    const again = await createContext(r.config, { quiet: true });
    try {
      assert.equal(again.ctx.accounts.list().length, 1);
      assert.deepEqual(again.bootstrap.generatedAdmin, {
        username: "admin",
        password: created.password,
        created: false,
      });
    } finally {
      await again.ctx.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

Deno.test(
  "PANEL_ADMIN_PASSWORD sets the first password and no file is written",
  withPanel(async (p) => {
    assert.ok(!existsSync(join(p.dataDir, INITIAL_PASSWORD_FILE)));
    await p.login("admin", ADMIN_PASSWORD);
  }),
);

Deno.test("the generated password is flagged until changed; changing it removes the initial password file", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-boot-"));
  try {
    const r = loadConfig(["--data-dir", dataDir], {});
    if (r.kind !== "config") throw new Error();
    const first = await createContext(r.config, { quiet: true, adminPassword: "" });
    const password = first.bootstrap.generatedAdmin!.password;
    await first.ctx.close();
    const p = await startPanel({ dataDir });
    try {
      const c = await p.login("admin", password);
      assert.equal((await c.get("/api/user/status")).body.generated_password, true);
      // The file taken away and put back by hand (the admin read it): the session check sees each at once.
      const file = join(dataDir, INITIAL_PASSWORD_FILE);
      const kept = Deno.readFileSync(file);
      for (let i = 0; i < 3; i++) {
        rmSync(file);
        // Past the racy window (lib/foldercache.ts, RACY_MS), so the absence is remembered by the folder's stamp.
        await new Promise((r) => setTimeout(r, 150));
        assert.equal(
          (await c.get("/api/user/status")).body.generated_password,
          undefined,
          `removed, round ${i}`,
        );
        Deno.writeFileSync(file, kept, { mode: 0o600 });
        assert.equal((await c.get("/api/user/status")).body.generated_password, true, `back, round ${i}`);
      }
      const res = await c.post("/api/user/password", {
        old_password: password,
        new_password: "changed password",
        new_password_confirmation: "changed password",
      });
      assert.equal(res.status, 200);
      assert.ok(!existsSync(join(dataDir, INITIAL_PASSWORD_FILE)));
      assert.deepEqual((await c.get("/api/user/status")).body, {
        username: "admin",
        role: "admin",
        email: "",
      });
      const again = await p.login("admin", "changed password");
      assert.equal((await again.get("/api/user/status")).body.generated_password, undefined);
    } finally {
      await p.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

Deno.test(
  "300 parallel wrong sign-ins: each is counted before its hash, so only the limit's worth are checked",
  withPanel(async (p) => {
    hashStats.peak = 0;
    const before = hashStats.total;
    const answers = await Promise.all(
      Array.from(
        { length: 300 },
        () => p.client().post("/api/login", { username: "admin", password: "wrong" }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 401).length, LOGIN_LIMITS.perUserAddress.max);
    assert.equal(statuses.filter((s) => s === 429).length, 300 - LOGIN_LIMITS.perUserAddress.max);
    assert.ok(
      hashStats.total - before <= LOGIN_LIMITS.perUserAddress.max + 1,
      `${hashStats.total - before} hashes`,
    );
    assert.ok(hashStats.peak <= 2, `${hashStats.peak} hashes ran at once`);
  }),
);

Deno.test("a stranger's failed sign-ins do not lock the owner out of their own address", async () => {
  let now = Date.UTC(2026, 0, 1);
  const p = await startPanel({ now: () => now, args: ["--trust-proxy"] });
  const from = (address: string, password: string) =>
    p.client().post("/api/login", { username: "admin", password }, {
      headers: { "X-Forwarded-For": address },
    });
  try {
    assert.equal((await from("10.0.0.1", ADMIN_PASSWORD)).status, 200, "the owner's usual address");
    for (let i = 0; i < LOGIN_LIMITS.perUserAddress.max; i++) {
      assert.equal((await from("10.6.6.6", "guess")).status, 401);
    }
    assert.equal((await from("10.6.6.6", ADMIN_PASSWORD)).status, 429, "the guesser's address is held");
    assert.equal((await from("10.0.0.1", ADMIN_PASSWORD)).status, 200, "the owner still gets in");
    // A new address waits the global backoff, which grows with the failures and then lets one try.
    const fresh = await from("10.0.0.2", ADMIN_PASSWORD);
    assert.equal(fresh.status, 429);
    assert.equal(fresh.headers.get("Retry-After"), String(LOGIN_LIMITS.backoffFirstMs / 1000));
    now += LOGIN_LIMITS.backoffFirstMs;
    assert.equal((await from("10.0.0.3", "guess")).status, 401);
    const slower = await from("10.0.0.4", "guess");
    assert.equal(slower.status, 429);
    assert.equal(slower.headers.get("Retry-After"), String((2 * LOGIN_LIMITS.backoffFirstMs) / 1000));
    now += 2 * LOGIN_LIMITS.backoffFirstMs;
    assert.equal((await from("10.0.0.2", ADMIN_PASSWORD)).status, 200);
  } finally {
    await p.close();
  }
});

Deno.test(
  "the old panel's bcrypt hashes are checked in the same two-at-a-time line as scrypt; dearer hashes than the panel's are not run",
  withPanel(async (p) => {
    const { default: bcrypt } = await import("bcryptjs");
    const now = Date.now();
    // As an --import-fsm leaves them (cost 4 keeps the test quick), and hashes with a cost above the panel's.
    p.ctx.accounts.users.insert({
      username: "olduser",
      passwordHash: FSM_HASH_PREFIX + bcrypt.hashSync("old password", 4),
      role: "viewer",
      email: "",
    }, now);
    p.ctx.accounts.users.insert({
      username: "dear",
      passwordHash: `scrypt$1048576$8$1$${"A".repeat(22)}==$${"B".repeat(43)}=`,
      role: "viewer",
      email: "",
    }, now);
    p.ctx.accounts.users.insert({
      username: "deareste",
      passwordHash: FSM_HASH_PREFIX + "$2b$31$" + "a".repeat(53),
      role: "viewer",
      email: "",
    }, now);
    const from = (n: number, username: string, password: string) =>
      p.client().post("/api/login", { username, password }, {
        headers: { "X-Forwarded-For": `10.1.0.${n}` },
      });

    hashStats.peak = 0;
    const before = hashStats.total;
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => from(i, "olduser", "wrong")));
    assert.deepEqual(answers.map((r) => r.status), Array(8).fill(401));
    assert.equal(hashStats.total - before, 8, "each bcrypt check took its turn in the line");
    assert.ok(hashStats.peak <= 2, `${hashStats.peak} hashes ran at once`);
    assert.equal((await from(9, "olduser", "old password")).status, 200);

    for (const username of ["dear", "deareste"]) {
      const started = hashStats.total;
      assert.equal((await from(10, username, "anything")).status, 401);
      assert.equal(hashStats.total, started, `${username}: no hash was run`);
    }
  }, { args: ["--trust-proxy"] }),
);

Deno.test("deleting the first admin removes the generated password file, so no later start prints it for another admin", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-boot-"));
  try {
    const r = loadConfig(["--data-dir", dataDir], {});
    if (r.kind !== "config") throw new Error();
    const first = await createContext(r.config, { quiet: true, adminPassword: "" });
    const password = first.bootstrap.generatedAdmin!.password;
    await first.ctx.close();
    const p = await startPanel({ dataDir });
    try {
      const admin = await p.login("admin", password);
      const add = {
        username: "root2",
        role: "admin",
        email: "r@e.org",
        password: "root2 password",
        password_confirmation: "root2 password",
      };
      assert.equal((await admin.post("/api/user/add", add)).status, 200);
      const other = await p.login("root2", "root2 password");
      assert.equal((await other.post("/api/user/remove", { username: "admin" })).status, 200);
      assert.ok(!existsSync(join(dataDir, INITIAL_PASSWORD_FILE)));
    } finally {
      await p.close();
    }
    const again = await createContext(r.config, { quiet: true });
    assert.equal(again.bootstrap.generatedAdmin, null);
    await again.ctx.close();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});
