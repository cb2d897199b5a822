// HTTPS served by the panel itself (--https-cert/--https-key): the protocol curl gets when it offers HTTP/2
// by ALPN (`curl --http2`), and the time of 200 sign-in checks over one HTTP/2 connection, beside a bare
// Deno.serve with the same certificate in the same run. The certificate is the test one for 127.0.0.1
// (tests/fake-push/tls, signed by its own CA).
//   node bench/https.mjs

import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT, startBare, startPanel, stopBare, stopPanel } from "./lib.mjs";

const TLS = join(ROOT, "tests", "fake-push", "tls");
const cert = join(TLS, "cert.pem");
const key = join(TLS, "key.pem");
const ca = join(TLS, "ca.pem");
const REQUESTS = 200;

/** curl --http2 against `url`, `REQUESTS` times over one connection: the protocol it got and the seconds taken. */
function curlH2(url) {
  const urls = Array.from({ length: REQUESTS }, () => ["-o", "/dev/null", url]).flat();
  const r = spawnSync("curl", ["--http2", "--cacert", ca, "-s", "-w", "%{http_version} %{time_total}\\n", ...urls], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`curl: ${r.stderr}`);
  const lines = r.stdout.trim().split("\n").map((l) => l.split(" "));
  return { versions: [...new Set(lines.map((l) => l[0]))].join(", "), seconds: lines.reduce((s, l) => s + Number(l[1]), 0) };
}

const panel = await startPanel({ args: ["--https-cert", cert, "--https-key", key] });
const bare = await startBare('"ok"', "application/json", { tls: { cert, key } });
try {
  const p = curlH2(panel.url.replace("localhost", "127.0.0.1") + "/api/user/status");
  const b = curlH2(bare.url + "/");
  console.log(
    `HTTPS by the panel itself, curl --http2 (ALPN), ${REQUESTS} requests: panel HTTP/${p.versions} in ${p.seconds.toFixed(2)} s; ` +
      `bare Deno.serve, same certificate: HTTP/${b.versions} in ${b.seconds.toFixed(2)} s; the panel takes ${(p.seconds / b.seconds).toFixed(2)} x that ` +
      `(target: HTTP/2 offered)`,
  );
} finally {
  await stopBare(bare);
  await stopPanel(panel);
}
