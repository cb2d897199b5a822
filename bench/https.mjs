// HTTPS served by the panel itself (--https-cert/--https-key): the protocol curl gets when it offers HTTP/2
// by ALPN (`curl --http2`), and the time of 200 sign-in checks over one HTTP/2 connection, beside a bare
// Deno.serve with the same certificate in the same run. The certificate is the test one for 127.0.0.1
// (tests/fake-push/tls, signed by its own CA).
// Then the time from start to the first answer over HTTPS with HTTP/2: the panel with that certificate
// (--https-cert) beside the bare Deno.serve, and the panel getting its certificate from pebble (a real
// ACME CA on this machine, --https-domain, HTTP-01) before it listens.
//   node bench/https.mjs

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, ROOT, startBare, startPanel, stopBare, stopPanel } from "./lib.mjs";
import { startPebbleProcess } from "../tests/pebble/launch.mjs";

const TLS = join(ROOT, "tests", "fake-push", "tls");
const cert = join(TLS, "cert.pem");
const key = join(TLS, "key.pem");
const ca = join(TLS, "ca.pem");
const REQUESTS = 200;

/** curl --http2 against `url`, `REQUESTS` times over one connection: the protocol it got and the seconds taken. */
function curlH2(url) {
  const urls = Array.from({ length: REQUESTS }, () => ["-o", "/dev/null", url]).flat();
  const r = spawnSync("curl", [
    "--http2",
    "--cacert",
    ca,
    "-s",
    "-w",
    "%{http_version} %{time_total}\\n",
    ...urls,
  ], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`curl: ${r.stderr}`);
  const lines = r.stdout.trim().split("\n").map((l) => l.split(" "));
  return {
    versions: [...new Set(lines.map((l) => l[0]))].join(", "),
    seconds: lines.reduce((s, l) => s + Number(l[1]), 0),
  };
}

const panel = await startPanel({ args: ["--https-cert", cert, "--https-key", key] });
const bare = await startBare('"ok"', "application/json", { tls: { cert, key } });
try {
  const p = curlH2(panel.url.replace("localhost", "127.0.0.1") + "/api/user/status");
  const b = curlH2(bare.url + "/");
  console.log(
    `HTTPS by the panel itself, curl --http2 (ALPN), ${REQUESTS} requests: panel HTTP/${p.versions} in ${
      p.seconds.toFixed(2)
    } s; ` +
      `bare Deno.serve, same certificate: HTTP/${b.versions} in ${b.seconds.toFixed(2)} s; the panel takes ${
        (p.seconds / b.seconds).toFixed(2)
      } x that ` +
      `(target: HTTP/2 offered)`,
  );
} finally {
  await stopBare(bare);
  await stopPanel(panel);
}

/**
 * GETs over HTTP/2 (curl, ALPN, the certificate checked) until one is answered (any status: the panel's is
 * 401 without a session). `resolve` maps a name to 127.0.0.1 (curl --resolve).
 */
function firstH2Answer(url, caFile, resolve = []) {
  const deadline = Date.now() + 60_000;
  let last = "";
  while (Date.now() < deadline) {
    const r = spawnSync("curl", [
      "--http2",
      "--cacert",
      caFile,
      ...resolve.flatMap((x) => ["--resolve", x]),
      "-s",
      "-o",
      "/dev/null",
      "-w",
      "%{http_version} %{http_code}",
      url,
    ], { encoding: "utf8" });
    if (r.status === 0 && r.stdout.startsWith("2 ")) return;
    last = `curl exit ${r.status}: ${r.stdout} ${r.stderr}`;
  }
  throw new Error(`no HTTP/2 answer from ${url} within 60 s (${last})`);
}

/** Milliseconds from spawning to the first HTTP/2 answer over HTTPS, for `start` (resolves to a server with url). */
async function startToFirstAnswer(start, path, caFile, name = null) {
  const began = performance.now();
  const server = await start();
  const port = new URL(server.url).port;
  const url = `https://${name ?? "127.0.0.1"}:${port}${path}`;
  firstH2Answer(url, caFile, name ? [`${name}:${port}:127.0.0.1`] : []);
  return { ms: performance.now() - began, server };
}

const RUNS = 5;
const panelMs = [], bareMs = [];
for (let i = 0; i < RUNS; i++) {
  const p = await startToFirstAnswer(
    () => startPanel({ args: ["--https-cert", cert, "--https-key", key] }),
    "/api/user/status",
    ca,
  );
  await stopPanel(p.server);
  panelMs.push(p.ms);
  const b = await startToFirstAnswer(
    () => startBare('"ok"', "application/json", { tls: { cert, key } }),
    "/",
    ca,
  );
  await stopBare(b.server);
  bareMs.push(b.ms);
}
console.log(
  `Start to the first HTTPS answer over HTTP/2 (median of ${RUNS}): panel with --https-cert ${
    median(panelMs).toFixed(0)
  } ms; ` +
    `bare Deno.serve, same certificate: ${median(bareMs).toFixed(0)} ms; the panel takes ${
      (median(panelMs) / median(bareMs)).toFixed(2)
    } x that`,
);

const pebble = await startPebbleProcess();
const rootDir = mkdtempSync(join(tmpdir(), "bench-pebble-root-"));
try {
  const root = join(rootDir, "root.pem");
  writeFileSync(root, pebble.root);
  const acmeMs = [];
  for (let i = 0; i < RUNS; i++) {
    // A new data dir each time: the certificate is got from the CA, not the one kept by the last run.
    const p = await startToFirstAnswer(
      () => startPanel({ args: ["--https-domain", "panel.test", ...pebble.args] }),
      "/api/user/status",
      root,
      "panel.test",
    );
    await stopPanel(p.server);
    acmeMs.push(p.ms);
  }
  console.log(
    `Start to the first HTTPS answer over HTTP/2 with a certificate got from an ACME CA at start (pebble, HTTP-01; median of ${RUNS}): ` +
      `${median(acmeMs).toFixed(0)} ms; ${
        (median(acmeMs) / median(bareMs)).toFixed(2)
      } x the bare Deno.serve that has its certificate already`,
  );
} finally {
  rmSync(rootDir, { recursive: true, force: true });
  await pebble.stop();
}
