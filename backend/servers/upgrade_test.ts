// An existing panel upgrades in place: today's panel, started as `npm start` does over a data directory
// and a Factorio directory written by the one-server panel of commit 277802d
// (tests/fixtures/upgrade/, made by its make.ts), has that panel's server as server 1 with nothing lost:
// saves, mods, settings, backups (one restores), the schedule, the alert channel, the push device, the
// player history, the users with their roles, the operator's API token. /api/servers/1/R answers as
// /api/R, and a second server can be added beside it.

import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installFakeFactorio } from "../../tests/fake-factorio/install.ts";
import { freeTcpPort, freeUdpPort } from "../../tests/fake-factorio/sim.ts";
import { startPanelProcess } from "../../tests/support/process.ts";
import { TokenClient } from "../../tests/support/roles.ts";
import { killRecordedGame } from "../../tests/support/game.ts";
import type { Client } from "../../tests/support/harness.ts";
import type { ServerSummary } from "../../shared/contract/servers.ts";
import { LOAD_LATEST } from "../../shared/api.ts";

const FIXTURE = new URL("../../tests/fixtures/upgrade/panel-277802d.tar.gz", import.meta.url).pathname;
// tests/fixtures/upgrade/README.md
const ADMIN = ["admin", "upgrade-admin-password"] as const;
const OPERATOR = ["olga", "olga-password-1"] as const;
const VIEWER = ["victor", "victor-password-1"] as const;
const OPERATOR_TOKEN = "fpt_w8fcwPWpF3eqKrXPZxapUP_S1Yh92C64Mc0n0qflfwY";

/** Unpacks the old panel's directories into a temp folder, with today's simulator as its game. */
async function unpackOldPanel(): Promise<{ dir: string; dataDir: string; factorioDir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "panel-upgrade-"));
  const tar = await new Deno.Command("tar", { args: ["-xzf", FIXTURE, "-C", dir] }).output();
  assert.ok(tar.success, new TextDecoder().decode(tar.stderr));
  const dataDir = join(dir, "data");
  const factorioDir = join(dir, "factorio");
  // The simulator's wrapper (bin/) names the checkout it runs from: this one's, installed aside and
  // copied in, so nothing the old panel wrote is touched.
  const scratch = mkdtempSync(join(tmpdir(), "panel-upgrade-sim-"));
  try {
    const sim = installFakeFactorio(scratch, "2.0");
    mkdirSync(join(factorioDir, "bin", "x64"), { recursive: true });
    copyFileSync(sim.binary, join(factorioDir, "bin", "x64", "factorio"));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return { dir, dataDir, factorioDir };
}

const names = (list: { name: string }[]) => list.map((x) => x.name).filter((n) => n !== LOAD_LATEST).sort();

async function ok(c: Client, method: "GET" | "POST", path: string, body?: unknown) {
  const r = method === "GET" ? await c.get(path) : await c.post(path, body);
  assert.equal(r.status, 200, `${method} ${path}: ${r.status} ${r.text}`);
  return r.body;
}

Deno.test("a panel of 277802d upgrades in place: its server is server 1 with nothing lost", async () => {
  const { dir, dataDir, factorioDir } = await unpackOldPanel();
  const args = [
    "--data-dir",
    dataDir,
    "--factorio-dir",
    factorioDir,
    "--port",
    "0",
    "--bind",
    "127.0.0.1",
    "--rcon-port",
    String(await freeTcpPort()),
    "--factorio-update-check-hours",
    "0",
  ];
  const panel = await startPanelProcess({ args });
  try {
    const admin = await panel.login(...ADMIN);

    // Exactly one server: the old panel's, on its directory.
    const servers = await ok(admin, "GET", "/api/servers") as ServerSummary[];
    assert.deepEqual(servers.map((s) => [s.id, s.status, s.dir]), [[1, "stopped", factorioDir]]);
    assert.equal(servers[0].version, "2.0.72");

    // Saves, mods, settings.
    assert.deepEqual(names(await ok(admin, "GET", "/api/saves/list")), ["second.zip", "world.zip"]);
    const mods = await ok(admin, "GET", "/api/mods/list") as { name: string; enabled: boolean }[];
    assert.ok(mods.some((m) => m.name === "test-settings-mod" && m.enabled), JSON.stringify(mods));
    const settings = await ok(admin, "GET", "/api/settings");
    assert.equal(settings.name, "Upgrade test server");
    assert.equal(settings.description, "Written by the panel of 277802d");
    assert.equal(settings.max_players, 12);

    // The backup, its settings, and the schedule.
    const backups = await ok(admin, "GET", "/api/backups") as { id: string; save: string; reason: string }[];
    assert.deepEqual(backups.map((b) => [b.save, b.reason]), [["world.zip", "manual"]]);
    assert.deepEqual(
      (await ok(admin, "GET", "/api/backups/settings")).include,
      ["mods", "mod-list", "settings", "players"],
    );
    const schedules = await ok(admin, "GET", "/api/schedules") as { name: string; cron: string }[];
    assert.deepEqual(schedules.map((s) => [s.name, s.cron]), [["Nightly backup", "0 4 * * *"]]);

    // The alert channel, the player history and chat.
    const channels = await ok(admin, "GET", "/api/notifications/channels") as {
      name: string;
      events: string[];
      servers: number[] | null;
    }[];
    // Every server's alerts, as the one server's were.
    assert.deepEqual(channels.map((ch) => [ch.name, ch.events, ch.servers]), [[
      "Local hook",
      ["crashed", "started"],
      null,
    ]]);
    const history = await ok(admin, "GET", "/api/players/history") as { name: string; sessions: number }[];
    assert.deepEqual(history.map((h) => [h.name, h.sessions]).sort(), [["alice", 1], ["bob", 1]]);
    const chat = await ok(admin, "GET", "/api/players/chat") as { name: string; message: string }[];
    assert.deepEqual(chat.map((l) => [l.name, l.message]), [["alice", "hello from the old panel"]]);

    // The users with their roles; the viewer stays a viewer of server 1, the operator its operator.
    const users = await ok(admin, "GET", "/api/user/list") as {
      username: string;
      role: string;
      servers?: Record<string, string>;
    }[];
    assert.deepEqual(
      users.map((u) => [u.username, u.role, u.servers]),
      [
        ["ada", "admin", undefined],
        ["admin", "admin", undefined],
        ["olga", "operator", { 1: "operator" }],
        ["victor", "viewer", { 1: "viewer" }],
      ],
    );
    const operator = await panel.login(...OPERATOR);
    const viewer = await panel.login(...VIEWER);
    const mine = async (c: Client) =>
      (await ok(c, "GET", "/api/servers") as ServerSummary[]).map((s) => [s.id, s.role]);
    assert.deepEqual(await mine(operator), [[1, "operator"]]);
    assert.deepEqual(await mine(viewer), [[1, "viewer"]]);
    assert.equal((await viewer.post("/api/schedules/1/run")).status, 403, "a viewer runs nothing");

    // The operator's push device, and the token the operator's scripts use.
    const devices = await ok(operator, "GET", "/api/push/devices") as {
      name: string;
      events: string[];
      servers: number[] | null;
    }[];
    assert.deepEqual(devices.map((d) => [d.name, d.events, d.servers]), [[
      "Olga's phone",
      ["crashed", "player-joined"],
      null,
    ]]);
    const script = new TokenClient(panel.url, OPERATOR_TOKEN);
    assert.deepEqual(names(await ok(script, "GET", "/api/servers/1/saves/list")), [
      "second.zip",
      "world.zip",
    ]);
    const tokens = await ok(operator, "GET", "/api/user/tokens") as {
      name: string;
      state: string;
      servers: number[] | null;
    }[];
    assert.deepEqual(tokens.map((t) => [t.name, t.state, t.servers]), [["olga's script", "active", null]]);

    // /api/servers/1/R answers as /api/R.
    for (
      const path of [
        "/saves/list",
        "/mods/list",
        "/settings",
        "/config",
        "/backups",
        "/backups/settings",
        "/schedules",
        "/players/history",
        "/players/chat",
        "/server/facVersion",
      ]
    ) {
      assert.deepEqual(
        await ok(admin, "GET", `/api/servers/1${path}`),
        await ok(admin, "GET", `/api${path}`),
        path,
      );
    }

    // The old backup restores, with its files, through the token of the operator.
    const restored = await script.post(`/api/backups/${backups[0].id}/restore`, {
      as: "restored",
      files: true,
    });
    assert.equal(restored.status, 200, restored.text);
    assert.equal(restored.body.save, "restored.zip");
    assert.ok(existsSync(join(factorioDir, "saves", "restored.zip")));

    // The old save runs on server 1.
    const start = await operator.post("/api/server/start", {
      bindip: "127.0.0.1",
      port: await freeUdpPort(),
      savefile: "world.zip",
    });
    assert.equal(start.status, 200, start.text);
    assert.equal((await ok(admin, "GET", "/api/server/status")).savefile, "world.zip");
    assert.equal((await operator.get("/api/server/stop")).status, 200);

    // A second server beside it.
    const added = await admin.post("/api/servers", { name: "Event map" });
    assert.equal(added.status, 201, added.text);
    assert.equal(added.body.id, 2);
    const after = await ok(admin, "GET", "/api/servers") as ServerSummary[];
    assert.deepEqual(after.map((s) => [s.id, s.name]), [[1, "Server 1"], [2, "Event map"]]);
    assert.ok(after[1].port !== after[0].port);
    assert.equal((await admin.get("/api/servers/2/saves/create/event.zip")).status, 200);
    assert.deepEqual(names(await ok(admin, "GET", "/api/servers/2/saves/list")), ["event.zip"]);
    assert.deepEqual(
      names(await ok(admin, "GET", "/api/saves/list")),
      ["restored.zip", "second.zip", "world.zip"],
      "server 1's saves are its own",
    );
    assert.deepEqual(await mine(viewer), [[1, "viewer"]], "a viewer of server 1 is not given server 2");
  } finally {
    await panel.stop();
    killRecordedGame(dataDir);
    killRecordedGame(join(dataDir, "servers", "2"));
    rmSync(dir, { recursive: true, force: true });
  }
});
