// HTTPS in the program the user runs (the launcher: the bundled backend, npm start's permissions): a
// certificate from an ACME CA (pebble) and the local CA. The in-process tests run the sources; this one
// caught the bundle loading @peculiar/x509 before its Reflect polyfill.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type PanelProcess, type PanelProcessOptions, startPanelProcess } from "../support/process.ts";
import { connectProxy, h2Status, handshake } from "../support/tls.ts";
import type { Client } from "../support/harness.ts";
import { startPebble } from "../support/pebble.ts";
import { freeTcpPort } from "../fake-factorio/sim.ts";

const PASSWORD = "smoke-https-password";

async function withStarted(
  args: string[],
  fn: (admin: Client, panel: PanelProcess, dataDir: string) => Promise<void>,
  https?: (dataDir: string) => PanelProcessOptions["https"],
) {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-https-"));
  const panel = await startPanelProcess({
    args: ["--port", "0", "--bind", "127.0.0.1", "--data-dir", dataDir, ...args],
    env: { PANEL_ADMIN_PASSWORD: PASSWORD },
    https: https?.(dataDir),
  });
  try {
    await fn(await panel.login("admin", PASSWORD), panel, dataDir);
  } finally {
    assert.equal(await panel.stop(), 0, panel.output());
    rmSync(dataDir, { recursive: true, force: true });
  }
}

Deno.test("the panel started by the launcher gets a certificate from the CA before it listens, serves it over HTTP/2 to its name, and renews it when asked", async () => {
  const pebble = await startPebble();
  const root = await pebble.root();
  // panel.test resolves nowhere: the client reaches it through a proxy to 127.0.0.1 and checks the name
  // (the proxy needs the port before the panel listens on it).
  const port = await freeTcpPort();
  const proxy = connectProxy(port);
  const http = Deno.createHttpClient({ caCerts: [root], proxy: { url: proxy.url } });
  try {
    await withStarted(
      ["--https-domain", "panel.test", ...pebble.args, "--port", String(port)],
      async (admin, panel) => {
        // The first answer was over HTTPS already: the certificate was got before listening.
        assert.match(panel.output(), new RegExp(`listening on https://127\\.0\\.0\\.1:${port}`));
        assert.match(panel.output(), new RegExp(`Over HTTPS as: https://panel\\.test:${port}`));
        const state = (await admin.get("/api/https")).body;
        assert.deepEqual(state.certificate.names, ["panel.test"]);
        assert.match(state.certificate.issuer, /Pebble/);
        // HTTP/2 by ALPN, with the certificate the state names.
        const hello = await handshake(port, root, "panel.test");
        assert.equal(hello.alpn, "h2");
        assert.equal(
          hello.serial.replace(/^0+/, ""),
          state.certificate.serial.toUpperCase().replace(/^0+/, ""),
        );
        // HTTP/2 has no Host header: the host check reads :authority (DNS rebinding); the domain passes it (on to the session check).
        assert.equal(await h2Status(port, root, "panel.test", `panel.test:${port}`, "/api/user/status"), 401);
        assert.equal(
          await h2Status(port, root, "panel.test", `attacker.example:${port}`, "/api/user/status"),
          421,
        );
        // A public CA's certificate: HSTS on the answers.
        const res = await fetch(`https://panel.test:${port}/`, { client: http });
        await res.body?.cancel();
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("strict-transport-security"), "max-age=31536000");
        const renewed = await admin.post("/api/https/renew");
        assert.equal(renewed.status, 200, renewed.text);
        assert.notEqual(renewed.body.certificate.serial, state.certificate.serial);
      },
      () => ({ name: "panel.test", http }),
    );
  } finally {
    proxy.close();
    http.close();
    await pebble.stop();
  }
});

Deno.test("the panel started by the launcher makes its local CA, serves HTTPS with it, and its certificate for download", async () => {
  const httpPort = await freeTcpPort();
  const made: { http?: Deno.HttpClient } = {};
  const caFile = (dataDir: string) => join(dataDir, "https", "local-ca", "ca.pem");
  await withStarted(["--local-ca", "--acme-http-port", String(httpPort)], async (admin, panel, dataDir) => {
    assert.match(panel.output(), /listening on https:\/\/127\.0\.0\.1:/);
    const state = (await admin.get("/api/https")).body;
    assert.match(state.local_ca.subject, /Factorio Panel local CA/);
    // The download, on the plain-HTTP port a phone opens before it trusts the panel.
    const ca = await fetch(`http://127.0.0.1:${httpPort}/ca.crt`);
    assert.equal(ca.status, 200);
    const pem = await ca.text();
    assert.match(pem, /^-----BEGIN CERTIFICATE-----/);
    assert.equal(pem, readFileSync(caFile(dataDir), "utf8"));
    // The local CA is not a public one: no HSTS (a device that stops trusting it must still get in).
    const res = await fetch(`${panel.url}/`, { client: made.http });
    await res.body?.cancel();
    assert.equal(res.headers.get("strict-transport-security"), null);
  }, (dataDir) => ({
    name: "127.0.0.1",
    // Made at the panel's start: trusted once it is there.
    http: () => made.http = Deno.createHttpClient({ caCerts: [readFileSync(caFile(dataDir), "utf8")] }),
  }));
  made.http?.close();
});
