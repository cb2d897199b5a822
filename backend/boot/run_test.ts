// The panel's command as `npm start` runs it (the launcher's command line): everything is built before it
// listens, so its very first answers are whole; a part that cannot be built ends the start with one line;
// a stop right after it listens is clean; the services begin their own work with no request at all.

import assert from "node:assert/strict";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { panelCommand, ROOT } from "../../scripts/launcher.mjs";
import { startPanelProcess } from "../../tests/support/process.ts";
import { withDirs } from "../../tests/support/dirs.ts";
import { TestSocket } from "../../tests/support/ws.ts";
import { until } from "../../tests/support/until.ts";
import { TARBALL_CACHE } from "../../tests/support/versions.ts";
import { startFakeFactorioCom } from "../../tests/fake-factorio-com/server.ts";

const PASSWORD = "run-test-password";

Deno.test("a restarted panel: a socket and a status read as its very first requests are answered", async () => {
  await withDirs("panel-run", async (dataDir, factorioDir) => {
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
      const [socket, status, saves, backups] = await Promise.all([
        TestSocket.connect(c),
        c.get("/api/server/status"),
        c.get("/api/saves/list"),
        c.get("/api/backups"),
      ]);
      assert.equal(status.status, 200, status.text);
      assert.equal(status.body.status, "stopped");
      assert.equal(saves.status, 200, saves.text);
      assert.equal(saves.body[0].name, "Load Latest");
      assert.equal(backups.status, 200, backups.text);
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
  await withDirs("panel-run", async (dataDir, factorioDir) => {
    const panel = await startPanelProcess({
      args: ["--data-dir", dataDir, "--factorio-dir", factorioDir, "--port", "0", "--bind", "127.0.0.1"],
      env: { PANEL_ADMIN_PASSWORD: PASSWORD },
    });
    assert.equal(await panel.stop(), 0, panel.output());
    assert.match(panel.output(), /shutting down/);
    assert.doesNotMatch(panel.output(), /could not start|Unhandled error|Shutdown step failed/);
  });
});

Deno.test("a part that cannot be built ends the start with one line naming it; nothing listens", async () => {
  await withDirs("panel-run", async (dataDir, factorioDir) => {
    // The push keys' file is a folder: reading it fails (as an I/O error would), and the panel must not
    // replace it with new keys.
    mkdirSync(join(dataDir, "vapid-keys.json"));
    const panel = panelCommand([
      "--data-dir",
      dataDir,
      "--factorio-dir",
      factorioDir,
      "--port",
      "0",
      "--bind",
      "127.0.0.1",
    ]);
    const out = await new Deno.Command(panel.cmd, {
      args: panel.args,
      cwd: ROOT,
      env: { NO_COLOR: "1", PANEL_ADMIN_PASSWORD: PASSWORD },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stdout = new TextDecoder().decode(out.stdout);
    const stderr = new TextDecoder().decode(out.stderr).trim().split("\n");
    assert.equal(out.code, 1);
    assert.doesNotMatch(stdout, /listening on/);
    assert.equal(stderr.length, 1, stderr.join("\n"));
    assert.match(
      stderr[0],
      /^factorio-panel: could not start: push notifications: .*vapid-keys\.json could not be read/,
    );
  });
});

Deno.test("with no request at all, the services begin their own work: --factorio-version installs the game", async () => {
  const fake = startFakeFactorioCom({ cacheDir: TARBALL_CACHE });
  try {
    await withDirs("panel-run", async (dataDir, factorioDir) => {
      const panel = await startPanelProcess({
        args: [
          "--data-dir",
          dataDir,
          "--factorio-dir",
          factorioDir,
          "--factorio-com-url",
          fake.url,
          "--factorio-version",
          "latest",
          "--port",
          "0",
          "--bind",
          "127.0.0.1",
        ],
        env: { PANEL_ADMIN_PASSWORD: PASSWORD },
      });
      try {
        await until(
          "the first-start install",
          () => existsSync(join(factorioDir, "versions", "2.1.12", "bin", "x64", "factorio")),
          120_000,
        );
      } finally {
        assert.equal(await panel.stop(), 0, panel.output());
      }
    });
  } finally {
    await fake.close();
  }
});
