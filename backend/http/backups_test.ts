// Backups against the simulator: a backup of a running game waits for its save, a game that does not
// finish saving gives a failed backup and no file, retention, restore, and the automatic backups.

import assert from "node:assert/strict";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { type GamePanel, startGame, waitForStatus, withGamePanel } from "../../tests/support/game.ts";
import type { Client } from "../../tests/support/harness.ts";
import { ZipReader } from "../lib/zip.ts";
import { readSaveHeader } from "../factorio/saves/header.ts";
import { readSave } from "../../tests/fake-factorio/savefile.ts";
import { BackupReader } from "../factorio/backups/archive.ts";
import type { Backup } from "../../shared/backups.ts";
import { MOD_FIXTURES } from "../../tests/support/modpanel.ts";
import { tokenClient, userWithRole } from "../../tests/support/roles.ts";
import { BACKUP_MSG } from "../../shared/backups.ts";

/** Unpacks a backup's save into a temp file (in the panel's data dir, removed with it) and answers its path. */
async function saveOf(p: GamePanel, b: Backup): Promise<string> {
  const reader = await BackupReader.open(join(p.config.backupsDir, `${b.id}.zip`));
  try {
    const dir = mkdtempSync(join(p.dataDir, "backup-save-"));
    const target = join(dir, b.save);
    await reader.extract(reader.find(`save/${b.save}`)!, target);
    return target;
  } finally {
    await reader.close();
  }
}

async function list(c: Client): Promise<Backup[]> {
  const r = await c.get("/api/backups");
  assert.equal(r.status, 200, r.text);
  return r.body;
}

const filesIn = (dir: string) => (existsSync(dir) ? readdirSync(dir) : []);

/**
 * Starts world.zip, alice joins, and the game's saves are made slow: a copy taken before "Saving finished"
 * would hold the map as it was before alice joined. Answers the admin and the game's lines from now on.
 */
async function runningWithAlice(p: GamePanel): Promise<{ c: Client; lines: string[] }> {
  const c = await p.login();
  await startGame(c, { savefile: "world.zip" });
  await p.ctx.game.rcon("/fake-join alice");
  await p.ctx.game.rcon("/fake-save-delay 1500");
  const lines: string[] = [];
  p.ctx.bus.on("server.log", ({ line }) => lines.push(line));
  return { c, lines };
}

Deno.test(
  "backup while running: asks the game to save, waits for it, and the copy opens as that save",
  withGamePanel(async (p) => {
    const { c, lines } = await runningWithAlice(p);

    const r = await c.post("/api/backups", { include: ["settings"] });
    assert.equal(r.status, 201, r.text);
    const b: Backup = r.body;
    assert.equal(b.reason, "manual");
    assert.equal(b.save, "world.zip");
    assert.match(b.sha256, /^[0-9a-f]{64}$/);
    assert.deepEqual(b.includes, ["settings"]);
    assert.ok(lines.some((l) => /Saving to world \(blocking\)/.test(l)), "the game was asked to save");
    assert.ok(
      lines.some((l) => /Saving finished/.test(l)),
      "the backup was answered after the game finished saving",
    );

    const copy = await saveOf(p, b);
    const header = await readSaveHeader(copy);
    assert.equal(header.factorio_version, "2.0.72.0");
    assert.equal(b.game_version, "2.0.72");
    assert.deepEqual(
      (await readSave(copy)).state.players,
      ["alice"],
      "the copy is the save written for the backup",
    );

    // The list, the file's checksum, and the remembered checkboxes.
    assert.deepEqual((await list(c)).map((x) => x.id), [b.id]);
    const d = await c.get(`/api/backups/${b.id}/download`);
    assert.equal(d.status, 200);
    const bytes = new Uint8Array(
      await new Response(readFileSync(join(p.config.backupsDir, `${b.id}.zip`))).arrayBuffer(),
    );
    const digest = Array.from(
      new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)),
      (x) => x.toString(16).padStart(2, "0"),
    ).join("");
    assert.equal(digest, b.sha256);
    assert.deepEqual((await c.get("/api/backups/settings")).body.include, ["settings"]);
    const zip = await ZipReader.open(join(p.config.backupsDir, `${b.id}.zip`));
    assert.deepEqual(
      zip.entries.map((e) => e.name).sort(),
      ["config/server-settings.json", "manifest.json", "save/world.zip"],
    );
    await zip.close();
  }),
);

Deno.test(
  "a save of another name finishing first does not count as the backup's save",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c, { savefile: "world.zip" });
    await p.ctx.game.rcon("/fake-join alice");
    await p.ctx.game.rcon("/fake-save-delay 1500");
    // The game saves "other" first (its "Saving finished" comes while the backup waits), then world.
    const other = p.ctx.game.rcon("/save other");
    const r = await c.post("/api/backups", {});
    await other;
    assert.equal(r.status, 201, r.text);
    assert.deepEqual((await readSave(await saveOf(p, r.body))).state.players, ["alice"]);
    const lines = p.ctx.game.recentLines().filter((l) => /Saving (to|finished)/.test(l));
    assert.equal(lines.length, 4, lines.join("\n"));
    assert.match(lines[0], /Saving to other/);
    assert.match(lines[2], /Saving to world/);
  }),
);

Deno.test(
  "a game that does not finish saving in time: the backup fails and leaves no file",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c, { savefile: "world.zip" });
    await p.ctx.game.rcon("/fake-save-delay 20000");
    const r = await c.post("/api/backups", {});
    // The game's failure, with its reason: not a fault of the panel (5xx).
    assert.equal(r.status, 424, r.text);
    assert.match(r.body, /did not finish saving within 1 s/);
    assert.deepEqual(await list(c), []);
    assert.deepEqual(filesIn(p.config.backupsDir), [], "no partial or temp file");
  }, { args: ["--backup-save-timeout", "1"] }),
);

Deno.test(
  "backup while stopped copies the save directly; bad requests change nothing",
  withGamePanel(async (p) => {
    const c = await p.login();
    let r = await c.post("/api/backups", { include: ["mods", "players"] });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.save, "world.zip");
    r = await c.post("/api/backups", { include: ["everything"] });
    assert.equal(r.status, 400);
    assert.match(r.body, /include may hold mods, mod-list, settings, players/);
    r = await c.post("/api/backups", { save: "nope.zip" });
    assert.equal(r.status, 404);
    r = await c.post("/api/backups/..%2Fetc/lock", { locked: true });
    assert.equal(r.status, 404);
    r = await c.post("/api/backups/x/delete", {});
    assert.equal(r.status, 404);
    assert.equal((await list(c)).length, 1);
  }),
);

Deno.test("retention: by count and age per reason, locked kept, and the space floor with an alert", async () => {
  let now = Date.parse("2026-06-01T00:00:00Z");
  let free = 10 * 1024 ** 3;
  const alerts: string[] = [];
  await withGamePanel(async (p) => {
    p.ctx.bus.on("alert", (a) => void (a.kind === "backup-failed" && alerts.push(a.title)));
    const c = await p.login();
    let r = await c.post("/api/backups/settings", {
      retention: { keep_last: 2, keep_days: null },
      min_free_mb: 0,
    });
    assert.equal(r.status, 200, r.text);
    const made: Backup[] = [];
    for (let i = 0; i < 3; i++) {
      now += 3600_000;
      r = await c.post("/api/backups", {});
      assert.equal(r.status, 201, r.text);
      made.push(r.body);
    }
    // Keep the last 2: the first went.
    assert.deepEqual((await list(c)).map((b) => b.id), [made[2].id, made[1].id]);
    assert.ok(!existsSync(join(p.config.backupsDir, `${made[0].id}.zip`)));

    // A locked one is kept and does not count.
    r = await c.post(`/api/backups/${made[1].id}/lock`, { locked: true });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.locked, true);
    r = await c.post(`/api/backups/${made[1].id}/delete`, {});
    assert.equal(r.status, 409, "a locked backup is not deleted");
    for (let i = 0; i < 2; i++) {
      now += 3600_000;
      made.push((await c.post("/api/backups", {})).body);
    }
    assert.deepEqual((await list(c)).map((b) => b.id), [made[4].id, made[3].id, made[1].id]);

    // By age: 2 days, no count limit.
    await c.post("/api/backups/settings", { retention: { keep_last: null, keep_days: 2 } });
    now += 3 * 86_400_000;
    made.push((await c.post("/api/backups", {})).body);
    assert.deepEqual(
      (await list(c)).map((b) => b.id),
      [made[5].id, made[1].id],
      "older than 2 days went, the locked one stays",
    );

    // Space: with too little free space the oldest unlocked goes, never the newest; still short -> alert.
    await c.post("/api/backups/settings", {
      retention: { keep_last: null, keep_days: null },
      min_free_mb: 100,
    });
    await c.post(`/api/backups/${made[1].id}/lock`, { locked: false });
    now += 3600_000;
    free = 99 * 1024 * 1024;
    const last = (await c.post("/api/backups", {})).body as Backup;
    const left = (await list(c)).map((b) => b.id);
    assert.ok(left.includes(last.id), "the newest backup is never removed for space");
    assert.ok(!left.includes(made[1].id), "the oldest unlocked went first");
    assert.ok(alerts.includes("Backups: disk space low"), `alerts: ${alerts}`);
  }, { now: () => now, freeBytes: () => free })();
});

Deno.test(
  "restore as a new save, and over the current save after backing it up",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c, { savefile: "world.zip" });
    await p.ctx.game.rcon("/fake-join alice");
    const b: Backup = (await c.post("/api/backups", { include: ["mod-list"] })).body;
    await p.ctx.game.rcon("/fake-join bob");

    // As a new save while running: touches nothing the game uses, so it is allowed.
    let r = await c.post(`/api/backups/${b.id}/restore`, { as: "restored", files: false });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.save, "restored.zip");
    assert.deepEqual((await readSave(join(p.factorio.dir, "saves", "restored.zip"))).state.players, [
      "alice",
    ]);
    r = await c.post(`/api/backups/${b.id}/restore`, { as: "restored" });
    assert.equal(r.status, 409, "an existing name is not overwritten");
    r = await c.post(`/api/backups/${b.id}/restore`, { as: "../evil" });
    assert.equal(r.status, 400);

    // Over the current save while running: refused unless "stop, restore, start".
    r = await c.post(`/api/backups/${b.id}/restore`, { replace: true });
    assert.equal(r.status, 423, r.text);
    r = await c.post(`/api/backups/${b.id}/restore`, { replace: true, restart: true, files: true });
    assert.equal(r.status, 200, r.text);
    assert.match(r.body.message, /Restored save world\.zip, mod-list\.json/);
    await waitForStatus(p.ctx, "running");
    // The stop saved the map with bob in it; that one was backed up before it was overwritten.
    const all = await list(c);
    const pre = all.find((x) => x.reason === "before-restore");
    assert.ok(pre, `a before-restore backup exists: ${all.map((x) => x.reason)}`);
    assert.deepEqual((await readSave(await saveOf(p, pre!))).state.players.sort(), ["alice", "bob"]);
    assert.equal(p.ctx.game.status().savefile, "world.zip");
    assert.deepEqual(await p.ctx.game.rcon("/players"), "Players (1):\n  alice");
  }),
);

Deno.test(
  "restore as a new save writes the save and nothing else unless asked; what it replaces is backed up first",
  withGamePanel(async (p) => {
    const c = await p.login();
    const mods = join(p.factorio.dir, "mods");
    copyFileSync(
      join(MOD_FIXTURES, "mods", "belt-balancer_2.1.3.zip"),
      join(mods, "belt-balancer_2.1.3.zip"),
    );
    const settingsFile = join(p.factorio.dir, "config", "server-settings.json");
    writeFileSync(settingsFile, JSON.stringify({ name: "Before" }));
    const b: Backup = (await c.post("/api/backups", { include: ["mods", "settings"] })).body;
    assert.deepEqual(b.includes, ["mods", "settings"]);

    // What the server has now: other mods, other settings, a mod-settings.dat of its own.
    rmSync(join(mods, "belt-balancer_2.1.3.zip"));
    writeFileSync(join(mods, "stray_1.0.0.zip"), "not from the backup");
    const modSettings = join(mods, "mod-settings.dat");
    copyFileSync(join(MOD_FIXTURES, "mod-settings", "factorio-2.0.55.mod-settings.dat"), modSettings);
    writeFileSync(settingsFile, JSON.stringify({ name: "After" }));
    const now = () => ({
      mods: readdirSync(mods).sort(),
      modSettings: readFileSync(modSettings),
      settings: readFileSync(settingsFile, "utf8"),
    });
    const current = now();

    // As a new save, as the API is called by default: the new save, nothing else, and nothing to back up.
    let r = await c.post(`/api/backups/${b.id}/restore`, { as: "copy" });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.message, `Restored save copy.zip from backup ${b.id}.`);
    assert.ok(existsSync(join(p.factorio.dir, "saves", "copy.zip")));
    assert.deepEqual(now(), current, "mods, mod-settings.dat and the server settings are untouched");
    assert.deepEqual(
      (await list(c)).map((x) => x.reason),
      ["manual"],
      "nothing was replaced, so nothing was backed up",
    );

    // Asked for the files too: they are backed up first, then replaced by the backup's.
    r = await c.post(`/api/backups/${b.id}/restore`, { as: "again", files: true });
    assert.equal(r.status, 200, r.text);
    assert.match(r.body.message, /the mods folder \(\d+ files\), server-settings\.json/);
    assert.ok(existsSync(join(mods, "belt-balancer_2.1.3.zip")));
    assert.ok(!existsSync(join(mods, "stray_1.0.0.zip")), "the folder is the backup's, whole");
    assert.equal(JSON.parse(readFileSync(settingsFile, "utf8")).name, "Before");
    assert.ok(existsSync(join(p.factorio.dir, "saves", "again.zip")));
    const pre = (await list(c)).find((x) => x.reason === "before-restore");
    assert.ok(pre, "a before-restore backup was made");
    assert.match(r.body.message, new RegExp(`backed up first \\(backup ${pre!.id}\\)`));
    assert.deepEqual(pre!.includes, ["mods", "settings"]);
    const reader = await BackupReader.open(join(p.config.backupsDir, `${pre!.id}.zip`));
    try {
      const names = reader.under("mods/").map((e) => e.rest).sort();
      assert.ok(names.includes("stray_1.0.0.zip") && names.includes("mod-settings.dat"), names.join(", "));
      assert.ok(!names.includes("belt-balancer_2.1.3.zip"));
    } finally {
      await reader.close();
    }
    // Restoring that backup brings back what the server had.
    r = await c.post(`/api/backups/${pre!.id}/restore`, { as: "undo", files: true });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(now(), current);
  }),
);

Deno.test(
  "automatic backups before a mod pack load, deleting all mods, a save upload, and for a version switch",
  withGamePanel(async (p) => {
    const c = await p.login();
    const reasons = async () => (await list(c)).map((b) => b.reason);

    mkdirSync(join(p.config.dataDir, "mod-packs", "pack1"), { recursive: true });
    let r = await c.post("/api/mods/packs/pack1/load", {});
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(await reasons(), ["before-mod-pack"]);
    r = await c.post("/api/mods/packs/nope/load", {});
    assert.equal(r.status, 404);
    assert.equal((await reasons()).length, 1, "no backup for a pack that does not exist");

    r = await c.post("/api/mods/delete/all", {});
    assert.equal(r.status, 200, r.text);
    assert.equal((await reasons())[0], "before-mods-delete");
    assert.deepEqual((await list(c))[0].includes, ["mods"]);

    const save = readFileSync(join(p.factorio.dir, "saves", "world.zip"));
    const form = new FormData();
    form.append("savefile", new File([save], "world.zip"));
    r = await c.request("POST", "/api/saves/upload", { body: form });
    assert.equal(r.status, 200, r.text);
    assert.equal((await reasons())[0], "before-upload");

    // The version switch (issue 13) calls this before it replaces the game.
    const made = await p.ctx.backups.before("before-update", ["mods"]);
    assert.equal(made?.reason, "before-update");
    assert.equal((await reasons()).length, 4);
  }),
);

Deno.test("the index is repaired from the files at start-up", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-backups-"));
  try {
    let id = "";
    await withGamePanel(async (p) => {
      const c = await p.login();
      id = (await c.post("/api/backups", {})).body.id;
      await c.post(`/api/backups/${id}/lock`, { locked: true });
      await c.post("/api/backups", {});
    }, { dataDir })();
    const dir = join(dataDir, "backups");
    const files = readdirSync(dir).filter((f) => f !== `${id}.zip`);
    rmSync(join(dir, files[0]));
    writeFileSync(join(dir, ".half-written.zip.abc.tmp"), "partial");
    writeFileSync(join(dir, "not-a-backup.zip"), "junk");
    await withGamePanel(async (p) => {
      const c = await p.login();
      const l = await list(c);
      assert.deepEqual(l.map((b) => [b.id, b.locked]), [[id, true]]);
      assert.ok(!existsSync(join(dir, ".half-written.zip.abc.tmp")), "leftover temp files are removed");
    }, { dataDir })();
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

Deno.test(
  "backup settings: what is not a setting is refused with 400 and nothing changes",
  withGamePanel(async (p) => {
    const c = await p.login();
    const good = {
      retention: { keep_last: 5, keep_days: 30 },
      by_reason: { manual: { keep_last: 3, keep_days: null } },
      min_free_mb: 10,
    };
    let r = await c.post("/api/backups/settings", good);
    assert.equal(r.status, 200, r.text);
    const before = (await c.get("/api/backups/settings")).body;
    for (
      const [body, message] of [
        [{ retention: "x" }, /Retention must be an object like \{"keep_last": 20, "keep_days": null\}/],
        [{ retention: null }, /Retention must be an object/],
        [{ retention: [] }, /Retention must be an object/],
        [
          { retention: { keep_last: 2, keep_weeks: 1 } },
          /Retention: "keep_weeks" is not a setting; a rule has keep_last and keep_days/,
        ],
        [{ retention: { keep_last: "2" } }, /keep the last must be a whole number/],
        [{ by_reason: { manual: "x" } }, /manual must be an object like/],
        [{ by_reason: [] }, /by_reason must be an object/],
        [
          { retention_days: 3 },
          /"retention_days" is not a backup setting\. The settings are include, retention, by_reason, min_free_mb\./,
        ],
        [{ include: ["mods"], colour: "red" }, /"colour" is not a backup setting/],
        [{ min_free_mb: "10" }, /free space floor must be a whole number/],
      ] as const
    ) {
      r = await c.post("/api/backups/settings", body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.status} ${r.text}`);
      assert.match(r.body, message, JSON.stringify(body));
      assert.deepEqual(
        (await c.get("/api/backups/settings")).body,
        before,
        `${JSON.stringify(body)} changed nothing`,
      );
    }
    // A rule of nulls (no limit) and a reason's rule removed with null stay possible.
    r = await c.post("/api/backups/settings", {
      retention: { keep_last: null, keep_days: null },
      by_reason: { manual: null },
    });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.retention, { keep_last: null, keep_days: null });
    assert.deepEqual(r.body.by_reason, {});
  }),
);

Deno.test(
  'backup of a running 1.1 server: waits for 1.1\'s "Saving game as" and its "Saving finished"',
  withGamePanel(async (p) => {
    const { c, lines } = await runningWithAlice(p);
    const r = await c.post("/api/backups", {});
    assert.equal(r.status, 201, r.text);
    const started = lines.findIndex((l) =>
      /Info AppManager\.cpp:\d+: Saving game as .*[/\\]saves[/\\]world\.zip$/.test(l)
    );
    assert.ok(started >= 0, `the game logged 1.1's form: ${lines.join("\n")}`);
    assert.ok(lines.slice(started).some((l) => /Saving finished/.test(l)));
    assert.ok(!lines.some((l) => /Saving to/.test(l)), "1.1 does not print 2.x's form");
    assert.equal(r.body.game_version, "1.1.110");
    assert.deepEqual(
      (await readSave(await saveOf(p, r.body))).state.players,
      ["alice"],
      "the copy is the save written for the backup",
    );
  }, { version: "1.1", args: ["--backup-save-timeout", "10"] }),
);

Deno.test(
  "a backup holding the server settings (passwords, tokens) downloads for admins only, by session or token",
  withGamePanel(async (p) => {
    const admin = await p.login();
    const settingsFile = join(p.factorio.dir, "config", "server-settings.json");
    writeFileSync(
      settingsFile,
      JSON.stringify({
        name: "S",
        username: "owner",
        password: "hunter2",
        token: "t0ken",
        game_password: "pw",
      }),
    );
    const secret: Backup = (await admin.post("/api/backups", { include: ["settings", "players"] })).body;
    const plain: Backup = (await admin.post("/api/backups", { include: ["mods", "players"] })).body;
    const operator = await userWithRole(p, admin, "olga", "operator");
    const viewer = await userWithRole(p, admin, "vic", "viewer");
    const clients = {
      admin,
      operator,
      viewer,
      "admin token": await tokenClient(p, admin, "admin"),
      "admin's operator token": await tokenClient(p, admin, "operator"),
      "viewer token": await tokenClient(p, viewer, "viewer"),
    };
    for (const [who, c] of Object.entries(clients)) {
      const r = await c.get(`/api/backups/${secret.id}/download`);
      if (who.startsWith("admin") && !who.includes("operator")) {
        assert.equal(r.status, 200, `${who}: ${r.status}`);
        assert.equal(r.headers.get("content-length"), String(secret.size), who);
      } else {
        assert.equal(r.status, 403, `${who}: ${r.status} (${r.text.length} bytes)`);
        assert.equal(r.body, BACKUP_MSG.downloadNeedsAdmin, who);
      }
      // Without the server settings anyone who may read may download.
      assert.equal(
        (await c.get(`/api/backups/${plain.id}/download`)).status,
        200,
        `${who}: a backup without secrets`,
      );
    }
    // The list says which backups hold secrets, so the page can say why before anyone clicks.
    const rows = (await viewer.get("/api/backups")).body as Backup[];
    assert.deepEqual(rows.map((b) => [b.id, b.includes.includes("settings")]), [[plain.id, false], [
      secret.id,
      true,
    ]]);
  }),
);
