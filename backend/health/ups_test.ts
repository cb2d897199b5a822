// The UPS estimate: the clocks' answers as the simulator gives them (which follows the real game), and the
// estimate from readings: its error bound, pauses, a game that does not answer, a restart.

import assert from "node:assert/strict";
import { type Clock, parseMapAge, parseTick, readClock, UpsEstimator } from "./ups.ts";
import { hostGame } from "../../tests/fake-factorio/hosted.ts";
import { LUA_WARNING } from "../../tests/fake-factorio/server.ts";

/** Feeds readings taken every `stepMs` from `fromMs`, with the clock a function of wall time. */
function feed(
  e: UpsEstimator,
  fromMs: number,
  toMs: number,
  stepMs: number,
  value: (ms: number) => number | null,
) {
  for (let t = fromMs; t <= toMs; t += stepMs) e.add({ at: t, value: value(t) });
}

/** What /time would say at wall time `ms` for a game running at `ups` since 0 with age `age0` then. */
const ageAt = (ups: number, age0 = 1000) => (ms: number) => Math.floor(age0 + (ms / 1000) * (ups / 60));

Deno.test("parsing /time and the tick answers", () => {
  assert.equal(parseMapAge("110 hours, 28 minutes and 57 seconds"), 110 * 3600 + 28 * 60 + 57);
  assert.equal(parseMapAge("1 hour and 5 seconds"), 3605);
  assert.equal(parseMapAge("1 second"), 1);
  assert.equal(parseMapAge("0 seconds"), 0);
  assert.equal(parseMapAge("2 days, 1 hour, 1 minute and 1 second"), 2 * 86400 + 3661);
  assert.equal(parseMapAge('Unknown command "time".'), null);
  assert.equal(parseMapAge(""), null);
  assert.equal(parseTick("123456\n"), 123456);
  assert.equal(parseTick(LUA_WARNING), null);
  assert.equal(parseTick(""), null);
});

Deno.test("map age: 60 s of readings every 10 s are within 1 UPS, settled from 50 s on", () => {
  for (const ups of [60, 59, 45, 30, 12]) {
    for (const offset of [0, 130, 470, 990]) {
      const e = new UpsEstimator("map-age");
      feed(e, offset, offset + 40_000, 10_000, ageAt(ups));
      const early = e.current();
      assert.equal(early.state, "running");
      if (early.state !== "running") continue;
      assert.equal(early.settled, false, "40 s: ±1.5 UPS, not yet within 2%");
      feed(e, offset + 50_000, offset + 120_000, 10_000, ageAt(ups));
      const r = e.current();
      assert.ok(r.state === "running" && r.settled, JSON.stringify(r));
      if (r.state !== "running") continue;
      assert.ok(Math.abs(r.ups - ups) <= r.error, `${ups} UPS read as ${r.ups} ± ${r.error}`);
      assert.ok(r.error <= 60 / 60, `a 60 s window: ±${r.error}`);
    }
  }
});

Deno.test("a clock that stands still is a pause; the estimate after it leaves the pause out", () => {
  for (const clock of ["map-age", "tick"] as Clock[]) {
    const perSecond = clock === "tick" ? 60 : 1;
    const step = clock === "tick" ? 1000 : 10_000;
    const e = new UpsEstimator(clock);
    const running = (ms: number) => Math.floor(100_000 + (ms / 1000) * perSecond);
    feed(e, 0, 120_000, step, running);
    assert.equal(e.current().state, "running");
    // Paused (auto_pause) from 125 s to 300 s: the clock stands at its value of 125 s.
    const stood = running(125_000);
    feed(e, 120_000 + step, 300_000, step, (ms) => (ms < 125_000 ? running(ms) : stood));
    const paused = e.current();
    assert.equal(paused.state, "paused");
    if (paused.state === "paused") {
      assert.ok(paused.since >= 125_000 && paused.since <= 125_000 + step, String(paused.since));
    }
    // Going again within the next step: the readings after it give 60 UPS, not an average with the pause.
    const resume = 300_000 + step / 2;
    const again = (
      ms: number,
    ) => (ms < resume ? stood : stood + Math.floor(((ms - resume) / 1000) * perSecond));
    feed(e, 300_000 + step, 300_000 + 3 * step, step, again);
    const r = e.current();
    assert.equal(r.state, "running", JSON.stringify(r));
    if (r.state === "running") assert.ok(Math.abs(r.ups - 60) <= r.error, JSON.stringify(r));
  }
});

Deno.test("no answer: the newest readings unanswered say since when; answers in between are skipped", () => {
  const e = new UpsEstimator("tick");
  feed(e, 0, 5000, 1000, (ms) => (ms / 1000) * 60);
  e.add({ at: 6000, value: null });
  feed(e, 7000, 12_000, 1000, (ms) => (ms / 1000) * 60);
  const r = e.current();
  assert.ok(r.state === "running" && Math.abs(r.ups - 60) < 0.2, JSON.stringify(r));
  e.add({ at: 13_000, value: null });
  e.add({ at: 14_000, value: null });
  assert.deepEqual(e.current(), { state: "no-answer", since: 13_000 });
  // A hung game that comes back: its clock stood still while it hung, so the window's UPS shows the loss.
  e.add({ at: 15_000, value: (12_000 / 1000) * 60 + 30 });
  const after = e.current();
  assert.ok(after.state === "running" && after.ups < 55, JSON.stringify(after));
});

Deno.test("a clock that goes back (a restart, another map) starts the estimate over", () => {
  const e = new UpsEstimator("map-age");
  feed(e, 0, 120_000, 10_000, ageAt(60, 5000));
  e.add({ at: 130_000, value: 12 });
  assert.deepEqual(e.current(), { state: "unknown" });
  e.add({ at: 140_000, value: 22 });
  const r = e.current();
  assert.ok(r.state === "running" && r.spanMs === 10_000, JSON.stringify(r));
});

Deno.test("slow readings of a game that crawls are not taken for a pause, and a long window stays bounded", () => {
  const e = new UpsEstimator("tick");
  // 0.5 UPS read every 5 s: the tick moves between every two readings.
  feed(e, 0, 60_000, 5000, (ms) => Math.floor((ms / 1000) * 0.5));
  const r = e.current();
  assert.ok(r.state === "running" && Math.abs(r.ups - 0.5) < 0.2, JSON.stringify(r));
  // A long pause read every 250 ms keeps its start, not every reading.
  feed(e, 60_250, 600_000, 250, () => 30);
  assert.deepEqual(e.current(), { state: "paused", since: 60_000 });
  assert.ok(e.size <= 1 + 12_000 / 250 + 1, `${e.size} readings kept`);
});

Deno.test("the clocks read from the simulated game: the tick past the achievements warning (2.0 answers it, 2.1 does not), slowed, paused, hung", async () => {
  for (const version of ["2.0", "2.1"] as const) {
    const game = await hostGame(version, { tick: (3600 + 5) * 60, autoPause: false });
    const rcon = await game.connect();
    try {
      const exec = (c: string) => rcon.exec(c, 2000);
      const age = await readClock("map-age", exec);
      assert.ok(age.value !== null && age.value >= 3605 && age.value < 3605 + 5, JSON.stringify(age));
      const first = await readClock("tick", exec);
      assert.ok(
        first.value !== null && first.value >= 3605 * 60,
        `the warning was answered by sending again: ${JSON.stringify(first)}`,
      );
      if (version === "2.0") {
        // The 2.0 warning is the RCON answer; nothing on the console.
        assert.ok(!game.game.lines.some((l) => l.includes("[WARNING]")));
      } else {
        await game.game.waitForLine(/\[WARNING\] Using Lua console commands will disable achievements/);
      }

      // 30 UPS, read every 200 ms for 3 s: the tick clock gives it within a fraction of a UPS.
      assert.equal(await exec("/fake-ups 30"), "The game runs at 30 UPS.");
      const e = new UpsEstimator("tick");
      for (let i = 0; i < 15; i++) {
        e.add(await readClock("tick", exec));
        await new Promise((r) => setTimeout(r, 200));
      }
      const slow = e.current();
      assert.ok(slow.state === "running" && Math.abs(slow.ups - 30) < 2, JSON.stringify(slow));

      // Paused: answers come, the tick does not move.
      await exec("/fake-ups 0");
      for (let i = 0; i < 6; i++) {
        e.add(await readClock("tick", exec));
        await new Promise((r) => setTimeout(r, 250));
      }
      assert.equal(e.current().state, "paused");

      // Hung: no answer within the time the reader allows.
      await exec("/fake-ups 60");
      const other = await game.connect();
      void other.exec("/fake-hang 2000", 5000).catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
      const hung = await game.connect();
      e.add(await readClock("tick", (c) => hung.exec(c, 300)));
      hung.close();
      other.close();
      assert.equal(e.current().state, "no-answer");
    } finally {
      rcon.close();
      await game.stop();
    }
  }
});
