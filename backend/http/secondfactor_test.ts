// Two-factor sign-in with TOTP and recovery codes, over the real API with a controllable clock.

import assert from "node:assert/strict";
import * as OTPAuth from "otpauth";
import { ADMIN_PASSWORD, type Client, type TestPanel, withPanel } from "../../tests/support/harness.ts";
import { ACCESS_MSG, type TwoFactorStatus } from "../../shared/access.ts";

const START = Date.parse("2026-06-01T10:00:00Z"); // a step boundary (divisible by 30 s)

function codeAt(secret: string, at: number): string {
  return new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: at,
  });
}

/** Turns TOTP on for the signed-in admin; answers the secret and the recovery codes. */
async function enrol(c: Client, now: () => number): Promise<{ secret: string; codes: string[] }> {
  const setup = await c.post("/api/user/2fa/totp/setup");
  assert.equal(setup.status, 200, setup.text);
  assert.match(setup.body.uri, /^otpauth:\/\/totp\/Factorio%20Panel:admin\?/);
  const wrong = await c.post("/api/user/2fa/totp/confirm", { code: "000000" });
  assert.deepEqual([wrong.status, wrong.body], [400, ACCESS_MSG.codeWrong]);
  const ok = await c.post("/api/user/2fa/totp/confirm", { code: codeAt(setup.body.secret, now()) });
  assert.equal(ok.status, 200, ok.text);
  assert.equal(ok.body.recovery_codes.length, 10);
  return { secret: setup.body.secret, codes: ok.body.recovery_codes };
}

/** The password step: answers the client holding the pending cookie. */
async function passwordStep(p: TestPanel): Promise<Client> {
  const c = p.client();
  const r = await c.post("/api/login", { username: "admin", password: ADMIN_PASSWORD });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.body, { second_factor: true, methods: ["totp", "recovery"] });
  assert.equal(c.cookie, undefined, "no session before the second step");
  return c;
}

/** Sends the second step with the pending cookie (the harness client keeps only the session cookie). */
function secondStep(c: Client, pendingCookie: string, body: unknown) {
  return c.post("/api/login/second-factor", body, { headers: { Cookie: pendingCookie } });
}

async function pendingOf(p: TestPanel): Promise<{ c: Client; cookie: string }> {
  const res = await fetch(p.url + "/api/login", {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: p.origin },
    body: JSON.stringify({ username: "admin", password: ADMIN_PASSWORD }),
  });
  const body = await res.json();
  assert.equal(body.second_factor, true);
  const line = res.headers.getSetCookie().find((l) => l.startsWith("authentication-2fa="))!;
  assert.match(line, /HttpOnly/i);
  assert.match(line, /Path=\/api\/login/);
  assert.match(line, /SameSite=Strict/i);
  return { c: p.client(), cookie: line.split(";")[0] };
}

Deno.test("TOTP: enrol with a code, then sign-in needs the second step; codes within one step of skew pass", async () => {
  let now = START;
  await withPanel(async (p) => {
    const admin = await p.login();
    const { secret } = await enrol(admin, () => now);
    const status = (await admin.get("/api/user/2fa")).body as TwoFactorStatus;
    assert.deepEqual(status, {
      totp: true,
      recovery_codes_left: 10,
      passkeys: 0,
      required_for_admins: false,
    });
    await passwordStep(p);

    // The phone's clock 30 s behind or ahead still works; 60 s off does not.
    for (
      const [offset, good] of [[-60_000, false], [60_000, false], [-30_000, true], [30_000, true], [
        0,
        true,
      ]] as const
    ) {
      now += 120_000; // a fresh step each time, so no code is a replay
      const { c, cookie } = await pendingOf(p);
      const r = await secondStep(c, cookie, { code: codeAt(secret, now + offset) });
      assert.equal(r.status, good ? 200 : 401, `offset ${offset}: ${r.text}`);
      if (good) {
        assert.equal(r.body.username, "admin");
        assert.ok(c.cookie, "a session cookie after the second step");
        assert.equal((await c.get("/api/user/status")).status, 200);
      } else assert.equal(r.body, ACCESS_MSG.codeWrong);
    }
  }, { now: () => now })();
});

Deno.test("TOTP: a used code is refused when replayed, also within its window", async () => {
  let now = START;
  await withPanel(async (p) => {
    const { secret } = await enrol(await p.login(), () => now);
    now += 90_000;
    const code = codeAt(secret, now);
    let { c, cookie } = await pendingOf(p);
    assert.equal((await secondStep(c, cookie, { code })).status, 200);
    ({ c, cookie } = await pendingOf(p));
    const replay = await secondStep(c, cookie, { code });
    assert.deepEqual([replay.status, replay.body], [401, ACCESS_MSG.codeWrong]);
    // An older code (the step before) is refused too once a later one was used.
    const older = await secondStep(c, cookie, { code: codeAt(secret, now - 30_000) });
    assert.equal(older.status, 401);
    now += 30_000;
    assert.equal((await secondStep(c, cookie, { code: codeAt(secret, now) })).status, 200);
  }, { now: () => now })();
});

Deno.test("recovery codes work once each, in any case and with or without the dash", async () => {
  const now = START;
  await withPanel(async (p) => {
    const admin = await p.login();
    const { codes } = await enrol(admin, () => now);
    assert.equal(new Set(codes).size, 10);
    const stored = JSON.stringify(p.ctx.db.prepare("SELECT * FROM recovery_codes").all());
    assert.ok(
      codes.every((code) => !stored.includes(code) && !stored.includes(code.replace("-", ""))),
      "stored hashed",
    );
    let { c, cookie } = await pendingOf(p);
    assert.equal(
      (await secondStep(c, cookie, { recovery_code: codes[0].toUpperCase().replace("-", " ") })).status,
      200,
    );
    ({ c, cookie } = await pendingOf(p));
    assert.equal((await secondStep(c, cookie, { recovery_code: codes[0] })).status, 401, "used already");
    assert.equal((await secondStep(c, cookie, { recovery_code: codes[1] })).status, 200);
    assert.equal(((await admin.get("/api/user/2fa")).body as TwoFactorStatus).recovery_codes_left, 8);
    // New codes need the password and replace all the old ones.
    assert.equal((await admin.post("/api/user/2fa/recovery", { password: "nope" })).status, 400);
    const fresh = await admin.post("/api/user/2fa/recovery", { password: ADMIN_PASSWORD });
    assert.equal(fresh.body.recovery_codes.length, 10);
    ({ c, cookie } = await pendingOf(p));
    assert.equal((await secondStep(c, cookie, { recovery_code: codes[2] })).status, 401);
    assert.equal((await secondStep(c, cookie, { recovery_code: fresh.body.recovery_codes[0] })).status, 200);
  }, { now: () => now })();
});

Deno.test("the second step is rate-limited like the first, needs the pending cookie, and it expires", async () => {
  let now = START;
  await withPanel(async (p) => {
    const { secret } = await enrol(await p.login(), () => now);
    const { c, cookie } = await pendingOf(p);
    for (let i = 0; i < 10; i++) assert.equal((await secondStep(c, cookie, { code: "123456" })).status, 401);
    const limited = await secondStep(c, cookie, { code: codeAt(secret, now) });
    assert.equal(limited.status, 429, "even the right code is refused while over the limit");
    assert.ok(Number(limited.headers.get("retry-after")) > 0);
    // The limit holds for the password step too (one counter per user), and passes with time.
    assert.equal(
      (await p.client().post("/api/login", { username: "admin", password: ADMIN_PASSWORD })).status,
      429,
    );
    now += 16 * 60_000;
    const again = await pendingOf(p);
    assert.equal((await secondStep(again.c, again.cookie, { code: codeAt(secret, now) })).status, 200);

    const noCookie = await p.client().post("/api/login/second-factor", { code: codeAt(secret, now) });
    assert.deepEqual([noCookie.status, noCookie.body], [401, ACCESS_MSG.secondFactorExpired]);
    const late = await pendingOf(p);
    now += 5 * 60_000 + 1;
    const r = await secondStep(late.c, late.cookie, { code: codeAt(secret, now) });
    assert.deepEqual([r.status, r.body], [401, ACCESS_MSG.secondFactorExpired]);
  }, { now: () => now })();
});

Deno.test("second steps sent all at once are counted like one after another: 10 wrong codes, then refusals", async () => {
  const now = START;
  await withPanel(async (p) => {
    const { secret } = await enrol(await p.login(), () => now);
    const { c, cookie } = await pendingOf(p);
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => secondStep(c, cookie, { code: "123456" })),
    );
    const counts = { 401: 0, 429: 0 } as Record<number, number>;
    for (const a of answers) counts[a.status] = (counts[a.status] ?? 0) + 1;
    assert.deepEqual(counts, { 401: 10, 429: 20 });
    assert.equal((await secondStep(c, cookie, { code: codeAt(secret, now) })).status, 429);
  }, { now: () => now })();
});

Deno.test("at most 10 wrong codes per user and window from every address together; a correct password does not start them over", async () => {
  let now = START;
  await withPanel(async (p) => {
    const { secret } = await enrol(await p.login(), () => now);
    // Whoever holds the password: a pending sign-in from an address of their choosing (--trust-proxy).
    const pendingFrom = async (address: string) => {
      const res = await fetch(p.url + "/api/login", {
        method: "POST",
        headers: { "Content-Type": "application/json", Origin: p.origin, "X-Forwarded-For": address },
        body: JSON.stringify({ username: "admin", password: ADMIN_PASSWORD }),
      });
      assert.equal(res.status, 200, await res.clone().text());
      const cookie = res.headers.getSetCookie().find((l) =>
        l.startsWith("authentication-2fa=")
      )!.split(";")[0];
      return (body: unknown) =>
        p.client().post("/api/login/second-factor", body, {
          headers: { Cookie: cookie, "X-Forwarded-For": address },
        });
    };
    // A second address where the password was right too, before any wrong code.
    const elsewhere = await pendingFrom("10.9.0.2");
    let checked = 0;
    // Four wrong codes, then the password again from the same address, three times over: before, each
    // correct password reset the count that held the second steps.
    for (let round = 0; round < 3; round++) {
      const step = await pendingFrom("10.9.0.1");
      for (let i = 0; i < 4 && checked < 10; i++, checked++) {
        assert.equal(
          (await step({ code: "123456" })).status,
          401,
          `code ${checked + 1}`,
        );
      }
    }
    assert.equal(checked, 10);
    const held = await (await pendingFrom("10.9.0.1"))({ code: codeAt(secret, now) });
    assert.equal(held.status, 429, "the 11th code is not checked, right or wrong");
    // Another address with the password gets no fresh allowance.
    const there = await elsewhere({ code: codeAt(secret, now) });
    assert.equal(there.status, 429, "the limit is the user's, from every address");
    assert.ok(Number(there.headers.get("retry-after")) > 0);
    // Once the window has passed, the right code passes.
    now += 15 * 60_000 + 1;
    assert.equal((await (await pendingFrom("10.9.0.3"))({ code: codeAt(secret, now) })).status, 200);
  }, { now: () => now, args: ["--trust-proxy"] })();
});

Deno.test("turning TOTP off needs the password and ends the second step", async () => {
  const now = START;
  await withPanel(async (p) => {
    const admin = await p.login();
    await enrol(admin, () => now);
    assert.equal((await admin.post("/api/user/2fa/totp/setup")).status, 409, "already on");
    assert.equal((await admin.post("/api/user/2fa/totp/disable", { password: "wrong" })).status, 400);
    assert.equal((await admin.post("/api/user/2fa/totp/disable", { password: ADMIN_PASSWORD })).status, 200);
    const r = await p.client().post("/api/login", { username: "admin", password: ADMIN_PASSWORD });
    assert.equal(r.body.username, "admin");
    assert.equal(p.ctx.db.prepare("SELECT COUNT(*) AS n FROM recovery_codes").get()!.n, 0);
  }, { now: () => now })();
});

Deno.test("--require-2fa-admins: an admin without a second factor can only set one up; operators are not held", async () => {
  let now = START;
  await withPanel(async (p) => {
    const first = p.client();
    const answer = await first.post("/api/login", { username: "admin", password: ADMIN_PASSWORD });
    assert.equal(answer.body.must_enrol, true, "the sign-in answer tells the app to open the setup");
    const admin = await p.login();
    assert.equal((await admin.get("/api/user/status")).body.must_enrol, true);
    const blocked = await admin.get("/api/server/status");
    assert.deepEqual([blocked.status, blocked.body], [403, ACCESS_MSG.enrolFirst]);
    assert.equal((await admin.get("/api/user/status")).status, 200);
    assert.equal(((await admin.get("/api/user/2fa")).body as TwoFactorStatus).required_for_admins, true);
    // Until then an admin cannot even add users, so none can be added to get around it.
    assert.equal(
      (await admin.post("/api/user/add", {
        username: "x",
        email: "x@y.z",
        password: "p",
        password_confirmation: "p",
      })).status,
      403,
    );
    const { secret } = await enrol(admin, () => now);
    assert.equal((await admin.get("/api/server/status")).status, 200);
    assert.equal((await admin.get("/api/user/status")).body.must_enrol, undefined);
    const op = {
      username: "olga",
      role: "operator",
      email: "o@e.org",
      password: "pw-olga-long",
      password_confirmation: "pw-olga-long",
    };
    assert.equal((await admin.post("/api/user/add", op)).status, 200);
    const olga = await p.login("olga", "pw-olga-long");
    assert.equal((await olga.get("/api/server/status")).status, 200);
    now += 60_000;
    const { c, cookie } = await pendingOf(p);
    assert.equal((await secondStep(c, cookie, { code: codeAt(secret, now) })).status, 200);
    assert.equal((await c.get("/api/server/status")).status, 200);
  }, { now: () => now, args: ["--require-2fa-admins"] })();
});
