import assert from "node:assert/strict";
import { startPanel, withPanel } from "../../tests/support/harness.ts";
import { LOGIN_LIMITS } from "../auth/ratelimit.ts";
import { changesState, type Route } from "../http/routes.ts";
import { ADMIN_PASSWORD } from "../../tests/support/harness.ts";
import { startGame, withGamePanel } from "../../tests/support/game.ts";
import { TestSocket } from "../../tests/support/ws.ts";
import { ROLE_PASSWORD, userWithRole } from "../../tests/support/roles.ts";
import { ACCESS_MSG, type ActivityEntry } from "../../shared/access.ts";
import { ACTIVITY_ROWS_MAX, activityCsv, REFUSED_ACTION } from "./log.ts";

function concrete(r: Route): string {
  return r.path.replace(/:[a-zA-Z]+(\{[^}]*\})?/g, "x");
}

const OFFLINE = ["--mod-portal-url", "http://127.0.0.1:9", "--auth-url", "http://127.0.0.1:9"];

Deno.test(
  "every state-changing route of every area is recorded: who, from where, with what device, what, and the result",
  withPanel(async (p) => {
    let c = await p.login();
    const changing = p.routes.filter((r) => changesState(r) && !r.public);
    assert.ok(changing.length > 30);
    for (const route of changing) {
      const before = p.ctx.activity.query({ limit: 1 })[0]?.id ?? 0;
      const r = await c.request(route.method, concrete(route), {
        json: route.method === "GET" ? undefined : {},
        headers: { "User-Agent": "activity-walker/1.0" },
      });
      const [last] = p.ctx.activity.query({ limit: 1 });
      const what = `${route.method} ${route.path} (${r.status})`;
      assert.ok(last && last.id > before, `${what} left no record`);
      assert.equal(last.action, `${route.method} ${route.path}`, what);
      assert.equal(last.username, "admin", what);
      assert.equal(last.via, "session", what);
      assert.equal(last.address, "127.0.0.1", what);
      assert.equal(last.user_agent, "activity-walker/1.0", what);
      assert.equal(last.status, r.status, what);
      if (route.path.includes(":")) assert.match(last.detail, /\/x/, what);
      if ((await c.get("/api/user/status")).status === 401) c = await p.login();
    }
    // Reads are not recorded.
    const count = p.ctx.activity.query({ limit: 10_000 }).length;
    await c.get("/api/saves/list");
    await c.get("/api/user/list");
    assert.equal(p.ctx.activity.query({ limit: 10_000 }).length, count);
  }, { args: OFFLINE }),
);

Deno.test(
  "sign-ins, failed sign-ins, role and password changes are recorded, never with a password",
  withPanel(async (p) => {
    const admin = await p.login();
    await p.client().post("/api/login", { username: "admin", password: "wrong-password-1" });
    await p.client().post("/api/login", { username: "nobody", password: "wrong-password-2" });
    const vic = await userWithRole(p, admin, "vic", "viewer");
    await admin.post("/api/user/role", { username: "vic", role: "operator" });
    await vic.post("/api/user/password", {
      old_password: ROLE_PASSWORD,
      new_password: "new-secret-pw",
      new_password_confirmation: "new-secret-pw",
    });
    const all = p.ctx.activity.query({ limit: 100 }).reverse();
    const rows = all.map((e) => [e.username, e.action, e.detail, e.status]);
    assert.deepEqual(rows, [
      ["admin", "POST /api/login", "", 200],
      ["admin", "POST /api/login", "", 401],
      ["nobody", "POST /api/login", "", 401],
      ["admin", "POST /api/user/add", "vic (viewer)", 200],
      ["vic", "POST /api/login", "", 200],
      ["admin", "POST /api/user/role", "vic -> operator", 200],
      ["vic", "POST /api/user/password", "", 200],
    ]);
    const text = JSON.stringify(all);
    for (const secret of [ADMIN_PASSWORD, ROLE_PASSWORD, "wrong-password-1", "new-secret-pw"]) {
      assert.ok(!text.includes(secret));
    }
  }),
);

Deno.test(
  "GET /api/activity: admins only, filters by user, action, date and limit, and exports CSV",
  withPanel(async (p) => {
    const admin = await p.login();
    const op = await userWithRole(p, admin, "olga", "operator");
    await op.post("/api/mods/toggle", { name: "nothing" });
    await op.get("/api/server/kill");
    assert.equal((await op.get("/api/activity")).status, 403);

    const byUser = (await admin.get("/api/activity?user=OLGA")).body as ActivityEntry[];
    assert.deepEqual(byUser.map((e) => e.action), [
      "GET /api/server/kill",
      "POST /api/mods/toggle",
      "POST /api/login",
    ]);
    const byAction = (await admin.get("/api/activity?action=mods")).body as ActivityEntry[];
    assert.deepEqual(byAction.map((e) => e.action), ["POST /api/mods/toggle"]);
    assert.equal((await admin.get("/api/activity?limit=2")).body.length, 2);
    const today = new Date().toISOString().slice(0, 10);
    assert.equal((await admin.get(`/api/activity?from=${today}&to=${today}`)).body.length, 5);
    assert.equal((await admin.get("/api/activity?to=2000-01-01")).body.length, 0);
    assert.equal((await admin.get("/api/activity?from=yesterday")).status, 400);
    assert.equal((await admin.get("/api/activity?limit=0")).status, 400);

    const csv = await admin.get("/api/activity?user=olga&format=csv");
    assert.equal(csv.status, 200);
    assert.match(csv.headers.get("content-type") ?? "", /^text\/csv/);
    assert.match(csv.headers.get("content-disposition") ?? "", /attachment; filename="activity.csv"/);
    const lines = csv.text.trimEnd().split("\r\n");
    assert.equal(lines[0], "at,username,via,address,user_agent,action,detail,status,server");
    assert.equal(lines.length, 4);
    assert.match(lines[1], /,olga,session,127\.0\.0\.1,.*,GET \/api\/server\/kill,,/);
  }),
);

Deno.test(
  "each record names the server acted on (null: panel-wide); GET /api/activity filters by ?server=N",
  withPanel(async (p) => {
    const admin = await p.login();
    await admin.post("/api/user/add", {
      username: "panelwide",
      role: "viewer",
      email: "p@example.org",
      password: ROLE_PASSWORD,
      password_confirmation: ROLE_PASSWORD,
    });
    // What the per-server dispatch records for an action on a server.
    const base = { username: "admin", via: "session", address: "127.0.0.1", userAgent: "t", detail: "" };
    p.ctx.activity.record({ ...base, action: "POST /api/server/start", status: 200, server: 1 });
    p.ctx.activity.record({ ...base, action: "POST /api/saves/upload", status: 200, server: 2 });
    const all = (await admin.get("/api/activity")).body as ActivityEntry[];
    assert.deepEqual(all.slice(0, 3).map((e) => [e.action, e.server]), [
      ["POST /api/saves/upload", 2],
      ["POST /api/server/start", 1],
      ["POST /api/user/add", null],
    ]);
    const two = (await admin.get("/api/activity?server=2")).body as ActivityEntry[];
    assert.deepEqual(two.map((e) => e.action), ["POST /api/saves/upload"]);
    assert.deepEqual((await admin.get("/api/activity?server=7")).body, []);
    for (const bad of ["x", "0", "-1", "1.5"]) {
      const r = await admin.get(`/api/activity?server=${bad}`);
      assert.deepEqual([r.status, r.body], [400, "server must be the id of a server"], bad);
    }
    const csv = (await admin.get("/api/activity?format=csv")).text.trimEnd().split("\r\n");
    assert.match(csv[1], /,POST \/api\/saves\/upload,,200,2$/);
    assert.match(csv[3], /,POST \/api\/user\/add,panelwide \(viewer\),200,$/);
  }),
);

Deno.test("CSV cells are quoted and never start a spreadsheet formula", () => {
  const entry: ActivityEntry = {
    id: 1,
    at: "2026-01-01T00:00:00.000Z",
    username: "a",
    via: "session",
    address: "::1",
    user_agent: 'Mozilla "x", y',
    action: "console",
    detail: '=HYPERLINK("http://evil")',
    status: 200,
    server: 2,
  };
  const line = activityCsv([entry]).split("\r\n")[1];
  assert.equal(
    line,
    `2026-01-01T00:00:00.000Z,a,session,::1,"Mozilla ""x"", y",console,"'=HYPERLINK(""http://evil"")",200,2`,
  );
});

Deno.test("records older than --activity-days are swept", async () => {
  let now = Date.parse("2026-03-01T12:00:00Z");
  await withPanel(async (p) => {
    await p.login();
    assert.equal(p.ctx.activity.query().length, 1);
    now += 2 * 24 * 3600_000;
    await p.login();
    now += 24 * 3600_000 + 1000; // the first sign-in is now 3 days old, the second 1 day
    assert.equal(p.ctx.activity.sweep(), 1);
    assert.equal(p.ctx.activity.query().length, 1);
  }, { now: () => now, args: ["--activity-days", "2"] })();
});

Deno.test(
  "console commands are recorded, and a viewer's are refused and recorded as refused",
  withGamePanel(async (p) => {
    const admin = await p.login();
    const vic = await userWithRole(p, admin, "vic", "viewer");
    await startGame(admin);
    const adminSocket = await TestSocket.connect(admin);
    const vicSocket = await TestSocket.connect(vic);
    try {
      vicSocket.subscribe("gamelog");
      adminSocket.subscribe("gamelog");
      vicSocket.command("/ban alice");
      await vicSocket.waitFor(
        (s) => s.messages.some((m) => m.message === ACCESS_MSG.consoleNotAllowed),
        "the refusal",
      );
      adminSocket.command("/players");
      await adminSocket.waitFor((s) => s.messages.some((m) => m.message === "admin> /players"), "the echo");
      // The viewer still reads the console: the admin's command reached their socket too.
      await vicSocket.waitFor(
        (s) => s.messages.some((m) => m.message === "admin> /players"),
        "the viewer reading",
      );
      assert.ok(
        !vicSocket.messages.some((m) => m.message === "vic> /ban alice"),
        "the viewer's command never ran",
      );
      const consoleRows = p.ctx.activity.query({ action: "console" }).map((
        e,
      ) => [e.username, e.detail, e.status]);
      assert.deepEqual(consoleRows, [["admin", "/players", 200], ["vic", "/ban alice", 403]]);
    } finally {
      await adminSocket.close();
      await vicSocket.close();
    }
  }),
);

Deno.test("a flood of anonymous sign-ins: refusals by the limit are one record per address and window, with their count", async () => {
  const dataDir = Deno.makeTempDirSync({ prefix: "panel-flood-" });
  try {
    let p = await startPanel({ dataDir, args: ["--trust-proxy"] });
    let refusedFirst = 0;
    const rows = () => (p.ctx.db.prepare("SELECT COUNT(*) AS n FROM activity").get() as { n: number }).n;
    const names = ["admin", "root", "bob", "alice", "eve", "mallory", "trent"];
    const attempt = (i: number, address: string) =>
      p.client().post("/api/login", { username: names[i % names.length], password: `guess ${i}` }, {
        headers: { "X-Forwarded-For": address },
      });
    try {
      const before = rows();
      const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => attempt(i, "10.66.0.1")));
      // At most the per-address limit's worth are checked (fewer when the hash line is full: "busy", also 429).
      const checked = answers.filter((r) => r.status === 401).length;
      const refused = answers.filter((r) => r.status === 429).length;
      assert.ok(checked > 0 && checked <= LOGIN_LIMITS.perAddress.max, `${checked} checked`);
      assert.equal(checked + refused, 300);
      refusedFirst = refused;
      // Each checked password is a record; the refusals are one.
      assert.equal(rows() - before, checked + 1);
      const [summary] = p.ctx.activity.query({ action: REFUSED_ACTION });
      assert.equal(summary.address, "10.66.0.1");
      assert.equal(summary.status, 429);
      // Its count is written at most once a second while refusals come (and at shutdown, below).
      assert.match(summary.detail, /^\d+ sign-in attempts? refused by the limit in \d+ s; names tried: /);
      // Another address: a record of its own.
      for (let i = 0; i < LOGIN_LIMITS.perAddress.max + 3; i++) await attempt(i, "10.66.0.2");
      assert.equal(p.ctx.activity.query({ action: REFUSED_ACTION }).length, 2);
      assert.equal(rows() - before, checked + 1 + LOGIN_LIMITS.perAddress.max + 1);
    } finally {
      await p.close({ keepData: true });
    }
    // The last counts were written at shutdown.
    p = await startPanel({ dataDir });
    try {
      const [second, first] = p.ctx.activity.query({ action: REFUSED_ACTION });
      assert.deepEqual([Number(second.detail.split(" ")[0]), Number(first.detail.split(" ")[0])], [
        3,
        refusedFirst,
      ]);
      assert.match(
        first.detail,
        /^\d+ sign-in attempts refused by the limit in \d+ s; names tried: \w+, \w+, \w+, \w+, \w+ and 2 more$/,
      );
    } finally {
      await p.close({ keepData: true });
    }
  } finally {
    Deno.removeSync(dataDir, { recursive: true });
  }
});

Deno.test(
  `the activity table keeps at most ${ACTIVITY_ROWS_MAX} records: the oldest go first`,
  withPanel(async (p) => {
    // Filled close to the cap by SQL (as a long-lived panel would be), then new records come from requests.
    p.ctx.db.exec(
      `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${ACTIVITY_ROWS_MAX - 5})
    INSERT INTO activity (at, username, action, status) SELECT ${Date.now()}, 'old', 'POST /api/old', 200 FROM n`,
    );
    const firstOld = (p.ctx.db.prepare("SELECT MIN(id) AS id FROM activity").get() as { id: number }).id;
    const c = await p.login();
    for (let i = 0; i < 10; i++) await c.get("/api/server/kill");
    const { n, oldest } = p.ctx.db.prepare("SELECT COUNT(*) AS n, MIN(id) AS oldest FROM activity").get() as {
      n: number;
      oldest: number;
    };
    assert.equal(n, ACTIVITY_ROWS_MAX);
    assert.ok(oldest > firstOld, "the oldest records went");
    assert.equal(p.ctx.activity.query({ limit: 1 })[0].action, "GET /api/server/kill", "the newest stayed");
  }),
);
