// The services no first answer needs (services.ts) load after start-up: a second later on their own,
// or at once for the first request that needs one. Checked on a panel started as `npm start` starts
// it, and on the context itself for shutdown while they load.

import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "./config.ts";
import { createContext } from "./context.ts";
import { startPanelProcess } from "./testing/process.ts";
import { withDirs } from "./testing/dirs.ts";
import { until } from "./testing/until.ts";
import { TARBALL_CACHE } from "./testing/versions.ts";
import { startFakeFactorioCom } from "../tests/fake-factorio-com/server.ts";

const PASSWORD = "services-test-password";


Deno.test("with no request at all, the services start on their own: --factorio-version installs the game", async () => {
  const fake = startFakeFactorioCom({ cacheDir: TARBALL_CACHE });
  try {
    await withDirs("panel-services", async (dataDir, factorioDir) => {
      const panel = await startPanelProcess({
        args: ["--data-dir", dataDir, "--factorio-dir", factorioDir, "--factorio-com-url", fake.url, "--factorio-version", "latest", "--port", "0", "--bind", "127.0.0.1"],
        env: { PANEL_ADMIN_PASSWORD: PASSWORD },
      });
      try {
        // Nothing asks the panel anything: only the services' own start can begin the install.
        await until("the first-start install", () => existsSync(join(factorioDir, "versions", "2.1.12", "bin", "x64", "factorio")), 120_000);
      } finally {
        assert.equal(await panel.stop(), 0, panel.output());
      }
    });
  } finally {
    await fake.close();
  }
});

Deno.test("right after start, a request that needs a service waits for it and is answered", async () => {
  await withDirs("panel-services", async (dataDir, factorioDir) => {
    const panel = await startPanelProcess({
      args: ["--data-dir", dataDir, "--factorio-dir", factorioDir, "--port", "0", "--bind", "127.0.0.1"],
      env: { PANEL_ADMIN_PASSWORD: PASSWORD },
    });
    try {
      const c = await panel.login("admin", PASSWORD);
      // Several at once, as the PWA's first page asks: they all wait for the one load.
      const [saves, backups, schedules] = await Promise.all([c.get("/api/saves/list"), c.get("/api/backups"), c.get("/api/schedules")]);
      assert.equal(saves.status, 200, saves.text);
      assert.equal(saves.body[0].name, "Load Latest");
      assert.equal(backups.status, 200, backups.text);
      assert.equal(schedules.status, 200, schedules.text);
      assert.doesNotMatch(panel.output(), /could not start|Unhandled error/);
    } finally {
      assert.equal(await panel.stop(), 0, panel.output());
    }
  });
});

Deno.test("a panel shut down while its services load closes them too, and loads nothing after", async () => {
  await withDirs("panel-services", async (dataDir, factorioDir) => {
    const r = loadConfig(["--data-dir", dataDir, "--factorio-dir", factorioDir, "--port", "0"], {});
    if (r.kind !== "config") throw new Error("unexpected --help");
    const { ctx } = await createContext(r.config, { quiet: true, adminPassword: PASSWORD });
    assert.throws(() => ctx.saves, /not loaded yet/);
    const loading = ctx.loadServices();
    // The test's sanitizers fail it if a schedule timer, a watch or a file stays open after this.
    await ctx.close();
    await loading;
    const again = await createContext(r.config, { quiet: true });
    await again.ctx.close();
    await assert.rejects(again.ctx.loadServices(), /shutting down/);
  });
});
