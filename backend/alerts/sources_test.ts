// Where alerts come from besides a plain status change: still down after a crash, running again after it, a
// start that failed, a sign-in from a new device or address, panel users added or removed, low disk.

import assert from "node:assert/strict";
import { addChannel, pathOf, titleOn, withAlerts } from "../../tests/support/alerts.ts";
import { changes, pushPanel, subscribeDevice } from "../../tests/support/push.ts";
import { FakePushService } from "../../tests/fake-push/service.ts";
import { PUSH_MSG } from "../../shared/messages.ts";
import { Client } from "../../tests/support/harness.ts";
import type { TestPanel } from "../../tests/support/harness.ts";
import { ADMIN_PASSWORD } from "../../tests/support/harness.ts";

function titles(
  fake: { delivered(path: string): { json: { embeds: { title: string; description: string }[] } }[] },
  url: string,
) {
  return fake.delivered(pathOf(url)).map((r) => r.json.embeds[0].title);
}

Deno.test(
  "still down after a crash is said again, and running again after a crash goes to crash subscribers",
  withAlerts(async (p, fake) => {
    p.ctx.alerts.game.stillDownMs = 200;
    const push = await FakePushService.start();
    try {
      const c = await p.login();
      const url = fake.discordUrl("outage");
      await addChannel(c, { type: "discord", name: "outage", url, events: ["crashed", "still-down"] });
      const { sub } = await subscribeDevice(c, push, { events: ["crashed"] });
      p.ctx.bus.emit("server.status", changes.crashed());
      await fake.waitFor((r) =>
        r.path === pathOf(url) && r.json.embeds[0].title === titleOn(p, PUSH_MSG.titleStillDown)
      );
      p.ctx.bus.emit("server.status", changes.starting());
      p.ctx.bus.emit("server.status", changes.started());
      // Not "back up", which reads like a backup: the same words on a channel and on a device.
      const title = titleOn(p, "Factorio server is running again");
      const up = await fake.waitFor((r) => r.path === pathOf(url) && r.json.embeds[0].title === title);
      assert.match(
        up.json.embeds[0].description,
        /^Running again after a crash \(down about 1 minute\)\. my-base\.zip is running/,
      );
      assert.equal(up.json.embeds[0].footer.text, "started");
      const pushed = await push.waitFor((r) =>
        r.subscriptionId === sub.id && r.status === 201 && JSON.parse(r.payload!).kind === "started"
      );
      const alert = JSON.parse(pushed.payload!);
      assert.equal(alert.title, title);
      assert.match(alert.body, /^Running again after a crash \(down about 1 minute\)\./);
      const before = titles(fake, url).length;
      // Up again: no more "still down". A later plain start (after a Save & Stop) is no "running again".
      await new Promise((r) => setTimeout(r, 400));
      p.ctx.bus.emit("server.status", changes.stopped());
      p.ctx.bus.emit("server.status", changes.started());
      await p.ctx.alerts.channels.delivery.settled();
      assert.equal(
        titles(fake, url).length,
        before,
        "neither stopped, started nor still-down reach this channel now",
      );
      assert.deepEqual(titles(fake, url).slice(0, 1), [titleOn(p, PUSH_MSG.titleCrashed)]);
    } finally {
      await push.close();
    }
  }, pushPanel()),
);

Deno.test(
  "a start that ends before hosting is 'failed to start', not a crash",
  withAlerts(async (p, fake) => {
    const c = await p.login();
    const url = fake.discordUrl("sf");
    await addChannel(c, { type: "discord", name: "sf", url, events: ["start-failed"] });
    p.ctx.bus.emit("server.status", { ...changes.crashed(), previous: "starting" });
    // The reason issue 10 adds is mapped the same way.
    const exit = { ...changes.crashed().exit!, reason: "start-failed" as "crashed" };
    p.ctx.bus.emit("server.status", { ...changes.crashed(), exit, previous: "stopped" });
    await p.ctx.alerts.channels.delivery.settled();
    assert.deepEqual(
      titles(fake, url),
      [titleOn(p, PUSH_MSG.titleStartFailed)],
      "the second is merged with the first (same kind)",
    );
  }),
);

async function signIn(p: TestPanel, userAgent: string): Promise<void> {
  const client = new Client(p.url, p.url);
  const r = await client.post("/api/login", { username: "admin", password: ADMIN_PASSWORD }, {
    headers: { "User-Agent": userAgent },
  });
  assert.equal(r.status, 200);
}

Deno.test(
  "a sign-in from a new device is an alert; the same device again is not; users added and removed are",
  withAlerts(async (p, fake) => {
    const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0";
    const iphone =
      "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1";
    await signIn(p, firefox);
    const c = await p.login();
    const url = fake.discordUrl("who");
    await addChannel(c, { type: "discord", name: "who", url, events: ["new-sign-in", "user-changed"] });
    await signIn(p, firefox);
    await signIn(p, iphone);
    await c.post("/api/user/add", {
      username: "eve",
      role: "admin",
      email: "e@x.y",
      password: "eve-password",
      password_confirmation: "eve-password",
    });
    await c.post("/api/user/remove", { username: "eve" });
    await p.ctx.alerts.channels.delivery.settled();
    const got = fake.delivered(pathOf(url)).map((
      r,
    ) => [r.json.embeds[0].title, r.json.embeds[0].description]);
    assert.deepEqual(got, [
      ["New sign-in", "admin signed in from a new device Safari on iPhone."],
      ["Panel user added", "eve can now sign in to the panel."],
      ["Panel user removed", "eve can no longer sign in."],
    ]);
  }),
);

Deno.test(
  "low disk space where saves are kept is an alert, once until it recovers",
  withAlerts(async (p, fake) => {
    const c = await p.login();
    const url = fake.discordUrl("disk");
    await addChannel(c, { type: "discord", name: "disk", url, events: ["disk-low"] });
    // With a threshold of 100 % every volume is "low".
    await p.ctx.alerts.panel.checkDisk();
    await p.ctx.alerts.panel.checkDisk();
    await p.ctx.alerts.channels.delivery.settled();
    const got = fake.delivered(pathOf(url)).map((r) => r.json.embeds[0]);
    // The saves folder and the data dir are both on the temp volume: one alert per folder, each once.
    assert.ok(got.length >= 1 && got.length <= 2, JSON.stringify(got));
    assert.ok(got.every((e) => e.title === "Low disk space" && /GiB/.test(e.description)));
  }, { args: ["--alert-disk-low-percent", "100"] }),
);
