// The deployment recipe deploy/Caddyfile, run by Debian's Caddy in front of a real panel (started by the
// launcher with the recipe's --trust-proxy and --allowed-origins) on the simulator: Chromium signs in,
// sends a console command over /ws and uploads a save, all through Caddy over HTTPS, and the panel records
// the browser's address from X-Forwarded-For. Only what ties the recipe to this machine is changed: the
// domain becomes [::1] on a free port (Caddy's own local CA instead of Let's Encrypt, no admin endpoint, no
// redirect server on port 80), the panel's port is the one it picked. The browser talks to Caddy on ::1
// and Caddy to the panel on 127.0.0.1, so the address the panel records shows where it came from.
// deno-lint-ignore-file react-rules-of-hooks no-empty-pattern -- Playwright fixtures (see fixtures.ts)

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { createConnection, createServer, type Socket } from "node:net";
import { connect } from "node:tls";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test as gameTest } from "./game-fixtures.ts";
import { goTo, openSignedIn, ROOT } from "./fixtures.ts";
import { freeTcpPort } from "../fake-factorio/sim.ts";
import { PANEL_MSG } from "../../shared/messages.ts";

const RECIPE = join(ROOT, "deploy", "Caddyfile");
const DOMAIN = "panel.example.org";
/** How the recipe says to start the panel; the test starts it so (its port is picked by the launcher). */
const PANEL_FLAGS = `--bind 127.0.0.1 --port 8080 --trust-proxy --allowed-origins https://${DOMAIN}`;

/** `text` with `pattern` replaced, which must occur exactly once (else the recipe changed shape). */
function replaceOnce(text: string, pattern: RegExp, by: string): string {
  const found = text.match(new RegExp(pattern.source, pattern.flags + "g"))?.length ?? 0;
  if (found !== 1) {
    throw new Error(
      `deploy/Caddyfile has ${found} matches of ${pattern}, the test expects one: update the test with the recipe`,
    );
  }
  return text.replace(pattern, by);
}

/** deploy/Caddyfile for this machine: Caddy on [::1]:caddyPort, the panel on 127.0.0.1:panelPort. */
function testCaddyfile(caddyPort: number, panelPort: number): string {
  let text = readFileSync(RECIPE, "utf8");
  text = replaceOnce(
    text,
    /^\{$/m,
    [
      "{",
      // Several Caddys run at once (test workers): none has the admin endpoint on :2019.
      "\tadmin off",
      // Caddy's own CA stands in for Let's Encrypt; its root stays out of the system's trust store.
      "\tlocal_certs",
      "\tskip_install_trust",
      // Port 80 is not ours to take.
      "\tauto_https disable_redirects",
    ].join("\n"),
  );
  text = replaceOnce(
    text,
    new RegExp(`^${DOMAIN.replaceAll(".", "\\.")} \\{$`, "m"),
    `[::1]:${caddyPort} {\n\tbind ::1`,
  );
  text = replaceOnce(text, /reverse_proxy 127\.0\.0\.1:8080\b/, `reverse_proxy 127.0.0.1:${panelPort}`);
  return text;
}

function caddyMissing(): string | null {
  const r = spawnSync("caddy", ["version"], { encoding: "utf8" });
  if (r.error || r.status !== 0) {
    return "Caddy is not installed: this test runs Debian's package in front of the panel. Install it with " +
      "`apt-get install caddy` (scripts/ensure-chromium.sh does, as root).";
  }
  return null;
}

/** Why nothing can listen on [::1]:port (e.g. IPv6 is off), or null. */
function cannotListenOnIpv6Loopback(port: number): Promise<string | null> {
  return new Promise((done) => {
    const server = createServer();
    server.once("error", (e: NodeJS.ErrnoException) => done(e.code ?? String(e)));
    server.listen(port, "::1", () => server.close(() => done(null)));
  });
}

/** True once Caddy answers an HTTPS request on `port` (its certificate comes a moment after it starts). */
function answers(port: number): Promise<boolean> {
  return new Promise((done) => {
    const req = request({
      host: "::1",
      port,
      path: "/",
      rejectUnauthorized: false,
      agent: false,
      timeout: 2000,
    }, (res) => {
      res.resume();
      done(true);
    });
    req.on("error", () => done(false));
    req.on("timeout", () => req.destroy());
    req.end();
  });
}

interface Caddy {
  url: string;
  port: number;
}

const test = gameTest.extend<{ caddyPort: number; caddy: Caddy }>({
  caddyPort: async ({}, use) => {
    const missing = caddyMissing();
    if (missing) throw new Error(missing);
    const port = await freeTcpPort();
    const problem = await cannotListenOnIpv6Loopback(port);
    if (problem) {
      throw new Error(
        `Caddy cannot listen on [::1]:${port} (${problem}): the test needs the IPv6 loopback, so that ` +
          "the browser's address (::1) differs from Caddy's (127.0.0.1).",
      );
    }
    await use(port);
  },
  panelArgs: async ({ caddyPort }, use) => {
    expect(readFileSync(RECIPE, "utf8"), "the recipe says how to start the panel").toContain(PANEL_FLAGS);
    await use(["--trust-proxy", "--allowed-origins", `https://[::1]:${caddyPort}`]);
  },
  caddy: async ({ panel, caddyPort }, use, testInfo) => {
    const dir = mkdtempSync(join(tmpdir(), "caddy-e2e-"));
    const config = join(dir, "Caddyfile");
    writeFileSync(config, testCaddyfile(caddyPort, Number(new URL(panel.url).port)));
    // Caddy keeps its CA, certificates and autosave under HOME / XDG dirs: this test's own.
    const env = {
      ...process.env,
      HOME: dir,
      XDG_DATA_HOME: join(dir, "data"),
      XDG_CONFIG_HOME: join(dir, "config"),
    };
    const child = spawn("caddy", ["run", "--config", config, "--adapter", "caddyfile"], {
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    const exited = new Promise((r) => child.once("exit", r));
    try {
      await expect.poll(async () => {
        if (child.exitCode !== null) throw new Error(`caddy exited with ${child.exitCode}:\n${out}`);
        return await answers(caddyPort);
      }, { message: `Caddy did not answer on [::1]:${caddyPort}`, timeout: 20_000 }).toBe(true);
      await use({ url: `https://[::1]:${caddyPort}`, port: caddyPort });
    } finally {
      if (testInfo.status !== testInfo.expectedStatus) await testInfo.attach("caddy.log", { body: out });
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    }
  },
  baseURL: async ({ caddy }, use) => {
    await use(caddy.url);
  },
});

// Chromium is not told to trust the test's CA: the certificate is the only thing it overlooks.
test.use({ ignoreHTTPSErrors: true, viewport: { width: 1280, height: 800 } });

test("through Caddy: sign-in, a console command over /ws, a save upload; the panel sees the browser's address", async ({ page, caddy, factorio, gamePort }) => {
  const sockets: string[] = [];
  page.on("websocket", (ws) => sockets.push(ws.url()));

  // Sign-in: the panel took Caddy's X-Forwarded-Proto (its session cookie is Secure) and X-Forwarded-For
  // (the sign-in is recorded with the browser's address, ::1, not Caddy's 127.0.0.1).
  await openSignedIn(page, "/");
  const cookie = (await page.context().cookies()).find((c) => c.name === "authentication");
  expect(cookie?.secure).toBe(true);
  const activity = await page.request.get("/api/activity");
  expect(activity.status()).toBe(200);
  const signIn = (await activity.json() as { action: string; address: string }[]).find((e) =>
    /\/api\/login$/.test(e.action)
  );
  expect(signIn?.address).toBe("::1");

  // Upload: a real save, streamed through Caddy into the saves folder, byte for byte.
  const save = readFileSync(join(ROOT, "tests/fixtures/saves/test_1_1.zip"));
  await goTo(page, "Saves");
  const upload = page.getByRole("form", { name: "Upload Save" });
  await upload.getByLabel("Savefile").setInputFiles({
    name: "Proxied World.zip",
    mimeType: "application/zip",
    buffer: save,
  });
  await upload.getByRole("button", { name: "Upload" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: PANEL_MSG.saveUploaded("Proxied World.zip") }))
    .toBeVisible();
  expect(Buffer.compare(readFileSync(join(factorio.dir, "saves", "Proxied World.zip")), save)).toBe(0);

  // The console: the command goes over /ws through Caddy, the game's answer comes back the same way.
  const started = await page.request.post("/api/server/start", {
    data: { bindip: "127.0.0.1", port: gamePort, savefile: "Load Latest" },
  });
  expect(started.status()).toBe(200);
  await goTo(page, "Console");
  const input = page.getByLabel("Command");
  const log = page.getByRole("log", { name: "Game log" });
  await input.fill("/fake-join alice");
  await input.press("Enter");
  await expect(log).toContainText("[JOIN] alice joined the game");
  await input.fill("/players");
  await input.press("Enter");
  await expect(log.getByText("alice (online)", { exact: true })).toBeVisible();
  expect(sockets).toContain(`wss://[::1]:${caddy.port}/ws`);
});

/** Resolves once `socket` closes without having been answered, or false after `limitMs`. */
function closedUnanswered(socket: Socket, limitMs: number): Promise<{ closed: boolean; answer: string }> {
  let answer = "";
  socket.on("data", (d) => (answer += d));
  socket.on("error", () => {});
  return new Promise((done) => {
    const timer = setTimeout(() => {
      socket.destroy();
      done({ closed: false, answer });
    }, limitMs);
    socket.on("close", () => {
      clearTimeout(timer);
      done({ closed: true, answer });
    });
  });
}

test("Caddy closes connections that stall before their headers end (read_header)", async ({ caddy }) => {
  // Deno's server keeps both open (seen for 95 s with Deno 2.9). Twice the recipe's 10 s here; without
  // read_header Caddy waits far longer.
  const limitMs = 20_000;
  // One that never starts its TLS handshake, one that stops in the middle of its headers.
  const silent = closedUnanswered(createConnection({ host: "::1", port: caddy.port }), limitMs);
  let handshake = false;
  const halfHeaders = connect({
    host: "::1",
    port: caddy.port,
    rejectUnauthorized: false,
    ALPNProtocols: ["http/1.1"],
  }, () => {
    handshake = true;
    halfHeaders.write(`GET / HTTP/1.1\r\nHost: [::1]:${caddy.port}\r\nX-Slow: `);
  });
  const [before, during] = await Promise.all([silent, closedUnanswered(halfHeaders, limitMs)]);
  expect(before, `Caddy kept a silent connection for ${limitMs / 1000} s`).toEqual({
    closed: true,
    answer: "",
  });
  expect(handshake, "the TLS handshake with Caddy").toBe(true);
  expect(during, `Caddy kept a connection with unfinished headers for ${limitMs / 1000} s`).toEqual({
    closed: true,
    answer: "",
  });
});
