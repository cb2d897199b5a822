// Quiet hours per push device: inside them only critical alerts (the game down, the disk full) arrive.

import assert from "node:assert/strict";
import { changes, subscribeDevice, withPush } from "../../tests/support/push.ts";
import { inQuietHours, parseQuietHours } from "./quiet.ts";
import { PUSH_MSG } from "../../shared/messages.ts";
import type { ReceivedPush } from "../../tests/fake-push/service.ts";

function hhmm(at: number): string {
  return new Date(at).toISOString().slice(11, 16);
}

Deno.test("quiet hours: a window over midnight, in the device's own time zone", () => {
  const at = Date.parse("2026-03-10T23:30:00Z");
  assert.equal(inQuietHours({ start: "22:00", end: "07:00", tz: "UTC" }, at), true);
  assert.equal(
    inQuietHours({ start: "22:00", end: "07:00", tz: "UTC" }, Date.parse("2026-03-10T07:00:00Z")),
    false,
  );
  // 23:30 UTC is 10:30 the next morning in Sydney (AEDT, +11): not quiet there.
  assert.equal(inQuietHours({ start: "22:00", end: "07:00", tz: "Australia/Sydney" }, at), false);
  assert.equal(inQuietHours({ start: "10:00", end: "11:00", tz: "Australia/Sydney" }, at), true);
  assert.equal(parseQuietHours({ start: "25:00", end: "07:00", tz: "UTC" }), null);
  assert.equal(parseQuietHours({ start: "22:00", end: "07:00", tz: "Mars/Olympus" }), null);
  assert.equal(parseQuietHours({ start: "22:00", end: "22:00", tz: "UTC" }), null);
});

Deno.test(
  "in its quiet hours a device gets crashes but not starts; others get both",
  withPush(async (p, fake) => {
    const c = await p.login();
    const quiet = await subscribeDevice(c, fake, { events: ["started", "crashed"] });
    const loud = await subscribeDevice(c, fake, { events: ["started", "crashed"] });
    const now = Date.now();
    const hours = { start: hhmm(now - 3600_000), end: hhmm(now + 3600_000), tz: "UTC" };
    const r = await c.post(`/api/push/devices/${quiet.deviceId}`, { quiet_hours: hours });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.quiet_hours, hours);
    const bad = await c.post(`/api/push/devices/${quiet.deviceId}`, {
      quiet_hours: { start: "7", end: "8", tz: "UTC" },
    });
    assert.deepEqual([bad.status, bad.body], [400, PUSH_MSG.quietHoursInvalid]);

    p.ctx.bus.emit("server.status", changes.started());
    p.ctx.bus.emit("server.status", changes.crashed());
    await p.ctx.push.notifier.settled();
    const kinds = (id: string) => fake.delivered(id).map((m: ReceivedPush) => JSON.parse(m.payload!).kind);
    assert.deepEqual(kinds(quiet.sub.id), ["crashed"]);
    assert.deepEqual(kinds(loud.sub.id), ["started", "crashed"]);

    const off = await c.post(`/api/push/devices/${quiet.deviceId}`, { quiet_hours: null });
    assert.equal(off.body.quiet_hours, null);
  }),
);
