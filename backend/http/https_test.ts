// Settings > HTTPS through the API, against a real ACME CA (pebble) and local doubles of DuckDNS and
// Cloudflare that publish their records into pebble's mock DNS: certificates by HTTP-01 and DNS-01, the
// CA's reason when a check fails, bad input refused, what is kept owner-only and never answered.

import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { type Client, startPanel, type TestPanel, withPanel } from "../../tests/support/harness.ts";
import { type Pebble, startPebble } from "../../tests/support/pebble.ts";
import { type FakeDns, startFakeDns } from "../../tests/fake-dns/server.ts";
import { until } from "../../tests/support/until.ts";
import type { HttpsState } from "../../shared/https.ts";

const DUCK_TOKEN = "duck-0c1d-4e5f-token";
const CF_TOKEN = "cf-token-Zq9xW2";

function mode(path: string): number {
  return statSync(path).mode & 0o777;
}

/** The PEM body of a key file: what must never be in an answer. */
function secretOf(path: string): string {
  return readFileSync(path, "utf8").split("\n").filter((l) => l && !l.startsWith("-----")).join("");
}

async function stateOf(c: Client): Promise<HttpsState> {
  const r = await c.get("/api/https");
  assert.equal(r.status, 200, r.text);
  return r.body;
}

/** Every answer of the HTTPS area, checked for the secrets the panel holds. */
async function assertNoSecrets(c: Client, secrets: string[]): Promise<void> {
  for (const path of ["/api/https", "/api/activity"]) {
    const text = (await c.get(path)).text;
    for (const s of secrets) assert.ok(!text.includes(s.slice(0, 40)), `${path} holds a secret`);
  }
}

/** A panel using pebble and the DNS doubles: DuckDNS holding myhome.duckdns.org, Cloudflare the zone example.test. */
function withDnsPanel(fn: (p: TestPanel, dns: FakeDns, pebble: Pebble) => Promise<void>): Promise<void> {
  return withCa(async (pebble) => {
    const dns = startFakeDns({
      challtestsrv: pebble.challtestsrv,
      duckdnsToken: DUCK_TOKEN,
      duckdnsDomains: ["myhome"],
      cloudflareToken: CF_TOKEN,
      cloudflareZones: { "example.test": "zone-1" },
    });
    try {
      await withPanel((p) => fn(p, dns, pebble), {
        args: [...pebble.args, "--duckdns-url", dns.duckdnsUrl, "--cloudflare-api-url", dns.cloudflareUrl],
      })();
    } finally {
      await dns.close();
    }
  });
}

async function withCa(fn: (pebble: Pebble) => Promise<void>, validitySeconds?: number): Promise<void> {
  const pebble = await startPebble({ validitySeconds });
  try {
    await fn(pebble);
  } finally {
    await pebble.stop();
  }
}

Deno.test("--https-domain: a certificate from the CA by HTTP-01 at start, kept owner-only, reused at the next start, never answered", async () => {
  await withCa(async (pebble) => {
    const args = ["--https-domain", "panel.test", "--acme-email", "admin@example.org", ...pebble.args];
    const first = await startPanel({ args });
    const dataDir = first.dataDir;
    try {
      const admin = await first.login();
      const state = await until("the certificate", async () => {
        const s = await stateOf(admin);
        return s.certificate ? s : null;
      });
      assert.equal(state.mode, "acme");
      assert.equal(state.fixed_by, "--https-domain");
      assert.deepEqual(state.certificate!.names, ["panel.test"]);
      assert.match(state.certificate!.issuer, /Pebble Intermediate CA/);
      assert.equal(state.last_error, null);
      assert.deepEqual(state.acme.domains, ["panel.test"]);
      assert.equal(state.acme.email, "admin@example.org");
      assert.ok(Date.parse(state.next_renewal!) < Date.parse(state.certificate!.not_after));
      assert.equal(pebble.issued(), 1);

      const dir = join(first.dataDir, "https");
      assert.equal(mode(dir), 0o700);
      for (const f of ["acme/key.pem", "acme/account.key", "acme/account.json"]) {
        assert.equal(mode(join(dir, f)), 0o600, f);
      }
      const account = JSON.parse(readFileSync(join(dir, "acme/account.json"), "utf8"));
      await assertNoSecrets(admin, [
        secretOf(join(dir, "acme/key.pem")),
        secretOf(join(dir, "acme/account.key")),
        account.url,
      ]);

      // The plain-HTTP listener: the CA's check was answered there; everything else goes to HTTPS, on the
      // port the HTTPS listener says it has (443 is left out).
      const redirect = () =>
        // node:http: fetch would send its own Host.
        new Promise<string | undefined>((resolve, reject) => {
          http.get({
            host: "127.0.0.1",
            port: pebble.httpPort,
            path: "/saves?x=1",
            headers: { Host: "panel.test" },
          }, (res) => {
            assert.equal(res.statusCode, 308);
            res.resume();
            resolve(res.headers.location);
          }).on("error", reject);
        });
      first.ctx.https.setHttpsPort(8443);
      assert.equal(await redirect(), "https://panel.test:8443/saves?x=1");
      first.ctx.https.setHttpsPort(443);
      assert.equal(await redirect(), "https://panel.test/saves?x=1");
      const unknown = await fetch(`http://127.0.0.1:${pebble.httpPort}/.well-known/acme-challenge/nope`);
      assert.equal(unknown.status, 404);
      await unknown.body?.cancel();

      // The page cannot change what the command line set.
      const refused = await admin.post("/api/https", { domains: ["other.test"] });
      assert.equal(refused.status, 409);
      assert.match(refused.body, /--https-domain/);
    } finally {
      await first.close({ keepData: true });
    }
    const second = await startPanel({ args, dataDir });
    try {
      const admin = await second.login();
      const state = await stateOf(admin);
      assert.deepEqual(state.certificate?.names, ["panel.test"]);
      assert.equal(pebble.issued(), 1, "the kept certificate is served, not a new one");
    } finally {
      await second.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

Deno.test("Settings > HTTPS: DNS-01 through DuckDNS, the token kept owner-only and never answered; Renew now", async () => {
  await withDnsPanel(async (p, dns) => {
    const admin = await p.login();
    assert.equal((await stateOf(admin)).mode, "off");
    const r = await admin.post("/api/https", {
      domains: ["myhome.duckdns.org"],
      email: "me@example.org",
      challenge: "dns-01",
      dns_provider: "duckdns",
      dns_token: DUCK_TOKEN,
    });
    assert.equal(r.status, 200, r.text);
    const state: HttpsState = r.body;
    assert.equal(state.mode, "acme");
    assert.equal(state.fixed_by, null);
    assert.deepEqual(state.certificate?.names, ["myhome.duckdns.org"]);
    assert.equal(state.acme.challenge, "dns-01");
    assert.equal(state.acme.dns_provider, "duckdns");
    assert.equal(state.acme.has_dns_token, true);
    // Set for the check, then cleared; each call carried the token, and only to DuckDNS.
    assert.deepEqual(dns.calls.map((c) => [c.service, c.name, c.value === "" ? "clear" : "set", c.token]), [
      ["duckdns", "_acme-challenge.myhome.duckdns.org", "set", DUCK_TOKEN],
      ["duckdns", "_acme-challenge.myhome.duckdns.org", "clear", DUCK_TOKEN],
    ]);
    assert.equal(dns.published.size, 0);

    const token = join(p.dataDir, "https", "dns-token");
    assert.equal(mode(token), 0o600);
    assert.equal(readFileSync(token, "utf8").trim(), DUCK_TOKEN);
    await assertNoSecrets(admin, [
      DUCK_TOKEN,
      secretOf(join(p.dataDir, "https/acme/key.pem")),
      secretOf(join(p.dataDir, "https/acme/account.key")),
    ]);
    assert.ok(!r.text.includes(DUCK_TOKEN));

    // Renew now: a new certificate with the kept token.
    const renewed = await admin.post("/api/https/renew");
    assert.equal(renewed.status, 200, renewed.text);
    assert.notEqual(renewed.body.certificate.serial, state.certificate!.serial);
    assert.equal(dns.calls.filter((c) => c.value !== "").length, 2);
    assert.ok(dns.calls.every((c) => c.token === DUCK_TOKEN));

    const words = (await admin.get("/api/activity")).text;
    assert.match(words, /myhome\.duckdns\.org/);
  });
});

Deno.test("Settings > HTTPS: DNS-01 through Cloudflare (the zone found by name); a wrong token answers why and keeps nothing", async () => {
  await withDnsPanel(async (p, dns) => {
    const admin = await p.login();
    const settings = {
      domains: ["panel.example.test", "*.panel.example.test"],
      challenge: "dns-01",
      dns_provider: "cloudflare",
    };
    const wrong = await admin.post("/api/https", { ...settings, dns_token: "not-the-token" });
    assert.equal(wrong.status, 424, wrong.text);
    assert.match(
      wrong.body,
      /^No certificate: Cloudflare refused: Authentication error \(check the API token/,
    );
    assert.equal((await stateOf(admin)).mode, "off");
    assert.ok(!existsSync(join(p.dataDir, "https", "dns-token")), "a refused token is not kept");
    assert.ok(!existsSync(join(p.dataDir, "https", "settings.json")));

    dns.calls.length = 0;
    const r = await admin.post("/api/https", { ...settings, dns_token: CF_TOKEN });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual([...r.body.certificate.names].sort(), ["*.panel.example.test", "panel.example.test"]);
    const calls = dns.calls.map((c) => `${c.method} ${c.path}${c.name ? ` ${c.name}` : ""}`);
    // The zone of the name's parents; one record per name (the wildcard's check is on the same name), each deleted.
    assert.deepEqual(calls.filter((c) => c.startsWith("GET")), Array(4).fill("GET /zones"));
    assert.deepEqual(calls.filter((c) => !c.startsWith("GET")), [
      "POST /zones/zone-1/dns_records _acme-challenge.panel.example.test",
      "DELETE /zones/zone-1/dns_records/rec1 _acme-challenge.panel.example.test",
      "POST /zones/zone-1/dns_records _acme-challenge.panel.example.test",
      "DELETE /zones/zone-1/dns_records/rec2 _acme-challenge.panel.example.test",
    ]);
    assert.equal(dns.published.size, 0);
    await assertNoSecrets(admin, [CF_TOKEN]);
  });
});

Deno.test("a check that fails answers 424 with the CA's reason and keeps nothing", async () => {
  await withDnsPanel(async (p, dns, pebble) => {
    const admin = await p.login();
    // The DNS service takes the record but does not publish it: the CA finds none.
    dns.dropRecords = true;
    const r = await admin.post("/api/https", {
      domains: ["myhome.duckdns.org"],
      challenge: "dns-01",
      dns_provider: "duckdns",
      dns_token: DUCK_TOKEN,
    });
    assert.equal(r.status, 424, r.text);
    assert.match(r.body, /^No certificate: The CA could not confirm myhome\.duckdns\.org: .*No TXT record/);

    // HTTP-01 for a name whose address is not this machine: the CA says where it could not connect.
    const a = await fetch(`${pebble.challtestsrv}/add-a`, {
      method: "POST",
      body: JSON.stringify({ host: "elsewhere.test", addresses: ["127.0.0.2"] }),
    });
    await a.body?.cancel();
    const elsewhere = await admin.post("/api/https", { domains: ["elsewhere.test"] });
    assert.equal(elsewhere.status, 424, elsewhere.text);
    assert.match(
      elsewhere.body,
      /^No certificate: The CA could not confirm elsewhere\.test: .*127\.0\.0\.2.*connection refused/,
    );

    const state = await stateOf(admin);
    assert.equal(state.mode, "off");
    assert.equal(state.certificate, null);
    for (const f of ["settings.json", "dns-token", "acme/cert.pem"]) {
      assert.ok(!existsSync(join(p.dataDir, "https", f)), f);
    }
  });
});

Deno.test(
  "bad settings answer 400 with what to change, and change nothing",
  withPanel(async (p: TestPanel) => {
    const admin = await p.login();
    const cases: [unknown, RegExp][] = [
      [{ domains: [] }, /at least one domain/],
      [{ domains: ["not a domain!"] }, /is not a domain name/],
      [{ domains: ["192.168.1.5"] }, /is an address, not a name.*--local-ca/],
      [{ domains: ["panel"] }, /full domain name/],
      [{ domains: ["*.example.org"] }, /wildcard.*DNS-01/],
      [{ domains: ["a.example.org"], challenge: "dns-01" }, /DNS service/],
      [
        { domains: ["a.example.org"], challenge: "dns-01", dns_provider: "duckdns", dns_token: "t" },
        /DuckDNS holds only names ending in \.duckdns\.org/,
      ],
      [
        { domains: ["x.duckdns.org"], challenge: "dns-01", dns_provider: "duckdns" },
        /needs the DuckDNS API token/,
      ],
      [
        { domains: ["x.duckdns.org"], challenge: "dns-01", dns_provider: "duckdns", dns_token: "two words" },
        /token/,
      ],
      [{ domains: ["a.example.org"], email: "nobody" }, /e-mail address/],
      [{ domains: ["a.example.org"], challenge: "tls-alpn-01" }, /http-01 or dns-01/],
      [{ domains: ["a.example.org"], challenge: "dns-01", dns_provider: "route53" }, /duckdns or cloudflare/],
      [{ domains: "a.example.org b" }, /full domain name/],
    ];
    for (const [body, pattern] of cases) {
      const r = await admin.post("/api/https", body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.match(r.body, pattern, JSON.stringify(body));
    }
    assert.equal((await admin.post("/api/https/renew")).status, 409);
    const state = await stateOf(admin);
    assert.equal(state.mode, "off");
    assert.ok(!existsSync(join(p.dataDir, "https", "settings.json")));
    // The local CA's download is there only with --local-ca.
    assert.equal((await p.client().get("/ca.crt")).status, 404);
  }),
);

Deno.test("an ACME server whose certificate the panel does not trust: 424 saying so (--acme-ca-file is how to trust it)", async () => {
  await withCa(async (pebble) => {
    const args = pebble.args.filter((a, i, all) => a !== "--acme-ca-file" && all[i - 1] !== "--acme-ca-file");
    await withPanel(async (p) => {
      const admin = await p.login();
      const r = await admin.post("/api/https", { domains: ["panel.test"] });
      assert.equal(r.status, 424, r.text);
      assert.match(
        r.body,
        /^No certificate: Could not reach 127\.0\.0\.1:\d+: .*(certificate|UnknownIssuer)/i,
      );
    }, { args })();
  });
});
