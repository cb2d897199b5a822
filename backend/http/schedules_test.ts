// Schedules through the API, with the simulator as the game and a clock the test moves: countdown chat
// lines at their offsets, conditions on players online, missed runs at start-up, and bad input.

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { type GamePanel, installGame, startGame, withGamePanel } from "../../tests/support/game.ts";
import type { Client } from "../../tests/support/harness.ts";
import { TestClock } from "../../tests/support/clock.ts";
import { withModPanel } from "../../tests/support/modpanel.ts";
import type { Schedule } from "../../shared/backups.ts";

/** Collects the game's output lines from now on and waits for one matching a pattern. */
function gameLines(p: GamePanel) {
  const lines: string[] = [];
  p.ctx.bus.on("server.log", ({ line }) => lines.push(line));
  return {
    lines,
    async waitFor(re: RegExp, count = 1, timeoutMs = 20_000): Promise<string[]> {
      const deadline = Date.now() + timeoutMs;
      while (lines.filter((l) => re.test(l)).length < count) {
        if (Date.now() > deadline) {
          throw new Error(`no ${count}x ${re} in the game log:\n${lines.join("\n")}`);
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      return lines.filter((l) => re.test(l));
    },
  };
}

async function create(c: Client, body: Record<string, unknown>): Promise<Schedule> {
  const r = await c.post("/api/schedules", body);
  assert.equal(r.status, 201, r.text);
  return r.body;
}

async function get(c: Client, id: number): Promise<Schedule> {
  const r = await c.get(`/api/schedules/${id}`);
  assert.equal(r.status, 200, r.text);
  return r.body;
}

Deno.test("a countdown warning puts its chat lines in the game log at the right offsets", async () => {
  const clock = new TestClock(Date.parse("2026-06-01T10:00:30Z"));
  await withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c, { savefile: "world.zip" });
    const log = gameLines(p);
    const s = await create(c, {
      name: "Nightly restart",
      cron: "0 4 * * *",
      condition: "always",
      enabled: true,
      tasks: [
        { type: "warn", delay_s: 0, text: "Server restarts in {time}", countdown_s: 300 },
        { type: "save", delay_s: 5 },
      ],
    });
    assert.equal(s.description, "every day at 04:00");
    assert.deepEqual(s.next_runs, [
      "2026-06-02T04:00:00+00:00",
      "2026-06-03T04:00:00+00:00",
      "2026-06-04T04:00:00+00:00",
    ]);

    const r = await c.post(`/api/schedules/${s.id}/run`, {});
    assert.equal(r.status, 202, r.text);
    assert.equal(r.body.result, "running");
    const t0 = clock.now();
    const chat = /\[CHAT\] <server>: Server restarts in (.+)$/;
    const seen: [number, string][] = [];
    for (let i = 1; i <= 5; i++) {
      // The task sends a line, then sleeps until the next one is due: read the line, then move the clock.
      await clock.waitForSleeper("warn");
      const lines = await log.waitFor(chat, i);
      seen.push([(clock.now() - t0) / 1000, chat.exec(lines[i - 1])![1]]);
      clock.fire("warn");
    }
    assert.deepEqual(seen, [[0, "5 minutes"], [180, "2 minutes"], [240, "1 minute"], [270, "30 seconds"], [
      290,
      "10 seconds",
    ]]);
    // The countdown ends at 300 s; the save waits its own 5 s delay.
    await clock.waitForSleeper("delay");
    assert.equal((clock.now() - t0) / 1000, 300);
    clock.fire("delay");
    await p.ctx.schedules.settled(s.id);
    const run = (await get(c, s.id)).last_runs[0];
    assert.equal(run.result, "ok", run.output);
    assert.equal(run.trigger, "manual");
    assert.match(run.output, /\[\+0s\] warn: warned players 5 times\n\[\+305s\] save: saved world\.zip/);
    await log.waitFor(/Saving finished/);
  }, { clock, args: ["--time-zone", "UTC"] })();
});

Deno.test("conditions: players online, nobody online; skipped runs are recorded", async () => {
  const clock = new TestClock(Date.parse("2026-06-01T10:00:30Z"));
  await withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c, { savefile: "world.zip" });
    const task = [{ type: "command", delay_s: 0, text: "/players online count" }];
    const online = await create(c, {
      name: "When playing",
      cron: "* * * * *",
      condition: "players-online",
      enabled: true,
      tasks: task,
    });
    const empty = await create(c, {
      name: "When empty",
      cron: "* * * * *",
      condition: "empty",
      enabled: true,
      tasks: task,
    });
    const tick = async () => {
      await clock.waitForSleeper("cron");
      clock.fire("cron");
      await clock.waitForSleeper("cron"); // the loop went round: due runs are launched
      await p.ctx.schedules.settled(online.id);
      await p.ctx.schedules.settled(empty.id);
    };

    await tick();
    let a = (await get(c, online.id)).last_runs[0];
    let b = (await get(c, empty.id)).last_runs[0];
    assert.equal(a.result, "skipped");
    assert.equal(a.output, "Skipped: nobody is online.");
    assert.equal(b.result, "ok", b.output);
    assert.match(b.output, /Online players \(0\)/);

    await p.ctx.game.rcon("/fake-join alice");
    await tick();
    a = (await get(c, online.id)).last_runs[0];
    b = (await get(c, empty.id)).last_runs[0];
    assert.equal(a.result, "ok", a.output);
    assert.match(a.output, /Online players \(1\)/);
    assert.equal(b.result, "skipped");
    assert.equal(b.output, "Skipped: 1 player is online.");
    assert.equal((await get(c, online.id)).last_runs.length, 2);
  }, { clock, args: ["--time-zone", "UTC"] })();
});

Deno.test("a failed task stops the run unless it continues on failure, and alerts", async () => {
  const clock = new TestClock(Date.parse("2026-06-01T10:00:30Z"));
  await withGamePanel(async (p) => {
    const alerts: string[] = [];
    p.ctx.bus.on("alert", (a) => void (a.kind === "task-failed" && alerts.push(a.title)));
    const c = await p.login();
    const s = await create(c, {
      name: "Broken",
      cron: "0 4 * * *",
      condition: "always",
      enabled: false,
      tasks: [
        { type: "save", delay_s: 0, continue_on_failure: true },
        { type: "backup", delay_s: 0 },
        { type: "command", delay_s: 0, text: "/time" },
        { type: "backup", delay_s: 0 },
      ],
    });
    assert.deepEqual(s.next_runs, [], "a disabled schedule has no next runs");
    await c.post(`/api/schedules/${s.id}/run`, {});
    await p.ctx.schedules.settled(s.id);
    const run = (await get(c, s.id)).last_runs[0];
    assert.equal(run.result, "failed");
    const lines = run.output.split("\n");
    assert.match(lines[0], /save FAILED: the server is not running/);
    assert.match(lines[1], /backup: backup .*_schedule_world/);
    assert.match(lines[2], /command FAILED/);
    assert.match(lines[3], /stopped here/);
    assert.equal(lines.length, 4, "the last backup did not run");
    assert.equal((await c.get("/api/backups")).body.length, 1);
    assert.deepEqual(alerts, ['Schedule "Broken" failed']);
  }, { clock, args: ["--time-zone", "UTC"] })();
});

Deno.test("missed runs are reported at start-up and run once only when the schedule says so", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-schedules-"));
  const factorio = await installGame();
  const start = Date.parse("2026-06-01T10:00:30Z");
  try {
    let ids: number[] = [];
    await withGamePanel(async (p) => {
      const c = await p.login();
      const tasks = [{ type: "backup", delay_s: 0 }];
      ids = [
        (await create(c, {
          name: "Catch up",
          cron: "0 * * * *",
          condition: "always",
          enabled: true,
          run_missed: true,
          tasks,
        })).id,
        (await create(c, {
          name: "Skip",
          cron: "0 * * * *",
          condition: "always",
          enabled: true,
          run_missed: false,
          tasks,
        })).id,
      ];
    }, { dataDir, factorio, clock: new TestClock(start) })();

    // The panel was down for three hours and a bit: the runs of 11:00, 12:00 and 13:00 were missed.
    await withGamePanel(async (p) => {
      const c = await p.login();
      await p.ctx.schedules.settled(ids[0]);
      const [catchUp, skip] = [await get(c, ids[0]), await get(c, ids[1])];
      assert.deepEqual(catchUp.last_runs.map((r) => [r.trigger, r.result]), [["missed", "ok"], [
        "missed",
        "missed",
      ]]);
      assert.match(
        catchUp.last_runs[1].output,
        /^Missed 3 runs \(the first at 2026-06-01T11:00:00\+00:00\) while the panel was down; running it once now\.$/,
      );
      assert.deepEqual(skip.last_runs.map((r) => r.result), ["missed"]);
      assert.match(skip.last_runs[0].output, /not run/);
      assert.equal((await c.get("/api/backups")).body.length, 1, "one catch-up run, not three");
    }, {
      dataDir,
      factorio,
      clock: new TestClock(start + 3 * 3600_000 + 600_000),
      args: ["--time-zone", "UTC"],
    })();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(factorio.dir, { recursive: true, force: true });
  }
});

Deno.test("the start-up look at missed runs happens on its own, with no schedule route asked", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-schedules-"));
  const factorio = await installGame();
  const start = Date.parse("2026-06-01T10:00:30Z");
  try {
    let id = 0;
    await withGamePanel(async (p) => {
      const c = await p.login();
      const tasks = [{ type: "backup", delay_s: 0 }];
      id = (await create(c, {
        name: "Skip",
        cron: "0 * * * *",
        condition: "always",
        enabled: true,
        run_missed: false,
        tasks,
      })).id;
    }, { dataDir, factorio, clock: new TestClock(start) })();

    await withGamePanel(async (p) => {
      // Read from the database itself: a schedule route would start the look at once.
      const missed = () =>
        p.ctx.db.prepare("SELECT result FROM schedule_runs WHERE schedule_id = ? AND trigger = 'missed'").all(
          id,
        ).length;
      // Due a second after start-up; up to 20 s, so a broken timer fails here instead of hanging.
      for (let i = 0; missed() === 0 && i < 400; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal(missed(), 1, "the missed run of 11:00 is recorded without any request");
    }, { dataDir, factorio, clock: new TestClock(start + 2 * 3600_000), args: ["--time-zone", "UTC"] })();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(factorio.dir, { recursive: true, force: true });
  }
});

Deno.test(
  "schedules: bad input is refused with a clear message and changes nothing",
  withGamePanel(async (p) => {
    const c = await p.login();
    const ok = {
      name: "x",
      cron: "*/5 * * * *",
      condition: "always",
      enabled: true,
      tasks: [{ type: "backup", delay_s: 0 }],
    };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...ok, cron: "61 * * * *" }, /not valid: .*minute/],
      [{ ...ok, cron: "* * *" }, /5 fields/],
      [{ ...ok, condition: "sometimes" }, /condition must be one of/],
      [{ ...ok, tasks: [] }, /at least one task/],
      [{ ...ok, tasks: [{ type: "explode" }] }, /Task 1: the type must be one of/],
      [{ ...ok, tasks: [{ type: "warn", delay_s: 0 }] }, /Task 1: enter the chat text/],
      [{ ...ok, tasks: [{ type: "backup", delay_s: -1 }] }, /delay must be a whole number/],
      [{ ...ok, name: "" }, /Enter a name/],
      // Names and texts reach logs, the chat and the console: a line break would forge a line of its own.
      [
        { ...ok, name: "x\n   1.000 Error Server crashed" },
        /^The name must be one line without control or text-direction characters\.$/,
      ],
      [{ ...ok, name: "x\u202Ey" }, /^The name must be one line/],
      [{
        ...ok,
        tasks: [{ type: "command", delay_s: 0, text: "/save\n  12.345 Error Util.cpp:83: Server crashed" }],
      }, /^Task 1: the text must be one line/],
      [
        { ...ok, tasks: [{ type: "warn", delay_s: 0, text: "Restart \u2067soon" }] },
        /^Task 1: the text must be one line/,
      ],
    ];
    for (const [body, re] of cases) {
      const r = await c.post("/api/schedules", body);
      assert.equal(r.status, 400, `${JSON.stringify(body)} -> ${r.status} ${r.text}`);
      assert.match(r.body, re);
    }
    assert.deepEqual((await c.get("/api/schedules")).body, []);
    assert.equal((await c.post("/api/schedules/99/run", {})).status, 404);
    assert.equal((await c.post("/api/schedules/abc/delete", {})).status, 404);

    const s = await create(c, ok);
    assert.equal(s.description, "every 5 minutes");
    let r = await c.post(`/api/schedules/${s.id}/update`, { ...ok, name: "renamed", enabled: false });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.name, "renamed");
    r = await c.get(`/api/schedules/preview?cron=${encodeURIComponent("30 6 * * 1-5")}`);
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.description, "on Monday to Friday at 06:30");
    assert.equal(r.body.next_runs.length, 3);
    r = await c.post(`/api/schedules/${s.id}/delete`, {});
    assert.equal(r.status, 200);
    assert.deepEqual((await c.get("/api/schedules")).body, []);
  }),
);

Deno.test(
  "an update-mods task installs the portal's newer releases, while the server is stopped",
  withModPanel(async (m) => {
    await m.portalLogin();
    m.addFixture("belt-balancer_2.1.3.zip");
    const s = await create(m.c, {
      name: "Mod updates",
      cron: "0 5 * * 1",
      condition: "always",
      enabled: false,
      tasks: [{ type: "update-mods", delay_s: 0 }],
    });
    assert.equal((await m.c.post(`/api/schedules/${s.id}/run`, {})).status, 202);
    await m.panel.ctx.schedules.settled(s.id);
    const run = (await get(m.c, s.id)).last_runs[0];
    assert.equal(run.result, "ok", run.output);
    assert.match(run.output, /update-mods: updated belt-balancer 2\.1\.3 -> \d+\.\d+\.\d+/);
    const files = readdirSync(m.modsDir).filter((f) => f.startsWith("belt-balancer_"));
    assert.equal(files.length, 1);
    assert.notEqual(files[0], "belt-balancer_2.1.3.zip");
  }),
);
