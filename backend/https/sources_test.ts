// The two certificate sources without an ACME CA: files given with --https-cert/--https-key, read again
// when they change (certbot, `tailscale cert`), and the panel's own CA (--local-ca), whose certificate
// devices download from /ca.crt.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { ADMIN_PASSWORD, Client, startPanel, withPanel } from "../../tests/support/harness.ts";
import { until } from "../../tests/support/until.ts";
import { handshake } from "../../tests/support/tls.ts";
import { createCa, issueLeaf } from "./localca.ts";
import { readCertificate } from "./certs.ts";
import { serveWithCertificates } from "./listener.ts";
import { freeTcpPort } from "../../tests/fake-factorio/sim.ts";
import type { ServedCertificate } from "./manager.ts";

/** Writes `text` to `path` as certbot does: a new file renamed over the old one. */
function replace(path: string, text: string): void {
  writeFileSync(`${path}.new`, text);
  renameSync(`${path}.new`, path);
}

const serialOf = (pem: string) => readCertificate(pem).facts.serial;

Deno.test("--https-cert/--https-key are read again when they change; a pair that does not belong together is not served", async () => {
  const dir = mkdtempSync(join(tmpdir(), "certs-"));
  const now = Date.now();
  const ca = await createCa("", now);
  const [a, b, c] = [
    await issueLeaf(ca, ["localhost"], now),
    await issueLeaf(ca, ["localhost"], now),
    await issueLeaf(ca, ["localhost"], now),
  ];
  // certbot's layout: live/ holds links into archive/, and a renewal points them at new files.
  for (const [name, pair] of [["1", a], ["2", b], ["3", c]] as const) {
    writeFileSync(join(dir, `cert${name}.pem`), pair.cert);
    writeFileSync(join(dir, `key${name}.pem`), pair.key);
  }
  const cert = join(dir, "cert.pem"), key = join(dir, "key.pem");
  symlinkSync(join(dir, "cert1.pem"), cert);
  symlinkSync(join(dir, "key1.pem"), key);
  try {
    await withPanel(async (p) => {
      const seen: ServedCertificate[] = [];
      p.ctx.bus.on("https.certificate", (e) => seen.push(e));
      // The harness serves plain HTTP: a request is HTTPS only when it came over TLS, whatever the options.
      const admin = new Client(p.url, p.url);
      assert.equal(
        (await admin.post("/api/login", { username: "admin", password: ADMIN_PASSWORD })).status,
        200,
      );
      const state = async () => (await admin.get("/api/https")).body;
      const first = await state();
      assert.equal(first.mode, "files");
      assert.equal(first.fixed_by, "--https-cert");
      assert.equal(first.certificate.serial, serialOf(a.cert));
      assert.equal(first.next_renewal, null);
      assert.equal((await admin.post("/api/https/renew")).status, 409);

      // The links move to the next pair, key first, as certbot does.
      symlinkSync(join(dir, "key2.pem"), `${key}.link`);
      renameSync(`${key}.link`, key);
      symlinkSync(join(dir, "cert2.pem"), `${cert}.link`);
      renameSync(`${cert}.link`, cert);
      await until(
        "the second certificate",
        async () => (await state()).certificate.serial === serialOf(b.cert),
      );
      assert.equal(seen.at(-1)?.cert, b.cert);
      assert.equal((await state()).last_error, null);

      // A certificate without its key yet: the one served stays, and the page says why.
      replace(cert, c.cert);
      await until("the reason", async () => (await state()).last_error?.message.includes("does not belong"));
      assert.equal((await state()).certificate.serial, serialOf(b.cert));
      assert.equal(seen.at(-1)?.cert, b.cert);
      replace(key, c.key);
      await until(
        "the third certificate",
        async () => (await state()).certificate.serial === serialOf(c.cert),
      );
      assert.equal((await state()).last_error, null);
      assert.equal(seen.at(-1)?.cert, c.cert);
    }, { args: ["--https-cert", cert, "--https-key", key] })();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("--local-ca: a name-constrained CA kept owner-only, a certificate for this machine signed by it, the CA public at /ca.crt", async () => {
  // The plain-HTTP listener on a port of the test's own, not 80.
  const httpPort = await freeTcpPort();
  const args = ["--local-ca", "--acme-http-port", String(httpPort)];
  const p = await startPanel({ args });
  const dataDir = p.dataDir;
  let caPem = "";
  let leafSerial = "";
  try {
    const admin = await p.login();
    const state = (await admin.get("/api/https")).body;
    assert.equal(state.mode, "local-ca");
    assert.equal(state.fixed_by, "--local-ca");
    assert.match(
      state.local_ca.subject,
      /^CN=Factorio Panel local CA.*\(\d{4}-\d\d-\d\d\), O=Factorio Panel$/,
    );
    assert.equal(state.local_ca.download_path, "/ca.crt");
    for (const n of ["localhost", "127.0.0.1"]) assert.ok(state.certificate.names.includes(n), n);
    assert.equal(state.certificate.issuer, state.local_ca.subject);
    const days = (Date.parse(state.certificate.not_after) - Date.parse(state.certificate.not_before)) /
      86_400_000;
    assert.ok(days <= 398, `${days} days`);
    leafSerial = state.certificate.serial;

    const dir = join(dataDir, "https", "local-ca");
    assert.equal(statSync(join(dir, "ca.key")).mode & 0o777, 0o600);
    assert.equal(statSync(join(dir, "key.pem")).mode & 0o777, 0o600);
    caPem = readFileSync(join(dir, "ca.pem"), "utf8");

    // Anyone may download the CA (a phone does, before it trusts the panel); never a key.
    const download = await p.client().get("/ca.crt");
    assert.equal(download.status, 200);
    assert.equal(download.headers.get("content-type"), "application/x-x509-ca-cert");
    assert.equal(download.text, caPem);
    assert.ok(!download.text.includes("PRIVATE KEY"));
    // Also over plain HTTP, where a phone gets it without a warning to click through; the rest goes to HTTPS.
    const plain = await fetch(`http://127.0.0.1:${httpPort}/ca.crt`);
    assert.equal(plain.headers.get("content-type"), "application/x-x509-ca-cert");
    assert.equal(await plain.text(), caPem);
    const other = await fetch(`http://127.0.0.1:${httpPort}/`, { redirect: "manual" });
    assert.equal(other.status, 308);
    await other.body?.cancel();
    assert.equal(state.acme.http_listening, true);
    assert.ok(
      !(await admin.get("/api/https")).text.includes(
        readFileSync(join(dir, "ca.key"), "utf8").split("\n")[1],
      ),
    );

    // It may vouch only for LAN names and private addresses.
    const text = new TextDecoder().decode(
      (await new Deno.Command("openssl", { args: ["x509", "-noout", "-text", "-in", join(dir, "ca.pem")] })
        .output()).stdout,
    );
    assert.match(text, /Name Constraints: critical[^]*DNS:lan[^]*IP:192\.168\.0\.0\/255\.255\.0\.0/);

    // A TLS client that trusts the CA accepts the certificate the panel serves.
    const server = serveWithCertificates({
      handler: () => new Response("ok"),
      certificates: p.ctx.https,
      bus: p.ctx.bus,
      port: 0,
      hostname: "127.0.0.1",
      openWebSockets: () => 0,
      log: p.ctx.log,
    });
    try {
      const shook = await handshake(server.addr.port, download.text, "localhost");
      assert.equal(shook.serial.replace(/^0+/, ""), leafSerial.replace(/^0+/, ""));
    } finally {
      await server.shutdown();
    }

    const renewed = await admin.post("/api/https/renew");
    assert.equal(renewed.status, 200, renewed.text);
    assert.notEqual(renewed.body.certificate.serial, leafSerial);
    assert.equal(renewed.body.local_ca.fingerprint_sha256, state.local_ca.fingerprint_sha256);
    leafSerial = renewed.body.certificate.serial;
  } finally {
    await p.close({ keepData: true });
  }
  // The next start serves the same CA and the same certificate.
  const again = await startPanel({ args, dataDir });
  try {
    const state = again.ctx.https.state();
    assert.equal(state.certificate?.serial, leafSerial);
    assert.equal(again.ctx.https.caCertificate(), caPem);
  } finally {
    await again.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
