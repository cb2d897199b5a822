// Alerts per server (issue 49): each push device and channel chooses its servers; an alert about a server
// reaches only those that chose it (or every server), a device only when its user has a role on that
// server, and every message names its server. Server 2 here is a server bus forwarding to the panel bus,
// as the registry wires each server; which servers exist and who sees them are the callbacks the registry
// and the roles provide.

import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { rmSync } from "node:fs";
import { addChannel, pathOf, withAlerts } from "../../tests/support/alerts.ts";
import { changes, pushPanel, subscribeDevice } from "../../tests/support/push.ts";
import { FakePushService, type ReceivedPush } from "../../tests/fake-push/service.ts";
import { startPanel, type TestPanel } from "../../tests/support/harness.ts";
import { userWithRole } from "../../tests/support/roles.ts";
import { EventBus, type ServerRef } from "../lib/events.ts";
import { PUSH_MSG } from "../../shared/messages.ts";
import { SERVERS_MSG } from "../../shared/servers.ts";
import type { PushPayload } from "../../shared/api.ts";

const NAMES: Record<number, string> = { 1: "Main map", 2: "Space map" };

/** Two servers; the viewer (user 2) has a role on server 1 only, the admin on both. */
function twoServers(p: TestPanel): EventBus {
  const exists = (id: number) => id in NAMES;
  const canSee = (userId: number, serverId: number) => serverId === 1 || userId === 1;
  Object.assign(p.ctx.alerts.servers, { serverExists: exists, serverName: (id: number) => NAMES[id] });
  Object.assign(p.ctx.push.servers, { serverExists: exists, canSee });
  const ref: ServerRef = {
    id: 2,
    get name() {
      return NAMES[2];
    },
  };
  return new EventBus(undefined, { parent: p.ctx.bus, server: ref });
}

function payloadOf(r: ReceivedPush): PushPayload {
  return JSON.parse(r.payload!);
}

function discordTitles(
  fake: { delivered(path: string): { json: { embeds: { title: string }[] } }[] },
  url: string,
) {
  return fake.delivered(pathOf(url)).map((r) => r.json.embeds[0].title);
}

Deno.test(
  "an alert about server 2 reaches the channels and devices that chose it, named, and no user without a role on it",
  withAlerts(async (p, fake) => {
    const push = await FakePushService.start();
    try {
      const server2 = twoServers(p);
      const admin = await p.login();
      const vera = await userWithRole(p, admin, "vera", "viewer");

      const only2 = fake.discordUrl("only2");
      const only1 = fake.discordUrl("only1");
      const every = fake.webhookUrl("every");
      const events = ["crashed", "user-changed"] as const;
      const c2 = await addChannel(admin, {
        type: "discord",
        name: "two",
        url: only2,
        events: [...events],
        servers: [2],
      });
      assert.deepEqual(c2.servers, [2]);
      const c1 = await addChannel(admin, { type: "discord", name: "one", url: only1, events: [...events] });
      assert.equal(c1.servers, null, "every server unless chosen");
      const set1 = await admin.post(`/api/notifications/channels/${c1.id}`, { servers: [1, 1] });
      assert.deepEqual([set1.status, set1.body.servers], [200, [1]]);
      await addChannel(admin, { type: "webhook", name: "all", url: every, events: ["crashed"] });

      const adminDevice = await subscribeDevice(admin, push);
      const veraDevice = await subscribeDevice(vera, push);
      const veraOnly1 = await subscribeDevice(vera, push);
      const choose = await vera.post(`/api/push/devices/${veraOnly1.deviceId}`, { servers: [1] });
      assert.deepEqual([choose.status, choose.body.servers], [200, [1]]);

      // Server 2 crashes: its bus forwards the status change to the panel bus with the server.
      server2.emit("server.status", changes.crashed());
      await p.ctx.alerts.channels.delivery.settled();
      await p.ctx.push.notifier.settled();
      const title2 = `Space map: ${PUSH_MSG.titleCrashed}`;
      assert.deepEqual(
        discordTitles(fake, only2),
        [title2],
        "the channel limited to server 2 gets it, named",
      );
      assert.deepEqual(discordTitles(fake, only1), [], "the channel limited to server 1 does not");
      const [hook] = fake.received((r) => r.service === "webhook");
      assert.equal(hook.json.title, title2);
      assert.deepEqual(
        hook.json.server,
        { id: 2, name: "Space map" },
        "the webhook says which server, for scripts",
      );
      const [toAdmin] = push.delivered(adminDevice.sub.id).map(payloadOf);
      assert.deepEqual([toAdmin.title, toAdmin.tag, toAdmin.url], [
        title2,
        "factorio-server-crash-server-2",
        "/servers/2",
      ]);
      assert.deepEqual(
        push.received().filter((r) => r.subscriptionId === veraDevice.sub.id),
        [],
        "a user without a role on server 2 gets nothing about it, even on a device set to every server",
      );

      // Server 1 crashes right after: not merged with server 2's crash, and named too.
      p.ctx.bus.emit("server.status", changes.crashed());
      await p.ctx.alerts.channels.delivery.settled();
      await p.ctx.push.notifier.settled();
      const title1 = `Main map: ${PUSH_MSG.titleCrashed}`;
      assert.deepEqual(discordTitles(fake, only1), [title1]);
      assert.deepEqual(discordTitles(fake, only2), [title2]);
      assert.deepEqual(fake.received((r) => r.service === "webhook").map((r) => r.json.title), [
        title2,
        title1,
      ]);
      assert.deepEqual(push.delivered(adminDevice.sub.id).map((r) => payloadOf(r).tag), [
        "factorio-server-crash-server-2",
        "factorio-server-crash",
      ]);
      assert.deepEqual(push.delivered(veraDevice.sub.id).map((r) => payloadOf(r).title), [title1]);
      assert.deepEqual(push.delivered(veraOnly1.sub.id).map((r) => payloadOf(r).title), [title1]);

      // The panel's own alerts go to every channel subscribed to them, whatever its servers, unnamed.
      p.ctx.bus.emit("users.changed", { action: "added", username: "zoe" });
      await p.ctx.alerts.channels.delivery.settled();
      assert.deepEqual(discordTitles(fake, only2), [title2, "Panel user added"]);
      assert.deepEqual(discordTitles(fake, only1), [title1, "Panel user added"]);
    } finally {
      await push.close();
    }
  }, pushPanel()),
);

Deno.test(
  "servers that do not exist, or that the user has no role on, are refused in words and nothing changes",
  withAlerts(async (p, fake) => {
    const push = await FakePushService.start();
    try {
      twoServers(p);
      const admin = await p.login();
      const vera = await userWithRole(p, admin, "vera", "viewer");
      const url = fake.discordUrl("c");
      const bad = await admin.post("/api/notifications/channels", {
        type: "discord",
        name: "c",
        url,
        servers: [3],
      });
      assert.deepEqual([bad.status, bad.body], [400, SERVERS_MSG.noSuchServer(3)]);
      assert.deepEqual((await admin.get("/api/notifications/channels")).body, []);
      const ch = await addChannel(admin, { type: "discord", name: "c", url, servers: [2] });
      for (const servers of ["2", [0], [1.5], [-1], {}]) {
        const r = await admin.post(`/api/notifications/channels/${ch.id}`, { servers });
        assert.deepEqual([r.status, r.body], [400, PUSH_MSG.serversInvalid], JSON.stringify(servers));
      }
      const r9 = await admin.post(`/api/notifications/channels/${ch.id}`, { servers: [1, 9] });
      assert.deepEqual([r9.status, r9.body], [400, SERVERS_MSG.noSuchServer(9)]);
      assert.deepEqual((await admin.get("/api/notifications/channels")).body[0].servers, [2], "unchanged");
      const all = await admin.post(`/api/notifications/channels/${ch.id}`, { servers: null });
      assert.deepEqual([all.status, all.body.servers], [200, null]);

      // A viewer's device: server 2 exists but is not theirs, and says so no differently than server 9.
      const dev = await subscribeDevice(vera, push);
      for (const id of [2, 9]) {
        const r = await vera.post(`/api/push/devices/${dev.deviceId}`, { servers: [1, id] });
        assert.deepEqual([r.status, r.body], [400, SERVERS_MSG.noSuchServer(id)]);
      }
      assert.equal((await vera.get("/api/push/devices")).body[0].servers, null, "unchanged");
      const mine = await vera.post(`/api/push/devices/${dev.deviceId}`, { servers: [] });
      assert.deepEqual([mine.status, mine.body.servers], [200, []], "none: only the panel's own alerts");

      // A deleted server leaves the lists it was in.
      const adminDev = await subscribeDevice(admin, push);
      await admin.post(`/api/push/devices/${adminDev.deviceId}`, { servers: [1, 2] });
      await admin.post(`/api/notifications/channels/${ch.id}`, { servers: [2] });
      p.ctx.alerts.forgetServer(2);
      p.ctx.push.forgetServer(2);
      assert.deepEqual((await admin.get("/api/notifications/channels")).body[0].servers, []);
      assert.deepEqual((await admin.get("/api/push/devices")).body[0].servers, [1]);
    } finally {
      await push.close();
    }
  }, pushPanel()),
);

Deno.test("devices and channels stored before servers existed keep working, for every server", async () => {
  const push = await FakePushService.start();
  let p = await startPanel(pushPanel());
  const dataDir = p.dataDir;
  try {
    const admin = await p.login();
    const url = "https://discord.example/api/webhooks/1/old-token-abcdefghijklmnopqrstuvwxyz";
    await addChannel(admin, { type: "discord", name: "old", url, events: ["crashed"], enabled: false });
    const dev = await subscribeDevice(admin, push, { events: ["crashed"] });
    await p.close({ keepData: true });

    // panel.db as the code before this migration left it: no servers columns, the migration not applied.
    const db = new DatabaseSync(join(dataDir, "panel.db"));
    db.exec(`
      ALTER TABLE push_subscriptions DROP COLUMN servers;
      ALTER TABLE alert_channels DROP COLUMN servers;
      DELETE FROM schema_migrations WHERE id = '049-alert-servers';
    `);
    db.close();

    p = await startPanel(pushPanel({ dataDir }));
    const again = await p.login();
    const [device] = (await again.get("/api/push/devices")).body;
    assert.deepEqual([device.id, device.events, device.servers], [dev.deviceId, ["crashed"], null]);
    const [channel] = (await again.get("/api/notifications/channels")).body;
    assert.deepEqual([channel.name, channel.events, channel.servers, channel.enabled], [
      "old",
      ["crashed"],
      null,
      false,
    ]);
    p.ctx.bus.emit("server.status", changes.crashed());
    await p.ctx.push.notifier.settled();
    assert.equal(push.delivered(dev.sub.id).length, 1, "the device still gets server 1's alerts");
  } finally {
    await p.close();
    rmSync(dataDir, { recursive: true, force: true });
    await push.close();
  }
});
