import assert from "node:assert/strict";
import { describeCron, nextRuns, parseCron, runsBetween, zonedIso } from "./cron.ts";
import { Invalid } from "../../lib/errors.ts";

Deno.test("cron: plain-language previews", () => {
  assert.equal(describeCron("0 4 * * *"), "every day at 04:00");
  assert.equal(describeCron("* * * * *"), "every minute");
  assert.equal(describeCron("*/15 * * * *"), "every 15 minutes");
  assert.equal(describeCron("0 * * * *"), "every hour");
  assert.equal(describeCron("30 * * * *"), "every hour at minute 30");
  assert.equal(describeCron("30 6 * * 1-5"), "on Monday to Friday at 06:30");
  assert.equal(describeCron("0 3 * * sun"), "on Sunday at 03:00");
  assert.equal(describeCron("0 3,15 * * *"), "every day at 03:00 and 15:00");
  assert.equal(describeCron("0 0 1 * *"), "on day 1 of the month at 00:00");
  assert.equal(describeCron("0 0 * 1 *"), "every day at 00:00 in January");
  // Anything the describer does not know stays as written rather than being described wrongly.
  assert.equal(describeCron("0 0 1-7 * 1/2"), "0 0 1-7 * 1/2");
});

Deno.test("cron: bad expressions are refused with a reason", () => {
  assert.throws(
    () => parseCron("61 * * * *", "UTC"),
    (e) => e instanceof Invalid && /minute/.test(e.message),
  );
  assert.throws(() => parseCron("* * * *", "UTC"), (e) => e instanceof Invalid && /5 fields/.test(e.message));
  assert.throws(
    () => parseCron("0 * * * * *", "UTC"),
    (e) => e instanceof Invalid && /5 fields/.test(e.message),
  );
  assert.throws(() => parseCron(42, "UTC"), Invalid);
});

Deno.test("cron: next runs across the spring DST change keep the local time", () => {
  // Europe/Berlin moves from +01:00 to +02:00 at 02:00 on 2026-03-29.
  const from = Date.parse("2026-03-27T12:00:00Z");
  const runs = nextRuns("0 4 * * *", "Europe/Berlin", from, 3).map((d) => zonedIso(d, "Europe/Berlin"));
  assert.deepEqual(runs, [
    "2026-03-28T04:00:00+01:00",
    "2026-03-29T04:00:00+02:00",
    "2026-03-30T04:00:00+02:00",
  ]);
  const utc = nextRuns("0 4 * * *", "Europe/Berlin", from, 3).map((d) => d.toISOString());
  assert.deepEqual(utc, ["2026-03-28T03:00:00.000Z", "2026-03-29T02:00:00.000Z", "2026-03-30T02:00:00.000Z"]);
});

Deno.test("cron: a time that does not exist on the DST day runs once, right after the gap", () => {
  const from = Date.parse("2026-03-28T12:00:00Z");
  const runs = nextRuns("30 2 * * *", "Europe/Berlin", from, 2).map((d) => zonedIso(d, "Europe/Berlin"));
  assert.equal(runs.length, 2);
  assert.equal(runs[0].slice(0, 10), "2026-03-29");
  assert.equal(runs[1], "2026-03-30T02:30:00+02:00");
});

Deno.test("cron: autumn DST change: 02:30 runs once on the repeated hour's day", () => {
  // Europe/Berlin goes back from +02:00 to +01:00 at 03:00 on 2026-10-25: 02:30 happens twice.
  const from = Date.parse("2026-10-24T12:00:00Z");
  const runs = runsBetween("30 2 * * *", "Europe/Berlin", from, Date.parse("2026-10-26T12:00:00Z"));
  const onDay = runs.map((d) => zonedIso(d, "Europe/Berlin")).filter((s) => s.startsWith("2026-10-25"));
  assert.equal(onDay.length, 1, `one run on the day the clock goes back, got ${onDay}`);
});

Deno.test("cron: runs between two times (missed runs)", () => {
  const from = Date.parse("2026-01-01T00:00:00Z");
  const runs = runsBetween("*/10 * * * *", "UTC", from, from + 3600_000);
  assert.equal(runs.length, 6);
  assert.equal(runs[0].toISOString(), "2026-01-01T00:10:00.000Z");
  assert.equal(runs.at(-1)!.toISOString(), "2026-01-01T01:00:00.000Z");
  assert.equal(runsBetween("0 4 * * *", "UTC", from, from + 3600_000).length, 0);
});

Deno.test("cron: zonedIso in UTC and a half-hour zone", () => {
  const d = new Date("2026-06-01T10:15:00Z");
  assert.equal(zonedIso(d, "UTC"), "2026-06-01T10:15:00+00:00");
  assert.equal(zonedIso(d, "Asia/Kolkata"), "2026-06-01T15:45:00+05:30");
  assert.equal(zonedIso(d, "America/New_York"), "2026-06-01T06:15:00-04:00");
});
