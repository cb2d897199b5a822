// The live side (live.ts: the game, the /ws hub, players, push, alerts) is built after the panel listens:
// the session check and the PWA's files are answered without it, and a request or socket that needs it
// waits for it and is answered as before. Checked on the app itself (nothing else builds the live side
// there) and on a panel started as `npm start` starts it.

import assert from "node:assert/strict";
import { loadConfig } from "./config.ts";
import { createContext } from "./context.ts";
import { createApp } from "./app.ts";
import { Client } from "./testing/harness.ts";
import { startPanelProcess } from "./testing/process.ts";
import { withDirs } from "./testing/dirs.ts";
import { TestSocket } from "./testing/ws.ts";
import { PANEL_MSG } from "../shared/messages.ts";

const PASSWORD = "live-test-password";


function configOf(dataDir: string, factorioDir: string) {
  const r = loadConfig(["--data-dir", dataDir, "--factorio-dir", factorioDir, "--port", "0"], {});
  if (r.kind !== "config") throw new Error("unexpected --help");
  return r.config;
}

Deno.test("the session check and the PWA's files are answered without the live side; a sign-in builds it", async () => {
  await withDirs("panel-live", async (dataDir, factorioDir) => {
    const { ctx } = await createContext(configOf(dataDir, factorioDir), { quiet: true, adminPassword: PASSWORD });
    const { app } = createApp(ctx);
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (req, info) => app.fetch(req, info));
    try {
      const url = `http://127.0.0.1:${server.addr.port}`;
      const c = new Client(url, url);
      assert.throws(() => ctx.game, /not loaded yet/);
      const check = await c.get("/api/user/status");
      assert.equal(check.status, 401);
      assert.equal(check.body, PANEL_MSG.notSignedIn);
      const page = await c.get("/login");
      assert.notEqual(page.status, 500);
      assert.throws(() => ctx.hub, /not loaded yet/, "answering them did not need the live side");
      // A state change is never answered before the live side is there (its alerts hear sign-ins), nor
      // refused differently: a cross-site one first, then a real sign-in, which carries the game's status.
      const crossSite = await c.request("POST", "/api/login", { json: { username: "admin", password: PASSWORD }, crossSite: true });
      assert.equal(crossSite.status, 403);
      assert.equal(crossSite.body, PANEL_MSG.crossSiteRefused);
      const login = await c.post("/api/login", { username: "admin", password: PASSWORD });
      assert.equal(login.status, 200, login.text);
      assert.equal(login.body.server_status.status, "stopped");
      assert.equal(ctx.game.state, "stopped");
      const status = await c.get("/api/server/status");
      assert.equal(status.status, 200);
      assert.equal(status.body.status, "stopped");
      assert.equal((await c.get("/api/user/status")).body.username, "admin");
    } finally {
      await server.shutdown();
      await ctx.close();
    }
  });
});

Deno.test("a panel shut down while its live side is being built lets go of it, and builds nothing after", async () => {
  await withDirs("panel-live", async (dataDir, factorioDir) => {
    const config = configOf(dataDir, factorioDir);
    const { ctx } = await createContext(config, { quiet: true, adminPassword: PASSWORD });
    const loading = ctx.loadLive();
    // The test's sanitizers fail it if a watch, a timer or a file of the live side stays open after this.
    await ctx.close();
    await loading;
    const again = await createContext(config, { quiet: true });
    await again.ctx.close();
    await assert.rejects(again.ctx.loadLive(), /shutting down/);
    await assert.rejects(again.ctx.loadServices(), /shutting down/);
  });
});

Deno.test("a restarted panel: a socket or a status read as its very first request waits for the live side", async () => {
  await withDirs("panel-live", async (dataDir, factorioDir) => {
    const args = ["--data-dir", dataDir, "--factorio-dir", factorioDir, "--port", "0", "--bind", "127.0.0.1"];
    const env = { PANEL_ADMIN_PASSWORD: PASSWORD };
    const first = await startPanelProcess({ args, env });
    let cookie: string | undefined;
    try {
      cookie = (await first.login("admin", PASSWORD)).cookie;
    } finally {
      assert.equal(await first.stop(), 0, first.output());
    }
    // The session outlives the restart (it is in the database): the PWA reconnects with it at once.
    const panel = await startPanelProcess({ args, env });
    try {
      const c = panel.client();
      c.cookie = cookie;
      const socket = await TestSocket.connect(c);
      const status = await c.get("/api/server/status");
      assert.equal(status.status, 200, status.text);
      assert.equal(status.body.status, "stopped");
      // The hub, wired to the game, answers a subscription with the game's status.
      socket.subscribe("server_status");
      assert.equal(JSON.parse(await socket.waitForMessage("server_status", () => true)).status, "stopped");
      socket.ws.close();
      assert.doesNotMatch(panel.output(), /could not start|Unhandled error/);
    } finally {
      assert.equal(await panel.stop(), 0, panel.output());
    }
  });
});

Deno.test("a panel stopped right after it listens, before any request, exits cleanly", async () => {
  await withDirs("panel-live", async (dataDir, factorioDir) => {
    const panel = await startPanelProcess({
      args: ["--data-dir", dataDir, "--factorio-dir", factorioDir, "--port", "0", "--bind", "127.0.0.1"],
      env: { PANEL_ADMIN_PASSWORD: PASSWORD },
    });
    assert.equal(await panel.stop(), 0, panel.output());
    assert.match(panel.output(), /shutting down/);
    assert.doesNotMatch(panel.output(), /could not start|Unhandled error|Shutdown step failed/);
  });
});
