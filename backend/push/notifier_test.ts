// The notifier against the fake push service: real status events on a real panel's bus become
// encrypted, VAPID-signed pushes that the fake service verifies and decrypts.

import assert from "node:assert/strict";
import { changes, subscribeDevice, withPush } from "../../tests/support/push.ts";
import { titleOn } from "../../tests/support/alerts.ts";
import { payloadFor, tagOf } from "./notifier.ts";
import { alertOf } from "../alerts/game.ts";
import type { PushPayload } from "../../shared/api.ts";
import { PUSH_MSG } from "../../shared/messages.ts";
import type { ReceivedPush } from "../../tests/fake-push/service.ts";

function payloadOf(r: ReceivedPush): PushPayload {
  return JSON.parse(r.payload!);
}

Deno.test(
  "each kind of status change reaches the devices that want it, signed and encrypted",
  withPush(async (p, fake) => {
    const c = await p.login();
    const all = await subscribeDevice(c, fake, { events: ["started", "stopped", "crashed"] });
    const crashesOnly = await subscribeDevice(c, fake, { events: ["crashed"] });
    const none = await subscribeDevice(c, fake, { events: [] });

    // (A kill right after the stop would be merged with it: alerts/dispatcher_test.ts covers merging.)
    for (const kind of ["started", "stopped", "crashed"] as const) {
      p.ctx.bus.emit("server.status", changes[kind]());
    }
    p.ctx.bus.emit("server.status", changes.starting()); // not an alert
    await p.ctx.push.notifier.settled();

    const got = fake.delivered(all.sub.id).map(payloadOf);
    assert.deepEqual(got.map((m) => [m.kind, m.title]), [
      ["started", titleOn(p, PUSH_MSG.titleStarted)],
      ["stopped", titleOn(p, PUSH_MSG.titleStopped)],
      ["crashed", titleOn(p, PUSH_MSG.titleCrashed)],
    ], "in order, one per change");
    assert.equal(got[0].body, "my-base.zip is running on port 34197 (Factorio 2.0.28).");
    assert.equal(got[1].body, "Saved and stopped from the panel.");
    assert.equal(got[2].body, "Exit code 1. Last log line: Error Util.cpp:83: Out of memory");
    assert.ok(got.every((m) => m.url === "/"), "a click opens Controls");
    assert.deepEqual(fake.delivered(crashesOnly.sub.id).map((r) => payloadOf(r).kind), ["crashed"]);
    assert.deepEqual(fake.received().filter((r) => r.subscriptionId === none.sub.id), []);

    const crash = fake.delivered(all.sub.id)[2];
    assert.deepEqual(crash.claims?.sub, "mailto:ops@example.org");
    assert.equal(crash.claims?.aud, fake.origin);
    assert.equal(crash.urgency, "high");
    assert.equal(crash.ttl, 24 * 3600);
    const started = fake.delivered(all.sub.id)[0];
    assert.deepEqual([started.urgency, started.ttl], ["normal", 3600]);

    const device = (await c.get("/api/push/devices")).body.find((d: { id: number }) => d.id === all.deviceId);
    assert.ok(device.last_success_at, "the last delivery is recorded");
  }),
);

Deno.test(
  "every user's devices get the alert",
  withPush(async (p, fake) => {
    const admin = await p.login();
    await admin.post("/api/user/add", {
      username: "eve",
      role: "admin",
      email: "e@x.y",
      password: "pw".repeat(5),
      password_confirmation: "pw".repeat(5),
    });
    const eve = await p.login("eve", "pw".repeat(5));
    const a = await subscribeDevice(admin, fake);
    const e = await subscribeDevice(eve, fake);
    p.ctx.bus.emit("server.status", changes.crashed());
    await p.ctx.push.notifier.settled();
    assert.equal(fake.delivered(a.sub.id).length, 1);
    assert.equal(fake.delivered(e.sub.id).length, 1);
  }),
);

Deno.test("a crash alert names the signal, and quotes only the last non-empty log line, shortened", () => {
  const long = "E".repeat(500);
  const bySignal = alertOf(
    changes.crashed({ code: null, signal: "SIGSEGV", last_lines: ["first", long, "  "] }),
  )!;
  assert.match(bySignal.body, /^Ended by signal SIGSEGV\. Last log line: E+…$/);
  assert.ok(bySignal.body.length < 260);
  const quiet = alertOf(changes.crashed({ code: 3, last_lines: [] }))!;
  assert.equal(quiet.body, "Exit code 3.");
  assert.equal(alertOf(changes.killed())!.body, "Killed from the panel: the game was not saved.");
  assert.equal(tagOf("crashed"), "factorio-server-crash", "the tag crash alerts always had");
  assert.equal(tagOf("started"), "factorio-started", "alerts of one kind replace each other, not others");
  const payload = payloadFor({
    ...bySignal,
    at: "t",
    url: "/",
    count: 1,
    audience: ["crashed"],
    server: null,
  });
  assert.ok(
    new TextEncoder().encode(JSON.stringify(payload)).length < 1024,
    "far below the 4 KiB push limit",
  );
});

Deno.test("only starts, stops and crashes are alerts", () => {
  assert.equal(alertOf(changes.starting()), null);
  assert.equal(alertOf({ ...changes.started(), previous: "running" }), null);
  assert.equal(alertOf(changes.started())?.kind, "started");
  assert.equal(alertOf(changes.stopped())?.kind, "stopped");
  assert.equal(alertOf(changes.killed())?.kind, "stopped");
  assert.equal(alertOf(changes.crashed())?.kind, "crashed");
  assert.equal(
    alertOf({ ...changes.crashed(), previous: "starting" })?.kind,
    "start-failed",
    "a start that never hosted",
  );
});

Deno.test(
  "subscriptions the push service reports gone (404, 410) are removed",
  withPush(async (p, fake) => {
    const c = await p.login();
    const gone410 = await subscribeDevice(c, fake);
    const gone404 = await subscribeDevice(c, fake);
    const fine = await subscribeDevice(c, fake);
    fake.expire(gone410.sub.id);
    fake.respondWith(gone404.sub.id, 404);
    p.ctx.bus.emit("server.status", changes.crashed());
    await p.ctx.push.notifier.settled();
    assert.deepEqual((await c.get("/api/push/devices")).body.map((d: { id: number }) => d.id), [
      fine.deviceId,
    ]);
    p.ctx.bus.emit("server.status", changes.stopped());
    await p.ctx.push.notifier.settled();
    assert.equal(
      fake.received().filter((r) => r.subscriptionId !== fine.sub.id).length,
      2,
      "no more tries at gone devices",
    );
    assert.equal(fake.delivered(fine.sub.id).length, 2);
  }),
);

Deno.test(
  "failures are retried with backoff, in order, and logged; a refused message is not retried",
  withPush(async (p, fake) => {
    const c = await p.login();
    const flaky = await subscribeDevice(c, fake);
    const refusing = await subscribeDevice(c, fake);
    fake.respondWith(flaky.sub.id, 503, 2, { "Retry-After": "0" });
    fake.respondWith(refusing.sub.id, 400, 1);
    p.ctx.bus.emit("server.status", changes.crashed());
    p.ctx.bus.emit("server.status", changes.stopped());
    await p.ctx.push.notifier.settled();

    const flakyTries = fake.received().filter((r) => r.subscriptionId === flaky.sub.id);
    assert.deepEqual(flakyTries.map((r) => r.status), [503, 503, 201, 201]);
    assert.deepEqual(
      fake.delivered(flaky.sub.id).map((r) => payloadOf(r).kind),
      ["crashed", "stopped"],
      "order kept",
    );
    assert.ok(flakyTries[1].receivedAt - flakyTries[0].receivedAt >= 20, "waited before retrying");

    const refusedTries = fake.received().filter((r) => r.subscriptionId === refusing.sub.id);
    assert.deepEqual(
      refusedTries.map((r) => r.status),
      [400, 201],
      "the refused crash alert is dropped, the stop alert goes out",
    );

    const log = Deno.readTextFileSync(`${p.dataDir}/panel.log`);
    assert.match(log, /Will retry a push notification/);
    assert.match(log, /Push notification failed.*push service answered 400/);
    assert.ok(!log.includes(flaky.sub.endpoint), "endpoints (capabilities) stay out of the log");
  }),
);

Deno.test(
  "a device that keeps failing is given up after the last retry, and its error is shown",
  withPush(async (p, fake) => {
    const c = await p.login();
    const broken = await subscribeDevice(c, fake);
    fake.respondWith(broken.sub.id, 500);
    p.ctx.bus.emit("server.status", changes.crashed());
    await p.ctx.push.notifier.settled();
    assert.equal(fake.received().length, 4, "one try and three retries");
    assert.match(Deno.readTextFileSync(`${p.dataDir}/panel.log`), /Gave up on a push notification/);
    const [device] = (await c.get("/api/push/devices")).body;
    assert.match(device.last_error, /push service answered 500/);
  }),
);

Deno.test(
  "the status change is never held up: listeners after the notifier run while the push service is unreachable",
  withPush(async (p, fake) => {
    const c = await p.login();
    const dead = await subscribeDevice(c, fake);
    await fake.close(); // nobody answers at that address any more
    const heard: string[] = [];
    p.ctx.bus.on("server.status", ({ status }) => heard.push(status.status));
    p.ctx.bus.emit("server.status", changes.crashed());
    assert.deepEqual(heard, ["stopped"], "the emitter went on to the next listener at once");
    await p.ctx.push.notifier.settled();
    const [device] = (await c.get("/api/push/devices")).body;
    assert.equal(device.id, dead.deviceId, "unreachable is not gone: the device stays");
    assert.match(device.last_error, /unreachable/);
  }),
);

Deno.test(
  "Send test notification reports the push service's answer per device",
  withPush(async (p, fake) => {
    const c = await p.login();
    const ok = await subscribeDevice(c, fake, { name: "Phone" });
    const gone = await subscribeDevice(c, fake, { name: "Old laptop" });
    fake.expire(gone.sub.id);
    const one = await c.post("/api/push/test", { id: ok.deviceId });
    assert.deepEqual(one.body, [{
      id: ok.deviceId,
      name: "Phone",
      ok: true,
      status: 201,
      message: "Sent to Phone (push service answered 201).",
    }]);
    const [m] = fake.delivered(ok.sub.id).map(payloadOf);
    assert.deepEqual([m.kind, m.title, m.body, m.url], [
      "test",
      PUSH_MSG.titleTest,
      PUSH_MSG.bodyTest,
      "/notifications",
    ]);
    const all = await c.post("/api/push/test", {});
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.map((r: { ok: boolean; status: number }) => [r.ok, r.status]), [[true, 201], [
      false,
      410,
    ]]);
    assert.match(all.body[1].message, /^Old laptop: push service answered 410.*The device was removed/);
    assert.deepEqual((await c.get("/api/push/devices")).body.map((d: { name: string }) => d.name), ["Phone"]);
  }),
);

Deno.test(
  "a new game version reaches only the devices that opted in",
  withPush(async (p, fake) => {
    const c = await p.login();
    const wants = await subscribeDevice(c, fake, { events: ["factorio-update"] });
    const others = await subscribeDevice(c, fake, { events: ["started", "stopped", "crashed"] });
    p.ctx.bus.emit("factorio.versions", {
      kind: "update-available",
      info: { channel: "stable", current: "2.0.76", latest: "2.0.77", checkedAt: "2026-01-01T00:00:00.000Z" },
    });
    p.ctx.bus.emit("factorio.versions", { kind: "changed" }); // not an alert
    await p.ctx.push.notifier.settled();
    const got = fake.delivered(wants.sub.id).map(payloadOf);
    assert.deepEqual(got.map((m) => [m.kind, m.title, m.body, m.url]), [
      [
        "factorio-update",
        PUSH_MSG.titleUpdate,
        "Factorio 2.0.77 is out (stable); the server has 2.0.76. Update it from Controls.",
        "/",
      ],
    ]);
    assert.deepEqual(fake.received().filter((r) => r.subscriptionId === others.sub.id), []);
  }),
);
