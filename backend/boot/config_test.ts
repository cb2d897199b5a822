import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { type Config, ConfigError, helpText, loadConfig } from "./config.ts";
import { OPTIONS } from "./options.ts";

function cfg(args: string[], env: Record<string, string> = {}): Config {
  const r = loadConfig(args, env);
  if (r.kind !== "config") throw new Error("expected a config");
  return r.config;
}

Deno.test("defaults: port 8080, bind 0.0.0.0, data dir ./data and the paths derived from it", () => {
  const c = cfg([]);
  assert.equal(c.port, 8080);
  assert.equal(c.bind, "0.0.0.0");
  assert.equal(c.dataDir, resolve("data"));
  assert.equal(c.factorioDir, join(resolve("data"), "factorio"));
  assert.equal(c.factorioBinary, join(resolve("data"), "factorio", "bin", "x64", "factorio"));
  assert.equal(c.httpsCert, null);
  assert.equal(c.trustProxy, false);
});

Deno.test("derived defaults follow the options they depend on", () => {
  const c = cfg(["--data-dir", "/srv/panel"]);
  assert.equal(c.factorioDir, "/srv/panel/factorio");
  assert.equal(c.factorioBinary, "/srv/panel/factorio/bin/x64/factorio");
  const d = cfg(["--factorio-dir=/opt/factorio"]);
  assert.equal(d.factorioBinary, "/opt/factorio/bin/x64/factorio");
});

Deno.test("flags win over PANEL_* variables, which win over the config file", () => {
  const dir = mkdtempSync(join(tmpdir(), "cfg-"));
  try {
    const file = join(dir, "panel.json");
    writeFileSync(file, JSON.stringify({ port: 7000, bind: "127.0.0.1", "session-days": 3 }));
    const fileOnly = cfg(["--config", file]);
    assert.equal(fileOnly.port, 7000);
    assert.equal(fileOnly.sessionDays, 3);
    const envWins = cfg(["--config", file], { PANEL_PORT: "7100" });
    assert.equal(envWins.port, 7100);
    assert.equal(envWins.bind, "127.0.0.1");
    const flagWins = cfg(["--config", file, "--port", "7200"], { PANEL_PORT: "7100" });
    assert.equal(flagWins.port, 7200);
    const viaEnvFile = cfg([], { PANEL_CONFIG: file });
    assert.equal(viaEnvFile.port, 7000);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

Deno.test("bad values stop start-up with one line naming the option", () => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [["--port", "abc"], {}, /^Invalid value for --port: "abc"/],
    [["--port", "70000"], {}, /--port/],
    [[], { PANEL_PORT: "-1" }, /PANEL_PORT/],
    [["--bind", "not an address!"], {}, /--bind/],
    [["--trust-proxy=maybe"], {}, /--trust-proxy/],
    [["--https-cert", "/nonexistent/cert.pem", "--https-key", "/nonexistent/key.pem"], {}, /--https-cert/],
    [["--allowed-origins", "example.org"], {}, /--allowed-origins/],
    // A path, query or user name can never equal a browser's Origin: refused rather than never matching.
    [["--allowed-origins", "https://host.example/panel"], {}, /--allowed-origins.*no path/],
    [["--allowed-origins", "https://user@host.example"], {}, /--allowed-origins/],
    [["--frobnicate"], {}, /Unknown option --frobnicate/],
    [["--port"], {}, /--port needs a value/],
    [["stray"], {}, /Unexpected argument "stray"/],
    [["--config", "/nonexistent/panel.json"], {}, /--config file/],
    [["--push-subject", "admin@example.org"], {}, /--push-subject.*mailto:/],
    [["--push-subject", "http://example.org"], {}, /--push-subject/],
    [["--push-ca-file", "/nonexistent/ca.pem"], {}, /--push-ca-file/],
  ];
  for (const [args, env, pattern] of cases) {
    assert.throws(() => loadConfig(args, env), (e: unknown) => {
      assert.ok(e instanceof ConfigError, String(e));
      assert.match(e.message, pattern);
      assert.ok(!e.message.includes("\n"), "one line");
      return true;
    }, args.join(" "));
  }
});

Deno.test("a config file with an unknown key or bad JSON is refused", () => {
  const dir = mkdtempSync(join(tmpdir(), "cfg-"));
  try {
    const unknown = join(dir, "a.json");
    writeFileSync(unknown, JSON.stringify({ prot: 1 }));
    assert.throws(() => loadConfig(["--config", unknown], {}), /Unknown option "prot"/);
    const broken = join(dir, "b.json");
    writeFileSync(broken, "{ port: ");
    assert.throws(() => loadConfig(["--config", broken], {}), /not valid JSON/);
    const typed = join(dir, "c.json");
    writeFileSync(typed, JSON.stringify({ port: "eighty" }));
    assert.throws(() => loadConfig(["--config", typed], {}), /"port" in/);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

Deno.test("--max-connections, gone with the connection gate, is taken with a warning wherever it is given", () => {
  const dir = mkdtempSync(join(tmpdir(), "cfg-"));
  try {
    const file = join(dir, "old.json");
    writeFileSync(file, JSON.stringify({ "max-connections": 500, port: 9000 }));
    const warning = /^--max-connections has no effect any more .*; remove it$/;
    for (
      const [args, env] of [[["--max-connections", "400", "--port", "9000"], {}], [["--config", file], {}], [[
        "--port",
        "9000",
      ], { PANEL_MAX_CONNECTIONS: "400" }]] as const
    ) {
      const r = loadConfig([...args], env);
      assert.equal(r.kind, "config");
      if (r.kind !== "config") continue;
      assert.equal(r.config.port, 9000, "the other options still count");
      assert.equal(r.warnings.length, 1, args.join(" "));
      assert.match(r.warnings[0], warning);
    }
    const plain = loadConfig([], {});
    assert.deepEqual(plain.kind === "config" && plain.warnings, []);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

Deno.test("https needs both certificate and key", () => {
  const dir = mkdtempSync(join(tmpdir(), "cfg-"));
  try {
    writeFileSync(join(dir, "cert.pem"), "x");
    assert.throws(() => loadConfig(["--https-cert", join(dir, "cert.pem")], {}), /must be given together/);
  } finally {
    rmSync(dir, { recursive: true });
  }
});

Deno.test("--help lists every option with its variable and default", () => {
  const r = loadConfig(["--port", "1", "--help"], {});
  assert.equal(r.kind, "help");
  const text = helpText();
  for (const o of OPTIONS) {
    assert.ok(text.includes(`--${o.flag}`), o.flag);
    assert.ok(text.includes("PANEL_" + o.flag.toUpperCase().replaceAll("-", "_")), o.flag);
    assert.ok(text.includes(`default ${o.defaultText}`), o.flag);
  }
  assert.ok(text.includes("PANEL_ADMIN_PASSWORD"));
});

Deno.test("lists and booleans parse from flags and variables", () => {
  const c = cfg(["--trust-proxy", "--allowed-origins", "https://a.example, https://b.example:8443"]);
  assert.equal(c.trustProxy, true);
  assert.deepEqual(c.allowedOrigins, ["https://a.example", "https://b.example:8443"]);
  assert.equal(cfg([], { PANEL_TRUST_PROXY: "no" }).trustProxy, false);
});

Deno.test("allowed origins are kept as browsers send them: no trailing slash, lower-case host, no default port", () => {
  const c = cfg([
    "--allowed-origins",
    "https://Panel.Example.org/,https://b.example:443,http://c.example:8080/",
  ]);
  assert.deepEqual(c.allowedOrigins, [
    "https://panel.example.org",
    "https://b.example",
    "http://c.example:8080",
  ]);
});

Deno.test("relative paths are taken from where npm was called (INIT_CWD), defaults stay in the panel's folder", () => {
  const here = mkdtempSync(join(tmpdir(), "panel-cwd-"));
  try {
    writeFileSync(join(here, "panel.json"), JSON.stringify({ "factorio-dir": "/opt/factorio" }));
    const c = cfg(["--export", "backup.zip", "--config", "panel.json", "--import-fsm", "../old"], {
      INIT_CWD: here,
    });
    assert.equal(c.exportFile, join(here, "backup.zip"));
    assert.equal(c.importFsm, resolve(here, "../old"));
    assert.equal(c.factorioDir, "/opt/factorio");
    assert.equal(c.dataDir, resolve("data"));
    // Without npm (systemd runs node scripts/start.mjs), the process's own directory.
    assert.equal(cfg(["--data-dir", "state"]).dataDir, resolve("state"));
  } finally {
    rmSync(here, { recursive: true, force: true });
  }
});

Deno.test("the built web app's default place is pwa/dist in the panel's folder", () => {
  const c = cfg([]);
  assert.equal(c.staticDir, join(resolve(import.meta.dirname!, "../.."), "pwa", "dist"));
});

Deno.test("time zone: the system's by default (worked out on first read), a given one is checked", () => {
  assert.equal(cfg([]).timeZone, Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC");
  assert.equal({ ...cfg([]) }.timeZone, Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC");
  const c = cfg([]);
  c.timeZone = "Europe/Berlin";
  assert.equal(c.timeZone, "Europe/Berlin");
  assert.equal(cfg(["--time-zone", "Asia/Kolkata"]).timeZone, "Asia/Kolkata");
  assert.throws(() => cfg(["--time-zone", "Mars/Olympus"]), ConfigError);
});

Deno.test("HTTPS options: the port is 443 when HTTPS is automatic and --port is not given; one way to HTTPS at a time", () => {
  assert.equal(cfg(["--https-domain", "panel.example.org"]).port, 443);
  assert.equal(cfg(["--local-ca"]).port, 443);
  assert.equal(cfg([], { PANEL_HTTPS_DOMAIN: "panel.example.org" }).port, 443);
  assert.equal(cfg(["--https-domain", "panel.example.org", "--port", "8443"]).port, 8443);
  const c = cfg(["--https-domain", "Panel.Example.org., factorio.example.org"]);
  assert.deepEqual(c.httpsDomains, ["panel.example.org", "factorio.example.org"]);
  assert.equal(c.acmeDirectoryUrl, "https://acme-v02.api.letsencrypt.org/directory");
  assert.equal(c.acmeHttpPort, 80);
  assert.equal(c.acmeChallenge, "http-01");
  assert.deepEqual(
    cfg([
      "--https-domain",
      "*.example.org",
      "--acme-challenge",
      "dns-01",
      "--acme-dns-provider",
      "cloudflare",
    ]).httpsDomains,
    ["*.example.org"],
  );
  const cases: [string[], RegExp][] = [
    [
      ["--https-domain", "panel.example.org", "--local-ca"],
      /--https-domain and --local-ca are different ways to HTTPS: give one/,
    ],
    [["--https-domain", "192.168.1.5"], /--https-domain.*is an address, not a name/],
    [["--https-domain", "panel"], /--https-domain.*full domain name/],
    [["--https-domain", "*.example.org"], /wildcard name \(\*\.example\.org\) needs --acme-challenge dns-01/],
    [["--acme-challenge", "tls-alpn-01"], /--acme-challenge.*http-01 or dns-01/],
    [["--acme-dns-provider", "route53"], /--acme-dns-provider.*duckdns or cloudflare/],
    [["--acme-email", "nobody"], /--acme-email.*e-mail address/],
    [["--acme-directory-url", "ftp://ca.example"], /--acme-directory-url/],
    [["--acme-ca-file", "/nonexistent/ca.pem"], /--acme-ca-file/],
    [["--acme-http-port", "70000"], /--acme-http-port/],
  ];
  for (const [args, pattern] of cases) {
    assert.throws(() => loadConfig(args, {}), (e: unknown) => {
      assert.ok(e instanceof ConfigError, String(e));
      assert.match(e.message, pattern);
      return true;
    }, args.join(" "));
  }
});
