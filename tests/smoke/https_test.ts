// HTTPS in the program the user runs (the launcher: the bundled backend, npm start's permissions): a
// certificate from an ACME CA (pebble) and the local CA. The in-process tests run the sources; this one
// caught the bundle loading @peculiar/x509 before its Reflect polyfill.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPanelProcess } from "../../backend/testing/process.ts";
import type { Client } from "../../backend/testing/harness.ts";
import { startPebble } from "../../backend/testing/pebble.ts";
import { until } from "../../backend/testing/until.ts";
import { freeTcpPort } from "../fake-factorio/sim.ts";

const PASSWORD = "smoke-https-password";

async function withStarted(args: string[], fn: (admin: Client) => Promise<void>) {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-https-"));
  const panel = await startPanelProcess({
    args: ["--port", "0", "--bind", "127.0.0.1", "--data-dir", dataDir, ...args],
    env: { PANEL_ADMIN_PASSWORD: PASSWORD },
  });
  try {
    await fn(await panel.login("admin", PASSWORD));
  } finally {
    assert.equal(await panel.stop(), 0, panel.output());
    rmSync(dataDir, { recursive: true, force: true });
  }
}

Deno.test("the panel started by the launcher gets a certificate from the CA, and renews it when asked", async () => {
  const pebble = await startPebble();
  try {
    await withStarted(["--https-domain", "panel.test", ...pebble.args], async (admin) => {
      const state = await until("the certificate", async () => {
        const s = (await admin.get("/api/https")).body;
        return s.certificate ? s : null;
      });
      assert.deepEqual(state.certificate.names, ["panel.test"]);
      assert.match(state.certificate.issuer, /Pebble/);
      const renewed = await admin.post("/api/https/renew");
      assert.equal(renewed.status, 200, renewed.text);
      assert.notEqual(renewed.body.certificate.serial, state.certificate.serial);
    });
  } finally {
    await pebble.stop();
  }
});

Deno.test("the panel started by the launcher makes its local CA and serves its certificate for download", async () => {
  const httpPort = await freeTcpPort();
  await withStarted(["--local-ca", "--acme-http-port", String(httpPort)], async (admin) => {
    const state = await until("the local CA", async () => {
      const s = (await admin.get("/api/https")).body;
      return s.local_ca ? s : s.last_error ? Promise.reject(new Error(s.last_error.message)) : null;
    });
    assert.match(state.local_ca.subject, /Factorio Panel local CA/);
    const ca = await fetch(`http://127.0.0.1:${httpPort}/ca.crt`);
    assert.equal(ca.status, 200);
    assert.match(await ca.text(), /^-----BEGIN CERTIFICATE-----/);
  });
});
