// /api/push: the public key, each user's own devices (subscribe, list, rename, choose events, remove),
// and what happens to devices when users are deleted or change their password.

import assert from "node:assert/strict";
import { ADMIN_PASSWORD, type Client, type TestPanel } from "../../tests/support/harness.ts";
import { subscribeDevice, withPush } from "../../tests/support/push.ts";
import type { FakePushService } from "../../tests/fake-push/service.ts";
import { PUSH_MSG } from "../../shared/messages.ts";
import { DEFAULT_PUSH_EVENTS } from "../../shared/api.ts";
import { MAX_DEVICES_PER_USER } from "../push/service.ts";

const bob = {
  username: "bob",
  role: "admin",
  email: "bob@example.org",
  password: "bob password",
  password_confirmation: "bob password",
};

async function addBob(p: TestPanel): Promise<{ admin: Client; bob: Client }> {
  const admin = await p.login();
  assert.equal((await admin.post("/api/user/add", bob)).status, 200);
  return { admin, bob: await p.login("bob", bob.password) };
}

Deno.test(
  "the public key is a P-256 point; the private key is in no answer",
  withPush(async (p) => {
    const c = await p.login();
    const r = await c.get("/api/push/key");
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body), ["publicKey"]);
    const raw = Uint8Array.from(
      atob(r.body.publicKey.replace(/-/g, "+").replace(/_/g, "/")),
      (ch) => ch.charCodeAt(0),
    );
    assert.equal(raw.length, 65);
    assert.equal(raw[0], 4);
    const { privateKey } = JSON.parse(Deno.readTextFileSync(`${p.dataDir}/vapid-keys.json`));
    for (const path of ["/api/push/key", "/api/push/devices", "/api/user/status", "/api/user/list"]) {
      assert.ok(!(await c.get(path)).text.includes(privateKey), path);
    }
    assert.ok(!Deno.readTextFileSync(`${p.dataDir}/panel.log`).includes(privateKey), "not in the log");
  }),
);

Deno.test(
  "subscribe stores the device for the user, with a name from the browser and the default events",
  withPush(async (p, fake) => {
    const c = await p.login();
    const key = (await c.get("/api/push/key")).body.publicKey;
    const { id: _id, ...subscription } = fake.subscribe(key);
    const ua =
      "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36";
    const r = await c.post("/api/push/subscribe", { subscription }, { headers: { "User-Agent": ua } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.name, "Chrome on Android");
    assert.deepEqual(r.body.events, [...DEFAULT_PUSH_EVENTS]);
    assert.equal(r.body.endpoint, subscription.endpoint);
    assert.equal(r.body.last_success_at, null);
    const list = await c.get("/api/push/devices");
    assert.deepEqual(list.body, [r.body]);
    assert.ok(!("p256dh" in r.body) && !("auth" in r.body), "the browser's keys are not echoed");
  }),
);

Deno.test(
  "subscribe refuses what no browser would send, with a clear message, and stores nothing",
  withPush(async (p, fake) => {
    const c = await p.login();
    const key = (await c.get("/api/push/key")).body.publicKey;
    const { id: _id, ...good } = fake.subscribe(key);
    const offCurve = "BA" + "A".repeat(85); // 65 bytes starting 0x04, but not a point on P-256
    const cases: [unknown, string][] = [
      [{}, PUSH_MSG.subscriptionRequired],
      [{ subscription: "x" }, PUSH_MSG.subscriptionRequired],
      [
        { subscription: { ...good, endpoint: good.endpoint.replace("https:", "http:") } },
        PUSH_MSG.endpointInvalid,
      ],
      [{ subscription: { ...good, endpoint: "https://user:pw@push.example/x" } }, PUSH_MSG.endpointInvalid],
      [{ subscription: { ...good, endpoint: "not a url" } }, PUSH_MSG.endpointInvalid],
      [
        { subscription: { ...good, endpoint: "https://push.example/" + "x".repeat(3000) } },
        PUSH_MSG.endpointInvalid,
      ],
      [{ subscription: { ...good, keys: undefined } }, PUSH_MSG.keysInvalid],
      [{ subscription: { ...good, keys: { ...good.keys, p256dh: "abc" } } }, PUSH_MSG.keysInvalid],
      [{ subscription: { ...good, keys: { ...good.keys, p256dh: offCurve } } }, PUSH_MSG.keysInvalid],
      [{ subscription: { ...good, keys: { ...good.keys, auth: "AAAA" } } }, PUSH_MSG.keysInvalid],
      [{ subscription: good, name: "" }, PUSH_MSG.nameInvalid(60)],
      [{ subscription: good, name: "x".repeat(61) }, PUSH_MSG.nameInvalid(60)],
      [
        { subscription: good, name: "bad\nname" },
        "A device name must be one line without control or text-direction characters.",
      ],
      [
        { subscription: good, name: "evil\u202Egnp.exe" },
        "A device name must be one line without control or text-direction characters.",
      ],
      [{ subscription: good, events: ["exploded"] }, PUSH_MSG.eventsInvalid],
      [{ subscription: good, events: "crashed" }, PUSH_MSG.eventsInvalid],
    ];
    for (const [body, message] of cases) {
      const r = await c.post("/api/push/subscribe", body);
      assert.deepEqual([r.status, r.body], [400, message], JSON.stringify(body).slice(0, 200));
    }
    assert.equal(
      (await c.request("POST", "/api/push/subscribe", { body: JSON.stringify({ subscription: good }) }))
        .status,
      415,
    );
    assert.deepEqual((await c.get("/api/push/devices")).body, []);
  }),
);

Deno.test(
  "rename a device and choose its events; only known events, only your own devices",
  withPush(async (p, fake) => {
    const { admin, bob: b } = await addBob(p);
    const { deviceId } = await subscribeDevice(admin, fake, { name: "Desk" });
    const r = await admin.post(`/api/push/devices/${deviceId}`, {
      name: "  Phone  ",
      events: ["started", "crashed", "started"],
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.name, "Phone");
    assert.deepEqual(r.body.events, ["started", "crashed"]);
    assert.deepEqual((await admin.post(`/api/push/devices/${deviceId}`, { events: [] })).body.events, []);
    assert.deepEqual(
      await admin.post(`/api/push/devices/${deviceId}`, { events: ["x"] }).then((x) => [x.status, x.body]),
      [400, PUSH_MSG.eventsInvalid],
    );
    for (
      const path of [`/api/push/devices/${deviceId + 100}`, "/api/push/devices/abc", "/api/push/devices/1e3"]
    ) {
      assert.deepEqual(await admin.post(path, { name: "x" }).then((x) => [x.status, x.body]), [
        404,
        PUSH_MSG.deviceNotFound,
      ], path);
    }
    // Bob cannot see, rename, test or remove the admin's device.
    assert.deepEqual((await b.get("/api/push/devices")).body, []);
    assert.equal((await b.post(`/api/push/devices/${deviceId}`, { name: "mine" })).status, 404);
    assert.equal((await b.post("/api/push/unsubscribe", { id: deviceId })).status, 404);
    assert.equal((await b.post("/api/push/test", { id: deviceId })).status, 404);
    assert.equal((await admin.get("/api/push/devices")).body[0].name, "Phone");
  }),
);

Deno.test(
  "unsubscribe by endpoint (this browser) or by id (the device list)",
  withPush(async (p, fake) => {
    const c = await p.login();
    const one = await subscribeDevice(c, fake);
    const two = await subscribeDevice(c, fake);
    assert.equal((await c.get("/api/push/devices")).body.length, 2);
    const r = await c.post("/api/push/unsubscribe", { endpoint: one.sub.endpoint });
    assert.deepEqual([r.status, r.body], [200, PUSH_MSG.deviceRemoved]);
    assert.deepEqual((await c.post("/api/push/unsubscribe", { endpoint: one.sub.endpoint })).status, 404);
    assert.equal((await c.post("/api/push/unsubscribe", { id: two.deviceId })).status, 200);
    assert.equal((await c.post("/api/push/unsubscribe", {})).status, 404);
    assert.deepEqual((await c.get("/api/push/devices")).body, []);
  }),
);

Deno.test(
  "the same browser subscribing again updates its row; another user signing in there takes it over",
  withPush(async (p, fake) => {
    const { admin, bob: b } = await addBob(p);
    const first = await subscribeDevice(admin, fake, { name: "Shared tablet" });
    const { id: _id, ...subscription } = first.sub;
    const again = await admin.post("/api/push/subscribe", {
      subscription,
      name: "Shared tablet",
      events: ["started"],
    });
    assert.equal(again.body.id, first.deviceId);
    assert.deepEqual(again.body.events, ["started"]);
    const taken = await b.post("/api/push/subscribe", { subscription, name: "Bob's tablet" });
    assert.equal(taken.status, 200);
    assert.deepEqual((await admin.get("/api/push/devices")).body, []);
    assert.equal((await b.get("/api/push/devices")).body[0].name, "Bob's tablet");
  }),
);

Deno.test(
  `a user has at most ${MAX_DEVICES_PER_USER} devices`,
  withPush(async (p, fake) => {
    const c = await p.login();
    for (let i = 0; i < MAX_DEVICES_PER_USER; i++) await subscribeDevice(c, fake);
    const key = (await c.get("/api/push/key")).body.publicKey;
    const { id: _id, ...subscription } = fake.subscribe(key);
    const r = await c.post("/api/push/subscribe", { subscription });
    assert.deepEqual([r.status, r.body], [409, PUSH_MSG.tooManyDevices(MAX_DEVICES_PER_USER)]);
    assert.equal((await c.get("/api/push/devices")).body.length, MAX_DEVICES_PER_USER);
  }),
);

Deno.test(
  "deleting a user deletes their devices; a password change keeps them",
  withPush(async (p, fake: FakePushService) => {
    const { admin, bob: b } = await addBob(p);
    await subscribeDevice(b, fake);
    await subscribeDevice(admin, fake);
    const changed = await admin.post("/api/user/password", {
      old_password: ADMIN_PASSWORD,
      new_password: "another one",
      new_password_confirmation: "another one",
    });
    assert.equal(changed.status, 200);
    assert.equal((await admin.get("/api/push/devices")).body.length, 1, "alerts survive a password change");
    assert.equal(p.ctx.push.store.count(), 2);
    assert.equal((await admin.post("/api/user/remove", { username: "bob" })).status, 200);
    assert.equal(p.ctx.push.store.count(), 1, "bob's device went with bob");
  }),
);

Deno.test(
  "the test notification without devices says what to do",
  withPush(async (p) => {
    const c = await p.login();
    const r = await c.post("/api/push/test", {});
    assert.deepEqual([r.status, r.body], [400, PUSH_MSG.noDevices]);
  }),
);

Deno.test(
  "the push routes are in the route table (so the 401/403 guard tests cover them)",
  withPush(async (p) => {
    const table = p.routes.map((r) => `${r.method} ${r.path}`);
    for (
      const r of [
        "GET /api/push/key",
        "GET /api/push/devices",
        "POST /api/push/subscribe",
        "POST /api/push/unsubscribe",
        "POST /api/push/devices/:id",
        "POST /api/push/test",
      ]
    ) assert.ok(table.includes(r), r);
    const c = await p.login();
    const r = await c.post("/api/push/test", {}, { crossSite: true });
    assert.equal(r.status, 403, "another site cannot make the panel send pushes");
  }),
);
