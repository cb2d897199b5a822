// Any signed-in user (a viewer too) names a push endpoint, and the panel then POSTs to it: so endpoints on
// the panel's machine or network are refused unless the admin allows their host (--push-private-hosts),
// a stored one is checked again before each message, what a push service answers is never shown, and
// never read beyond its head, however large it is.

import assert from "node:assert/strict";
import { ADMIN_PASSWORD, startPanel, withPanel } from "../../tests/support/harness.ts";
import { startPanelProcess } from "../../tests/support/process.ts";
import { withDirs } from "../../tests/support/dirs.ts";
import { peakRss } from "../../tests/support/rss.ts";
import { FAKE_PUSH_ARGS, pushPanel, subscribeDevice } from "../../tests/support/push.ts";
import { isPublicAddress } from "./target.ts";
import { CA_FILE, FakePushService } from "../../tests/fake-push/service.ts";
import { PUSH_MSG } from "../../shared/messages.ts";

const MiB = 1024 * 1024;

Deno.test("public addresses, and the ones that are not", () => {
  for (
    const a of [
      "8.8.8.8",
      "142.250.185.74",
      "2a00:1450:4001:82b::200a",
      "2606:4700::6810:84e5",
      "::ffff:8.8.8.8",
      "64:ff9b::808:808",
    ]
  ) {
    assert.equal(isPublicAddress(a), true, a);
  }
  for (
    const a of [
      "127.0.0.1",
      "127.8.9.10",
      "10.0.0.1",
      "172.16.5.4",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "198.18.0.1",
      "192.0.2.1",
      "::",
      "::1",
      "fe80::1",
      "fe80::1%eth0",
      "fc00::1",
      "fd12:3456::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:10.1.2.3",
      "64:ff9b::a00:1",
      "2002:c0a8:101::1",
      "2001:db8::1",
      "2001:0:4136:e378::1",
      "100::1",
      "not an address",
    ]
  ) {
    assert.equal(isPublicAddress(a), false, a);
  }
});

Deno.test("an endpoint on the panel's machine or network is refused, by address and by name, unless its host is allowed", async () => {
  const fake = await FakePushService.start();
  try {
    // The CA is trusted, but the fake's host (loopback) is not allowed: as for any panel.
    await withPanel(async (p) => {
      const c = await p.login();
      const key = (await c.get("/api/push/key")).body.publicKey;
      const { id: _id, ...sub } = fake.subscribe(key);
      const port = new URL(sub.endpoint).port;
      for (
        const endpoint of [
          sub.endpoint, // https://127.0.0.1:PORT/push/ID
          `https://localhost:${port}/push/x`, // a name that resolves to loopback
          "https://10.0.0.1/push/x",
          "https://169.254.169.254/latest/meta-data/",
          "https://[::1]:8443/push/x",
          "https://[::ffff:127.0.0.1]/push/x",
          "https://0x7f000001/push/x", // the URL parser's 127.0.0.1
        ]
      ) {
        const r = await c.post("/api/push/subscribe", { subscription: { ...sub, endpoint } });
        assert.deepEqual([r.status, r.body], [400, PUSH_MSG.endpointPrivate], endpoint);
      }
      assert.deepEqual((await c.get("/api/push/devices")).body, []);
      assert.equal(fake.received().length, 0, "nothing was sent");
    }, { args: ["--push-ca-file", CA_FILE] })();

    // Allowed by name: the same endpoint is taken.
    await withPanel(async (p) => {
      const c = await p.login();
      await subscribeDevice(c, fake);
      const [result] = (await c.post("/api/push/test", {})).body;
      assert.equal(result.ok, true, result.message);
    }, pushPanel())();
  } finally {
    await fake.close();
  }
});

Deno.test("a stored device whose host is no longer allowed gets nothing: checked again before every message", async () => {
  const fake = await FakePushService.start();
  const first = await startPanel(pushPanel());
  try {
    const c = await first.login();
    await subscribeDevice(c, fake, { name: "Desk" });
    await first.close({ keepData: true });
    // The same data, started without --push-private-hosts.
    await withPanel(async (p) => {
      const again = await p.login();
      const before = fake.received().length;
      const [result] = (await again.post("/api/push/test", {})).body;
      assert.deepEqual([result.ok, result.message], [
        false,
        "Desk: not sent: the push service's address is on this machine or a private network.",
      ]);
      assert.equal(fake.received().length, before, "no request reached the address");
    }, { args: ["--push-ca-file", CA_FILE], dataDir: first.dataDir })();
  } finally {
    Deno.removeSync(first.dataDir, { recursive: true });
    await fake.close();
  }
});

Deno.test("what a push service answers is not shown to the caller", async () => {
  const fake = await FakePushService.start();
  try {
    await withPanel(async (p) => {
      const c = await p.login();
      const { sub } = await subscribeDevice(c, fake, { name: "Desk" });
      fake.respondWith(sub.id, 400, 1, {}, "<html>router admin: password=hunter2</html>");
      const [result] = (await c.post("/api/push/test", {})).body;
      assert.deepEqual([result.ok, result.status, result.message], [
        false,
        400,
        "Desk: push service answered 400.",
      ]);
      const devices = (await c.get("/api/push/devices")).text;
      assert.ok(!devices.includes("hunter2"), "nor is it kept as the device's last error");
    }, pushPanel())();
  } finally {
    await fake.close();
  }
});

Deno.test("two devices answering 1 GiB each leave the panel's memory bounded", async () => {
  const fake = await FakePushService.start();
  try {
    await withDirs("panel-push-answers", async (dataDir, factorioDir) => {
      const panel = await startPanelProcess({
        args: [
          "--data-dir",
          dataDir,
          "--factorio-dir",
          factorioDir,
          "--port",
          "0",
          "--bind",
          "127.0.0.1",
          "--factorio-update-check-hours",
          "0",
          ...FAKE_PUSH_ARGS,
        ],
        env: { PANEL_ADMIN_PASSWORD: ADMIN_PASSWORD },
      });
      try {
        const c = await panel.login("admin", ADMIN_PASSWORD);
        for (const name of ["Phone", "Tablet"]) {
          const { sub } = await subscribeDevice(c, fake, { name });
          fake.respondWith(sub.id, 500, 1, {}, { bytes: 1024 * MiB, text: "INTERNAL-ONLY " });
        }
        const { value: r, baseline, peak } = await peakRss(panel.pid, () => c.post("/api/push/test", {}));
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.body.map((x: { message: string }) => x.message), [
          "Phone: push service answered 500.",
          "Tablet: push service answered 500.",
        ]);
        assert.ok(
          peak - baseline < 100 * MiB,
          `resident memory grew by ${Math.round((peak - baseline) / MiB)} MiB`,
        );
        assert.ok(
          fake.bodyBytesSent < 64 * MiB,
          `the panel let go of the answers (${Math.round(fake.bodyBytesSent / MiB)} MiB taken)`,
        );
      } finally {
        await panel.stop();
      }
    });
  } finally {
    await fake.close();
  }
});
