// Renewal against a real ACME CA (pebble issuing 20-second certificates, renewed at a third of their life):
// the panel served over HTTPS by serveWithCertificates keeps a signed-in WebSocket across the renewal, and a
// renewal that fails is an alert on the admins' channels with the reason and the days left.

import assert from "node:assert/strict";
import { startPanel } from "../../tests/support/harness.ts";
import { startPebble } from "../../tests/support/pebble.ts";
import { until } from "../../tests/support/until.ts";
import { connectProxy, handshake } from "../../tests/support/tls.ts";
import { createApp } from "../http/app.ts";
import { serveWithCertificates } from "./listener.ts";
import { addChannel, pathOf, withAlerts } from "../../tests/support/alerts.ts";

const serial = (s: string) => s.toUpperCase().replace(/^0+/, "");

Deno.test("a renewal while a WebSocket of the panel is open over HTTPS: it keeps working, new connections get the new certificate once it closes", async () => {
  const pebble = await startPebble({ validitySeconds: 20 });
  const p = await startPanel({
    args: ["--https-domain", "panel.test", "--allowed-origins", "https://panel.test", ...pebble.args],
  });
  const { app } = createApp(p.ctx);
  let server: ReturnType<typeof serveWithCertificates> | undefined;
  let proxy: ReturnType<typeof connectProxy> | undefined;
  let client: Deno.HttpClient | undefined;
  try {
    const first = await until("the first certificate", () => p.ctx.https.current());
    const firstSerial = serial(p.ctx.https.state().certificate!.serial);
    server = serveWithCertificates({
      handler: (req, info) => app.fetch(req, info),
      certificates: p.ctx.https,
      bus: p.ctx.bus,
      port: 0,
      hostname: "127.0.0.1",
      openWebSockets: () => p.ctx.hub.clientCount,
      log: p.ctx.log,
      checkEveryMs: 100,
    });
    const root = await pebble.root();
    proxy = connectProxy(server.addr.port);
    client = Deno.createHttpClient({ caCerts: [root], proxy: { url: proxy.url } });
    const base = `panel.test:${server.addr.port}`;
    const admin = await p.login();

    const status = await fetch(`https://${base}/api/user/status`, {
      client,
      headers: { Cookie: admin.cookie! },
    });
    assert.equal(status.status, 200);
    await status.body?.cancel();
    assert.equal(serial((await handshake(server.addr.port, root, "panel.test")).serial), firstSerial);

    const ws = new WebSocket(`wss://${base}/ws`, { client, headers: { Cookie: admin.cookie! } });
    const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
    await new Promise((resolve, reject) => {
      ws.onopen = resolve;
      ws.onerror = reject;
    });
    await until("the hub to count the socket", () => p.ctx.hub.clientCount === 1);
    // The hub answers a console command of two lines itself (it refuses it), game or not.
    const ask = () =>
      new Promise<string>((resolve) => {
        ws.onmessage = (e) => resolve(JSON.parse(e.data).message);
        ws.send(JSON.stringify({ room_name: "", controls: { type: "command", value: "a\nb" } }));
      });
    assert.match(await ask(), /one line/);

    const renewed = await until("the renewal (a third of 20 s before the end)", () => {
      const now = p.ctx.https.current();
      return now && now !== first ? now : null;
    }, 30_000);
    const renewedSerial = serial(p.ctx.https.state().certificate!.serial);
    assert.notEqual(renewedSerial, firstSerial);
    assert.ok(server.waiting(), "the new certificate waits for the socket");
    assert.match(await ask(), /one line/);
    assert.equal(serial((await handshake(server.addr.port, root, "panel.test")).serial), firstSerial);

    ws.close();
    assert.equal(await closed, 1005);
    await until("the new certificate to be served", () => server!.swaps === 1);
    assert.equal(server.served()?.cert, renewed.cert);
    assert.equal(serial((await handshake(server.addr.port, root, "panel.test")).serial), renewedSerial);
    const again = await fetch(`https://${base}/api/user/status`, {
      client,
      headers: { Cookie: admin.cookie! },
    });
    assert.equal(again.status, 200);
    await again.body?.cancel();
  } finally {
    client?.close();
    proxy?.close();
    await server?.shutdown();
    await p.close();
    await pebble.stop();
  }
});

Deno.test("a renewal that fails is an alert on the admins' channels, with the reason and the days left", async () => {
  const pebble = await startPebble({ validitySeconds: 20 });
  try {
    await withAlerts(async (p, fake) => {
      const admin = await p.login();
      const url = fake.discordUrl("certs");
      await addChannel(admin, { type: "discord", name: "certs", url, events: ["certificate"] });
      await until("the first certificate", () => p.ctx.https.current());
      // The CA goes away before the renewal is due.
      await pebble.kill();
      await until("the alert", () => fake.delivered(pathOf(url)).length > 0, 30_000);
      const embed = fake.delivered(pathOf(url))[0].json.embeds[0];
      assert.equal(embed.title, "HTTPS certificate renewal failed");
      assert.match(
        embed.description,
        /^Could not reach 127\.0\.0\.1:\d+: tcp connect error: Connection refused.* The certificate it serves ends in 0 days \(/,
      );
      const fields = Object.fromEntries(
        embed.fields.map((f: { name: string; value: string }) => [f.name, f.value]),
      );
      assert.equal(fields.Names, "panel.test");
      assert.equal(fields["Days left"], "0");
      assert.match(fields.Reason, /Connection refused/);
      assert.ok(fields["Next try"]);
      const state = (await admin.get("/api/https")).body;
      assert.match(state.last_error.message, /Connection refused/);
    }, { args: ["--https-domain", "panel.test", ...pebble.args] })();
  } finally {
    await pebble.stop();
  }
});
