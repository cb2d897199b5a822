// A real ACME CA for tests: Debian's pebble (RFC 8555 test server) and pebble-challtestsrv (its mock DNS),
// on free ports of this machine, with pebble's own HTTPS certificate made by openssl at test time.
// challtestsrv answers every name with 127.0.0.1, so pebble's check for HTTP-01 connects to
// 127.0.0.1:<httpPort>: the panel under test listens there (--acme-http-port). DNS-01 records reach
// pebble through challtestsrv's management API (/set-txt), which tests/fake-dns/ calls like DuckDNS or
// Cloudflare would update their DNS. scripts/ensure-system.sh installs the package.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import dgram from "node:dgram";
import { freeTcpPort, freeUdpPort } from "../fake-factorio/sim.ts";
import { until } from "./until.ts";

export interface Pebble {
  /** The ACME directory (the panel's --acme-directory-url). */
  directoryUrl: string;
  /** The CA of pebble's own HTTPS certificate (the panel's --acme-ca-file). */
  tlsCaFile: string;
  /** Where pebble's check connects for HTTP-01 (the panel's --acme-http-port). */
  httpPort: number;
  /** challtestsrv's management API: /set-txt, /clear-txt, /add-a, ... */
  challtestsrv: string;
  /** The panel's flags for this CA. */
  args: string[];
  /** The root that signs pebble's certificates (new at each start). */
  root(): Promise<string>;
  /** Certificates pebble has issued (from its log). */
  issued(): number;
  /** Ends pebble and challtestsrv (the CA goes away); its files stay until stop(). */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

export interface PebbleOptions {
  /** Lifetime of the certificates it issues (pebble's default: 5 years). */
  validitySeconds?: number;
}

async function run(cmd: string, args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" }).output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** Pebble's HTTPS certificate (for 127.0.0.1 and localhost), signed by a CA of its own. */
async function makeTls(dir: string): Promise<void> {
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-days",
    "7",
    "-subj",
    "/CN=pebble test TLS CA",
    "-keyout",
    "tls-ca.key",
    "-out",
    "tls-ca.pem",
    "-addext",
    "basicConstraints=critical,CA:TRUE",
    "-addext",
    "keyUsage=critical,keyCertSign,cRLSign",
  ], dir);
  await run("openssl", [
    "req",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:P-256",
    "-nodes",
    "-subj",
    "/CN=localhost",
    "-keyout",
    "tls.key",
    "-out",
    "tls.csr",
  ], dir);
  writeFileSync(
    join(dir, "tls.ext"),
    "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\nbasicConstraints=critical,CA:FALSE\n",
  );
  await run("openssl", [
    "x509",
    "-req",
    "-in",
    "tls.csr",
    "-CA",
    "tls-ca.pem",
    "-CAkey",
    "tls-ca.key",
    "-CAcreateserial",
    "-days",
    "7",
    "-extfile",
    "tls.ext",
    "-out",
    "tls.pem",
  ], dir);
}

function udpBindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = dgram.createSocket("udp4");
    s.once("error", () => resolve(false));
    s.bind(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

function installed(): boolean {
  try {
    Deno.statSync("/usr/bin/pebble");
    Deno.statSync("/usr/bin/pebble-challtestsrv");
    return true;
  } catch {
    return false;
  }
}

export async function startPebble(opts: PebbleOptions = {}): Promise<Pebble> {
  if (!installed()) {
    throw new Error("pebble is not installed: run scripts/ensure-system.sh as root (apt-get install pebble)");
  }
  const dir = mkdtempSync(join(tmpdir(), "pebble-"));
  await makeTls(dir);
  const [acmePort, managementPort, httpPort, tlsPort, challtestPort, dnsPort] = [
    await freeTcpPort(),
    await freeTcpPort(),
    await freeTcpPort(),
    await freeTcpPort(),
    await freeTcpPort(),
    await freeUdpPort(),
  ];
  // freeUdpPort() closes its probe without waiting: challtestsrv would find the port still taken, and
  // answer DNS on TCP alone.
  await until("the DNS port to be free", () => udpBindable(dnsPort), 5000);
  writeFileSync(
    join(dir, "pebble.json"),
    JSON.stringify({
      pebble: {
        listenAddress: `127.0.0.1:${acmePort}`,
        managementListenAddress: `127.0.0.1:${managementPort}`,
        certificate: "tls.pem",
        privateKey: "tls.key",
        httpPort,
        tlsPort,
        ocspResponderURL: "",
        externalAccountBindingRequired: false,
        ...(opts.validitySeconds ? { certificateValidityPeriod: opts.validitySeconds } : {}),
      },
    }),
  );
  const procs: Deno.ChildProcess[] = [];
  const start = (cmd: string, args: string[], env: Record<string, string> = {}) => {
    // Its output straight into a file by the shell (then exec'd: the pid is the program's); read through a
    // pipe, it came only when the program ended.
    const child = new Deno.Command("sh", {
      args: ["-c", `exec "$0" "$@" >${cmd}.log 2>&1`, cmd, ...args],
      cwd: dir,
      env,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    procs.push(child);
    return child;
  };
  // Its own challenge servers off: the panel answers HTTP-01 itself, on pebble's httpPort. No IPv6 answer,
  // or pebble tries [::1] first where the panel does not listen.
  start("pebble-challtestsrv", [
    "-defaultIPv4",
    "127.0.0.1",
    "-defaultIPv6",
    "",
    "-dns01",
    `127.0.0.1:${dnsPort}`,
    "-management",
    `127.0.0.1:${challtestPort}`,
    "-http01",
    "",
    "-https01",
    "",
    "-tlsalpn01",
    "",
  ]);
  // Every order runs its checks (no reused authorisations) and without pebble's random sleeps; no nonce
  // refused on purpose, so a test's log reads the same every run.
  start("pebble", ["-config", "pebble.json", "-dnsserver", `127.0.0.1:${dnsPort}`, "-strict"], {
    PEBBLE_VA_NOSLEEP: "1",
    PEBBLE_AUTHZREUSE: "0",
    PEBBLE_WFE_NONCEREJECT: "0",
  });
  const tlsCaFile = join(dir, "tls-ca.pem");
  const client = Deno.createHttpClient({ caCerts: [Deno.readTextFileSync(tlsCaFile)] });
  const challtestsrv = `http://127.0.0.1:${challtestPort}`;
  const kill = async () => {
    for (const p of procs) {
      try {
        p.kill("SIGTERM");
      } catch {
        // already gone
      }
    }
    await Promise.all(procs.map((p) => p.status));
  };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    client.close();
    await kill();
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await until("pebble and challtestsrv to answer", async () => {
      try {
        const dirAnswer = await fetch(`https://127.0.0.1:${acmePort}/dir`, { client });
        await dirAnswer.body?.cancel();
        const mgmt = await fetch(`${challtestsrv}/set-default-ipv6`, {
          method: "POST",
          body: JSON.stringify({ ip: "" }),
        });
        await mgmt.body?.cancel();
        // Its DNS too: it may answer its management API before it listens for DNS.
        const a = await Deno.resolveDns("ready.test", "A", {
          nameServer: { ipAddr: "127.0.0.1", port: dnsPort },
          signal: AbortSignal.timeout(500),
        });
        return dirAnswer.ok && mgmt.ok && a.includes("127.0.0.1");
      } catch {
        return false;
      }
    }, 30_000);
  } catch (e) {
    await stop();
    throw e;
  }
  const directoryUrl = `https://127.0.0.1:${acmePort}/dir`;
  return {
    directoryUrl,
    tlsCaFile,
    httpPort,
    challtestsrv,
    args: [
      "--acme-directory-url",
      directoryUrl,
      "--acme-ca-file",
      tlsCaFile,
      "--acme-http-port",
      String(httpPort),
      "--acme-dns-wait",
      "0",
    ],
    root: async () => await (await fetch(`https://127.0.0.1:${managementPort}/roots/0`, { client })).text(),
    issued: () => {
      try {
        return (Deno.readTextFileSync(join(dir, "pebble.log")).match(/Issued certificate serial/g) ?? [])
          .length;
      } catch {
        return 0;
      }
    },
    kill,
    stop,
  };
}
