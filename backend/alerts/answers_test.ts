// An alert channel may point anywhere on the LAN (ntfy or a home-automation hook there is fair use), so
// what it answers is neither shown to the admin who presses Send test nor read whole: a hook answering a
// huge body must leave the panel's memory as it was. Measured on a panel started as `npm start` starts it
// (its resident memory read with ps while the test runs).

import assert from "node:assert/strict";
import { startPanelProcess } from "../../tests/support/process.ts";
import { withDirs } from "../../tests/support/dirs.ts";
import { pathOf } from "../../tests/support/alerts.ts";
import { startFakeAlerts } from "../../tests/fake-alerts/server.mjs";
import { peakRss } from "../../tests/support/rss.ts";

const PASSWORD = "alerts-answers-password";
const MiB = 1024 * 1024;

Deno.test("Send test reports the status only and reads a bounded part of a huge answer", async () => {
  const fake = await startFakeAlerts();
  try {
    await withDirs("panel-alert-answers", async (dataDir, factorioDir) => {
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
        ],
        env: { PANEL_ADMIN_PASSWORD: PASSWORD },
      });
      try {
        const c = await panel.login("admin", PASSWORD);
        const url = fake.webhookUrl("lan-service");
        const created = await c.post("/api/notifications/channels", {
          type: "webhook",
          name: "Home hook",
          url,
        });
        assert.equal(created.status, 200, created.text);
        const marker = "INTERNAL-ONLY admin console of the router: password=hunter2 ";
        fake.mode(pathOf(url), { kind: "huge", status: 500, bytes: 1024 * MiB, text: marker });

        const { value: r, baseline, peak } = await peakRss(
          panel.pid,
          () => c.post(`/api/notifications/channels/${created.body.id}/test`),
        );
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(r.body, { ok: false, status: 500, message: "Home hook: HTTP 500" });
        const listed = (await c.get("/api/notifications/channels")).text;
        assert.ok(!listed.includes("INTERNAL-ONLY"), "nor is it in the channel's last result");
        assert.ok(
          peak - baseline < 100 * MiB,
          `resident memory grew by ${Math.round((peak - baseline) / MiB)} MiB`,
        );
        assert.ok(
          fake.bodyBytesSent(pathOf(url)) < 64 * MiB,
          `the panel let go of the answer (${fake.bodyBytesSent(pathOf(url)) / MiB} MiB taken)`,
        );

        // A short answer is not shown either: the status is what the admin needs.
        fake.mode(pathOf(url), { kind: "status", status: 502, times: 1 });
        const small = await c.post(`/api/notifications/channels/${created.body.id}/test`);
        assert.deepEqual(small.body, { ok: false, status: 502, message: "Home hook: HTTP 502" });
      } finally {
        await panel.stop();
      }
    });
  } finally {
    await fake.close();
  }
});
