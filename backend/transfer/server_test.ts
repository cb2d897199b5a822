// Moving one server to another host: `npm start -- --export FILE --export-server N` (through the launcher,
// beside the running panel) writes that server's saves, mods, settings, schedules, player history and
// backups; POST /api/servers/import on another panel that is in use adds it as a new server, replacing
// nothing. A whole panel's archive keeps its rules (POST /api/import/archive into a fresh panel only), and
// --import refuses a server's archive.

import assert from "node:assert/strict";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, truncateSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runPanelCommand, startPanelProcess } from "../../tests/support/process.ts";
import { until } from "../../tests/support/until.ts";
import { freeTcpPort, freeUdpPort, installGame, killRecordedGame } from "../../tests/support/game.ts";
import { testModZip } from "../../tests/support/testmod.ts";
import type { Client } from "../../tests/support/harness.ts";
import { RconClient } from "../factorio/game/rcon.ts";
import type { ServerSummary } from "../../shared/contract/servers.ts";
import { LOAD_LATEST } from "../../shared/api.ts";
import { TRANSFER_MSG } from "../../shared/transfer.ts";

const PASSWORD = "server transfer password";

async function ok(c: Client, path: string) {
  const r = await c.get(path);
  assert.equal(r.status, 200, `${path}: ${r.status} ${r.text}`);
  return r.body;
}

const saveNames = (list: { name: string }[]) =>
  list.map((s) => s.name).filter((n) => n !== LOAD_LATEST).sort();

function upload(c: Client, bytes: Uint8Array, path = "/api/servers/import") {
  const form = new FormData();
  form.append("archive", new Blob([bytes as BlobPart]), "archive.zip");
  return c.request("POST", path, { body: form });
}

/** What a server's archive should carry, as the API shows it on server `id`. */
async function serverState(c: Client, id: number) {
  const at = (p: string) => ok(c, `/api/servers/${id}${p}`);
  return {
    saves: saveNames(await at("/saves/list")),
    mods: ((await at("/mods/list")) as { name: string; version: string; enabled: boolean }[])
      .map(({ name, version, enabled }) => ({ name, version, enabled })),
    settingsName: (await at("/settings")).name,
    schedules: ((await at("/schedules")) as { name: string; cron: string; tasks: unknown }[])
      .map(({ name, cron, tasks }) => ({ name, cron, tasks })),
    history: ((await at("/players/history")) as { name: string; sessions: number }[])
      .map(({ name, sessions }) => ({ name, sessions })),
    chat: ((await at("/players/chat")) as { name: string; message: string }[])
      .map(({ name, message }) => ({ name, message })),
    backups: ((await at("/backups")) as { save: string; reason: string; size: number }[])
      .map(({ save, reason, size }) => ({ save, reason, size })),
  };
}

Deno.test("one server moves to another panel: --export-server, then POST /api/servers/import adds it as a new server", async () => {
  const root = mkdtempSync(join(tmpdir(), "panel-server-move-"));
  const gameA = await installGame("2.0");
  const gameB = await installGame("2.0");
  const dataA = join(root, "a");
  const dataB = join(root, "b");
  const argsOf = async (data: string, factorio: string) => [
    "--port",
    "0",
    "--bind",
    "127.0.0.1",
    "--data-dir",
    data,
    "--factorio-dir",
    factorio,
    "--rcon-port",
    String(await freeTcpPort()),
    "--factorio-update-check-hours",
    "0",
  ];
  const argsA = await argsOf(dataA, gameA.dir);
  const env = { PANEL_ADMIN_PASSWORD: PASSWORD };
  const archive = join(root, "moon.zip");
  let before: Awaited<ReturnType<typeof serverState>>;
  const a = await startPanelProcess({ args: argsA, env });
  try {
    const c = await a.login("admin", PASSWORD);
    // A copy of server 1 once its server-settings.json exists: an empty server on a game installed by
    // hand has no example to make one from (its data/ is the first server's).
    await ok(c, "/api/settings");
    // Its RCON port from the test's own (test files run side by side, each panel picking from 27015).
    const added = await c.post("/api/servers", {
      name: "Moon base",
      from: { server: 1 },
      rcon_port: await freeTcpPort(),
    });
    assert.equal(added.status, 201, added.text);
    assert.equal((await c.get("/api/servers/2/saves/create/moon.zip")).status, 200);
    const mod = new FormData();
    mod.append("mod_file", new Blob([await testModZip("1.0.0") as BlobPart]), "test-settings-mod_1.0.0.zip");
    const up = await c.request("POST", "/api/servers/2/mods/upload", { body: mod });
    assert.equal(up.status, 200, up.text);
    const settings = await ok(c, "/api/servers/2/settings");
    const changed = await c.post("/api/servers/2/settings/update", { ...settings, name: "Moon" });
    assert.equal(changed.status, 200, changed.text);
    const schedule = await c.post("/api/servers/2/schedules", {
      name: "Moon nightly",
      cron: "0 3 * * *",
      condition: "always",
      enabled: true,
      tasks: [{ type: "backup", delay_s: 0 }],
    });
    assert.equal(schedule.status, 201, schedule.text);
    // Player history: the game runs, a player comes, talks and leaves.
    const start = await c.post("/api/servers/2/server/start", {
      bindip: "127.0.0.1",
      port: await freeUdpPort(),
      savefile: "moon.zip",
    });
    assert.equal(start.status, 200, start.text);
    const secret = JSON.parse(readFileSync(join(dataA, "servers", "2", "rcon.json"), "utf8"));
    const rcon = await RconClient.connect({
      host: "127.0.0.1",
      port: secret.port,
      password: secret.password,
    });
    try {
      await rcon.exec("/fake-join carol");
      await rcon.exec("/fake-chat carol hi from the moon");
      await rcon.exec("/fake-leave carol");
    } finally {
      rcon.close();
    }
    await until("carol's session", async () => (await ok(c, "/api/servers/2/players/history")).length === 1);
    await until("carol's line", async () => (await ok(c, "/api/servers/2/players/chat")).length === 1);
    assert.equal((await c.get("/api/servers/2/server/stop")).status, 200);
    await until("the stop", async () => (await ok(c, "/api/servers/2/server/status")).status === "stopped");
    const backup = await c.post("/api/servers/2/backups", { save: "moon.zip" });
    assert.equal(backup.status, 201, backup.text);
    before = await serverState(c, 2);
    assert.equal(before.history.length, 1);
    assert.equal(before.backups.length, 1);

    // Exported beside the running panel, as npm start runs it.
    const out = await runPanelCommand([
      ...argsA,
      "--export",
      archive,
      "--export-server",
      "2",
      "--export-backups",
    ]);
    assert.equal(out.code, 0, out.out);
    assert.match(out.out, /Exported server 2 \(Moon base\) to .*moon\.zip:/);
    assert.match(out.out, /saves: moon\.zip/);
    assert.equal(statSync(archive).mode & 0o777, 0o600, "server-settings.json holds the game password");
    const none = await runPanelCommand([
      ...argsA,
      "--export",
      join(root, "nine.zip"),
      "--export-server",
      "9",
    ]);
    assert.equal(none.code, 1);
    assert.match(none.out, /nothing was exported\. There is no server 9 in this panel/);
  } finally {
    await a.stop();
    killRecordedGame(dataA);
    killRecordedGame(join(dataA, "servers", "2"));
  }

  // Another panel, in use: a user besides the admin, server 1 with its own save, a server of the same name.
  const argsB = await argsOf(dataB, gameB.dir);
  const b = await startPanelProcess({ args: argsB, env });
  try {
    const c = await b.login("admin", PASSWORD);
    const user = await c.post("/api/user/add", {
      username: "olga",
      role: "operator",
      email: "olga@example.org",
      password: "olga-password-1",
      password_confirmation: "olga-password-1",
    });
    assert.equal(user.status, 200, user.text);
    assert.equal((await c.post("/api/servers", { name: "Moon base" })).status, 201);
    const firstBefore = await serverState(c, 1);

    // A damaged archive: refused, nothing added.
    const cut = join(root, "cut.zip");
    copyFileSync(archive, cut);
    truncateSync(cut, statSync(cut).size - 200);
    const damaged = await upload(c, readFileSync(cut));
    assert.equal(damaged.status, 400, damaged.text);
    assert.match(damaged.body, /^The archive cannot be imported: .*Nothing was changed\.$/);
    assert.equal((await ok(c, "/api/servers")).length, 2);

    const r = await upload(c, readFileSync(archive));
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.server, 3);
    assert.match(
      r.body.lines[0],
      /Server Moon base \(server 2 of a panel .*\) is now server 3, "Moon base \(2\)"/,
    );
    const list = (await ok(c, "/api/servers")) as ServerSummary[];
    assert.deepEqual(list.map((s) => [s.id, s.name]), [[1, "Server 1"], [2, "Moon base"], [
      3,
      "Moon base (2)",
    ]]);
    assert.equal(new Set(list.map((s) => s.port)).size, 3, "each on its own game port");
    assert.deepEqual(await serverState(c, 3), before!);
    assert.deepEqual(await serverState(c, 1), firstBefore, "server 1 is untouched");

    // The imported server runs its save, and its old backup restores.
    const start = await c.post("/api/servers/3/server/start", {
      bindip: "127.0.0.1",
      port: await freeUdpPort(),
      savefile: "moon.zip",
    });
    assert.equal(start.status, 200, start.text);
    assert.equal((await c.get("/api/servers/3/server/stop")).status, 200);
    await until("the stop", async () => (await ok(c, "/api/servers/3/server/status")).status === "stopped");
    const [old] = (await ok(c, "/api/servers/3/backups")) as { id: string }[];
    const restored = await c.post(`/api/servers/3/backups/${old.id}/restore`, { as: "moon-again" });
    assert.equal(restored.status, 200, restored.text);

    // A whole panel's archive still needs a fresh panel.
    const whole = join(root, "whole.zip");
    const out = await runPanelCommand([...argsB, "--export", whole]);
    assert.equal(out.code, 0, out.out);
    const refused = await upload(c, readFileSync(whole), "/api/import/archive");
    assert.equal(refused.status, 409, refused.text);
    assert.equal(refused.body, TRANSFER_MSG.notFresh);
    const notOne = await upload(c, readFileSync(whole));
    assert.equal(notOne.status, 400, notOne.text);
    assert.equal(notOne.body, TRANSFER_MSG.panelArchive);
    assert.equal((await ok(c, "/api/servers")).length, 3);
  } finally {
    await b.stop();
    killRecordedGame(dataB);
    for (const id of [2, 3]) killRecordedGame(join(dataB, "servers", String(id)));
  }

  // A new panel's first-run import takes a server's archive too: a new server beside its empty first one.
  const dataC = join(root, "c");
  const fresh = await startPanelProcess({ args: await argsOf(dataC, gameB.dir) });
  try {
    const password = /Password: (\S+)/.exec(fresh.output())?.[1];
    assert.ok(password, fresh.output());
    const c = await fresh.login("admin", password);
    const r = await upload(c, readFileSync(archive), "/api/import/archive");
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.server, 2);
    assert.deepEqual(await serverState(c, 2), before!);
  } finally {
    await fresh.stop();
  }

  // --import is for whole panels: a server's archive is refused with where to import it instead.
  const c = await runPanelCommand([...(await argsOf(join(root, "d"), gameB.dir)), "--import", archive]);
  assert.equal(c.code, 1, c.out);
  assert.match(
    c.out,
    /nothing was imported\. This archive holds one server \("Moon base"\), not a whole panel\./,
  );
  rmSync(root, { recursive: true, force: true });
  rmSync(gameA.dir, { recursive: true, force: true });
  rmSync(gameB.dir, { recursive: true, force: true });
});
