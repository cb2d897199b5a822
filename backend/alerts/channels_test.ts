// Alert channels against local doubles of Discord, Slack, ntfy and a signed-webhook receiver: what each
// one gets, the test button, secrets kept in, retries and 429s, a dead endpoint beside a live one, the
// event matrix, merged repeats.

import assert from "node:assert/strict";
import { addChannel, pathOf, titleOn, withAlerts } from "../../tests/support/alerts.ts";
import { ALERT_EVENTS, type AlertEvent } from "../../shared/alerts.ts";
import { CHANNEL_MSG, PUSH_MSG } from "../../shared/messages.ts";
import { COLOURS } from "./formats.ts";
import { changes } from "../../tests/support/push.ts";

Deno.test(
  "each channel type gets its own format; Send test answers the endpoint's status",
  withAlerts(async (p, fake) => {
    const c = await p.login();
    const discord = await addChannel(c, { type: "discord", name: "Ops Discord", url: fake.discordUrl("77") });
    const slack = await addChannel(c, { type: "slack", name: "Slack", url: fake.slackUrl() });
    fake.requireToken("factory-alerts", "tk_secret123");
    const ntfy = await addChannel(c, {
      type: "ntfy",
      name: "Phone",
      url: fake.origin,
      topic: "factory-alerts",
      priority: 2,
      token: "tk_secret123",
    });
    const hook = await addChannel(c, { type: "webhook", name: "Script", url: fake.webhookUrl("s") });
    assert.ok(hook.secret && hook.secret.length >= 40, "the webhook's secret is shown once, on creation");
    fake.setSecret(pathOf(fake.webhookUrl("s")), hook.secret);

    for (const ch of [discord, slack, ntfy, hook]) {
      const r = await c.post(`/api/notifications/channels/${ch.id}/test`);
      assert.equal(r.status, 200);
      assert.equal(r.body.ok, true, `${ch.type}: ${r.body.message}`);
    }
    assert.deepEqual(
      (await c.post(`/api/notifications/channels/${discord.id}/test`)).body,
      { ok: true, status: 204, message: "Sent to Ops Discord (answered HTTP 204)." },
    );

    const [d] = fake.delivered(pathOf(fake.discordUrl("77")));
    assert.equal(d.json.embeds[0].title, CHANNEL_MSG.titleTest);
    assert.equal(d.json.embeds[0].color, COLOURS.test);
    assert.deepEqual(d.json.allowed_mentions, { parse: [] }, "a log line cannot ping @everyone");
    const [s] = fake.delivered(pathOf(fake.slackUrl()));
    assert.match(s.json.text, new RegExp(CHANNEL_MSG.titleTest));
    const [n] = fake.received((r) => r.service === "ntfy");
    assert.deepEqual([n.status, n.json.topic, n.json.title, n.json.priority], [
      200,
      "factory-alerts",
      CHANNEL_MSG.titleTest,
      2,
    ]);
    const [w] = fake.received((r) => r.service === "webhook");
    assert.equal(w.verified, true, "the receiver verified the HMAC with the secret it was given");
    assert.equal(w.json.event, "test");

    // The list shows what each channel is, never its secrets; the last delivery is recorded.
    const list = (await c.get("/api/notifications/channels")).text;
    for (
      const secret of ["tok-77-abcdefghijklmnopqrstuvwxyz", "tk_secret123", hook.secret, "factory-alerts"]
    ) {
      assert.ok(!list.includes(secret), `${secret} is not in the list`);
    }
    const listed = JSON.parse(list);
    assert.equal(listed[0].url, `${fake.origin}/api/webhooks/77/tok••••`);
    assert.deepEqual([listed[2].has_token, listed[2].topic, listed[2].priority], [true, "fac••••", 2]);
    assert.ok(
      listed.every((ch: { last_ok: boolean; last_result: string }) =>
        ch.last_ok && /^HTTP 20/.test(ch.last_result)
      ),
    );
    assert.equal(listed[3].secret, undefined);
  }),
);

const UNSAFE_NAME = "A channel name must be one line without control or text-direction characters.";

Deno.test(
  "a refused test says why; bad channels are refused with a clear message and nothing is stored",
  withAlerts(async (p, fake) => {
    const c = await p.login();
    const hook = await addChannel(c, { type: "webhook", name: "Wrong secret", url: fake.webhookUrl("w") });
    fake.setSecret(pathOf(fake.webhookUrl("w")), "not-the-panel-secret");
    const r = await c.post(`/api/notifications/channels/${hook.id}/test`);
    assert.deepEqual([r.body.ok, r.body.status], [false, 401]);
    assert.match(r.body.message, /^Wrong secret: HTTP 401/);

    const bad: [Record<string, unknown>, string][] = [
      [{ type: "email", name: "x", url: fake.origin }, CHANNEL_MSG.typeInvalid],
      [{ type: "discord", name: "", url: fake.discordUrl() }, CHANNEL_MSG.nameInvalid(60)],
      [{ type: "discord", name: "x", url: "ftp://example.org/x" }, CHANNEL_MSG.urlInvalid],
      [{ type: "discord", name: "x", url: "https://user:pw@example.org/x" }, CHANNEL_MSG.urlInvalid],
      [{ type: "webhook", name: "x", url: "file:///etc/passwd" }, CHANNEL_MSG.urlInvalid],
      [{ type: "webhook", name: "x", url: "gopher://127.0.0.1:6379/_FLUSHALL" }, CHANNEL_MSG.urlInvalid],
      // A name goes into log lines and messages: no line breaks, no text turned backwards.
      [{ type: "discord", name: "Ops\n   1.000 Error Server crashed", url: fake.discordUrl() }, UNSAFE_NAME],
      [{ type: "discord", name: "Ops\u202Edrocsid", url: fake.discordUrl() }, UNSAFE_NAME],
      [{ type: "ntfy", name: "x", url: fake.origin, topic: "has space" }, CHANNEL_MSG.topicInvalid],
      [{ type: "ntfy", name: "x", url: fake.origin, topic: "t", priority: 9 }, CHANNEL_MSG.priorityInvalid],
      [
        { type: "slack", name: "x", url: fake.slackUrl(), events: ["crashed", "exploded"] },
        PUSH_MSG.eventsInvalid,
      ],
    ];
    for (const [body, message] of bad) {
      const res = await c.post("/api/notifications/channels", body);
      assert.deepEqual([res.status, res.body], [400, message], JSON.stringify(body));
    }
    assert.equal((await c.get("/api/notifications/channels")).body.length, 1);
    assert.equal((await c.post("/api/notifications/channels/999/test")).status, 404);
    assert.equal((await c.post("/api/notifications/channels/abc/delete")).status, 404);
    const del = await c.post(`/api/notifications/channels/${hook.id}/delete`);
    assert.deepEqual([del.status, del.body], [200, CHANNEL_MSG.deleted("Wrong secret")]);
    assert.deepEqual((await c.get("/api/notifications/channels")).body, []);
  }),
);

Deno.test(
  "event matrix: each event reaches the channels subscribed to it and no others",
  withAlerts(async (p, fake) => {
    const c = await p.login();
    // Three channels with overlapping choices; one disabled channel that wants everything.
    const picks: Record<string, AlertEvent[]> = {
      a: ["crashed", "player-joined", "disk-low", "user-changed"],
      b: ["crashed", "stopped", "factorio-update", "mod-updates", "backup-failed", "task-failed"],
      c: ALERT_EVENTS.filter((e) => e !== "crashed"),
    };
    for (const [name, events] of Object.entries(picks)) {
      await addChannel(c, { type: "discord", name, url: fake.discordUrl(name), events });
    }
    await addChannel(c, {
      type: "discord",
      name: "off",
      url: fake.discordUrl("off"),
      events: [...ALERT_EVENTS],
      enabled: false,
    });
    for (const kind of ALERT_EVENTS) p.ctx.bus.emit("alert", { kind, title: `t-${kind}`, body: "b" });
    await p.ctx.alerts.channels.delivery.settled();
    for (const [name, events] of Object.entries(picks)) {
      const got = fake.delivered(pathOf(fake.discordUrl(name))).map((r) => r.json.embeds[0].footer.text);
      assert.deepEqual(got.sort(), [...events].sort(), `channel ${name}`);
    }
    assert.deepEqual(
      fake.received((r) => r.path === pathOf(fake.discordUrl("off"))),
      [],
      "a disabled channel gets nothing",
    );

    // Colours differ per event (a crash is red, a start green).
    const a = fake.delivered(pathOf(fake.discordUrl("a")));
    assert.equal(
      a.find((r) => r.json.embeds[0].footer.text === "crashed")!.json.embeds[0].color,
      COLOURS.crashed,
    );
    assert.notEqual(COLOURS.crashed, COLOURS.started);
  }),
);

Deno.test(
  "429 with Retry-After or Discord's JSON body, and 5xx, are retried in order; 4xx is not",
  withAlerts(async (p, fake) => {
    const c = await p.login();
    const rate = await addChannel(c, {
      type: "discord",
      name: "rate",
      url: fake.discordUrl("rate"),
      events: ["crashed", "stopped"],
    });
    const down = await addChannel(c, {
      type: "slack",
      name: "down",
      url: fake.slackUrl("down"),
      events: ["crashed", "stopped"],
    });
    const gone = await addChannel(c, {
      type: "discord",
      name: "gone",
      url: fake.discordUrl("gone"),
      events: ["crashed"],
    });
    // Discord's body asks for 0.3 s, no header: the body decides the wait. The Slack double fails twice with 503.
    fake.mode(pathOf(fake.discordUrl("rate")), { kind: "429", times: 1, retryAfterS: 0.3, header: false });
    fake.mode(pathOf(fake.slackUrl("down")), { kind: "status", status: 503, times: 2 });
    fake.mode(pathOf(fake.discordUrl("gone")), { kind: "status", status: 404, times: 5 });

    p.ctx.bus.emit("server.status", changes.crashed());
    p.ctx.bus.emit("server.status", changes.stopped());
    await p.ctx.alerts.channels.delivery.settled();

    const rateTries = fake.received((r) => r.path === pathOf(fake.discordUrl("rate")));
    assert.deepEqual(rateTries.map((r) => r.status), [429, 204, 204]);
    assert.deepEqual(rateTries.slice(1).map((r) => r.json.embeds[0].title), [
      titleOn(p, PUSH_MSG.titleCrashed),
      titleOn(p, PUSH_MSG.titleStopped),
    ]);
    assert.ok(
      rateTries[1].at - rateTries[0].at >= 280,
      `waited the 0.3 s Discord asked for (${rateTries[1].at - rateTries[0].at} ms)`,
    );

    const downTries = fake.received((r) => r.path === pathOf(fake.slackUrl("down")));
    assert.deepEqual(downTries.map((r) => r.status), [503, 503, 200, 200]);

    assert.deepEqual(fake.received((r) => r.path === pathOf(fake.discordUrl("gone"))).map((r) => r.status), [
      404,
    ]);
    const listed = (await c.get("/api/notifications/channels")).body;
    const goneRow = listed.find((ch: { id: number }) => ch.id === gone.id);
    assert.deepEqual([goneRow.last_ok, goneRow.last_result.startsWith("HTTP 404")], [false, true]);
    assert.equal(listed.find((ch: { id: number }) => ch.id === rate.id).last_ok, true);
    assert.equal(listed.find((ch: { id: number }) => ch.id === down.id).last_ok, true);
    assert.match(Deno.readTextFileSync(`${p.dataDir}/panel.log`), /Will retry an alert/);
  }),
);

Deno.test(
  "a dead endpoint delays neither the other channels nor the bus",
  withAlerts(async (p, fake) => {
    p.ctx.alerts.channels.delivery.timeoutMs = 60_000; // it hangs for as long as the test runs
    const c = await p.login();
    const deadChannel = await addChannel(c, {
      type: "discord",
      name: "dead",
      url: fake.discordUrl("dead"),
      events: ["crashed"],
    });
    await addChannel(c, { type: "discord", name: "live", url: fake.discordUrl("live"), events: ["crashed"] });
    fake.mode(pathOf(fake.discordUrl("dead")), { kind: "dead" });
    const heard: string[] = [];
    p.ctx.bus.on("server.status", ({ status }) => heard.push(status.status));
    p.ctx.bus.emit("server.status", changes.crashed());
    assert.deepEqual(heard, ["stopped"], "the emitter went on at once");
    const live = await fake.waitFor((r) => r.path === pathOf(fake.discordUrl("live")) && r.status === 204);
    assert.equal(live.json.embeds[0].title, titleOn(p, PUSH_MSG.titleCrashed));
    const dead = fake.received((r) => r.path === pathOf(fake.discordUrl("dead")));
    assert.deepEqual(dead.map((r) => r.status), [-1], "the dead endpoint got the request and never answered");
    assert.equal(p.ctx.alerts.channels.delivery.pending(deadChannel.id), 1, "its message is still waiting");
    // The panel answers meanwhile.
    assert.equal((await c.get("/api/notifications/channels")).status, 200);
  }),
);

Deno.test(
  "repeats within the window are merged into one message saying how many",
  withAlerts(async (p, fake) => {
    const c = await p.login();
    await addChannel(c, { type: "discord", name: "d", url: fake.discordUrl("m"), events: ["crashed"] });
    for (let i = 0; i < 3; i++) p.ctx.bus.emit("server.status", changes.crashed({ code: i + 1 }));
    const path = pathOf(fake.discordUrl("m"));
    const merged = await fake.waitFor((r) =>
      r.path === path && r.status === 204 && /times/.test(r.json.embeds[0].description)
    );
    const got = fake.delivered(path).map((r) => r.json.embeds[0].description);
    assert.equal(got.length, 2, "the first at once, then one for the repeats");
    assert.match(got[0], /^Exit code 1\./);
    assert.match(merged.json.embeds[0].description, /^Crashed 3 times in 1 second\. Latest: Exit code 3\./);
  }, { args: ["--alert-merge-seconds", "1"] }),
);

Deno.test(
  "a channel without its URL or ntfy topic (imported without secrets) cannot be switched on until they are entered",
  withAlerts(async (p, fake) => {
    const c = await p.login();
    // As an import without secrets leaves them (transfer/apply.ts): disabled, URL and topic empty.
    const insert = (type: string, name: string) =>
      Number(
        p.ctx.db.prepare(
          `INSERT INTO alert_channels (type, name, url, topic, priority, token, secret, events, enabled, created_at)
       VALUES (?, ?, '', NULL, ?, NULL, NULL, 'crashed', 0, 0)`,
        ).run(type, name, type === "ntfy" ? 3 : null).lastInsertRowid,
      );
    const discord = insert("discord", "Moved Discord");
    const ntfy = insert("ntfy", "Moved ntfy");
    const on = (id: number, body: Record<string, unknown>) =>
      c.post(`/api/notifications/channels/${id}`, body);
    assert.deepEqual(pick(await on(discord, { enabled: true })), [400, CHANNEL_MSG.urlMissing]);
    assert.deepEqual(pick(await on(ntfy, { enabled: true, url: fake.origin })), [
      400,
      CHANNEL_MSG.topicMissing,
    ]);
    const listed = (await c.get("/api/notifications/channels")).body as { enabled: boolean }[];
    assert.deepEqual(listed.map((x) => x.enabled), [false, false], "nothing was switched on");
    // Renaming while off is fine; with the URL (and topic) entered, it switches on.
    assert.equal((await on(discord, { name: "Our Discord" })).status, 200);
    assert.equal((await on(discord, { enabled: true, url: fake.discordUrl("moved") })).status, 200);
    assert.equal((await on(ntfy, { enabled: true, url: fake.origin, topic: "moved" })).status, 200);
  }),
);

function pick(r: { status: number; body: unknown }): [number, unknown] {
  return [r.status, r.body];
}
