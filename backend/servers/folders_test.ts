// A server's Factorio directory with real folders: made empty, a folder used where it is checked (paths
// that are not one, not Factorio, another server's), a copy of another server's files, and a new server
// unpacked from a backup the panel made.

import assert from "node:assert/strict";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkFactorioFolder, copyServerFiles, prepareEmptyServer, serverFromBackup } from "./folders.ts";
import { HttpError } from "../lib/errors.ts";
import { SERVERS_MSG } from "../../shared/servers.ts";
import { withGamePanel } from "../../tests/support/game.ts";
import type { Backup } from "../../shared/backups.ts";

function withTemp(fn: (dir: string) => Promise<void> | void): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "servers-folders-"));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

function refusal(fn: () => unknown): HttpError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof HttpError, `refused with an HttpError, got ${e}`);
    return e;
  }
  assert.fail("not refused");
}

async function refusalOf(p: Promise<unknown>): Promise<HttpError> {
  const e = await p.then(() => null, (e) => e);
  assert.ok(e instanceof HttpError, `refused with an HttpError, got ${e}`);
  return e;
}

/** Every file under `dir`, relative, with its content, sorted. */
function tree(dir: string, prefix = ""): Record<string, string> {
  const out: Record<string, string> = {};
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) Object.assign(out, tree(p, `${prefix}${e.name}/`));
    else out[`${prefix}${e.name}`] = readFileSync(p, "latin1");
  }
  return out;
}

function write(root: string, rel: string, content: string | Uint8Array = rel): void {
  mkdirSync(join(root, rel, ".."), { recursive: true });
  writeFileSync(join(root, rel), content);
}

Deno.test(
  "prepareEmptyServer: saves, mods and config, renamed into place; an existing folder is refused",
  withTemp((dir) => {
    const root = join(dir, "servers", "2", "factorio");
    prepareEmptyServer(root);
    assert.deepEqual(readdirSync(root).sort(), ["config", "mods", "saves"]);
    assert.deepEqual(readdirSync(join(dir, "servers", "2")), ["factorio"], "no staging folder left");

    write(root, "saves/world.zip");
    const e = refusal(() => prepareEmptyServer(root));
    assert.equal(e.status, 409);
    assert.equal(e.message, SERVERS_MSG.folderExists(root));
    assert.deepEqual(readdirSync(join(root, "saves")), ["world.zip"], "nothing touched");
    assert.deepEqual(readdirSync(join(dir, "servers", "2")), ["factorio"]);
  }),
);

Deno.test(
  "checkFactorioFolder: not absolute, missing, a file, not Factorio",
  withTemp((dir) => {
    const cases: [string, number, string][] = [
      ["", 400, SERVERS_MSG.folderRequired],
      ["factorio", 400, SERVERS_MSG.folderNotAbsolute("factorio")],
      [join(dir, "nope"), 400, SERVERS_MSG.folderMissing(join(dir, "nope"))],
    ];
    write(dir, "file.txt");
    cases.push([join(dir, "file.txt"), 400, SERVERS_MSG.folderNotDirectory(join(dir, "file.txt"))]);
    mkdirSync(join(dir, "photos"));
    write(dir, "photos/cat.jpg");
    cases.push([join(dir, "photos"), 400, SERVERS_MSG.folderNotFactorio(join(dir, "photos"))]);
    for (const [path, status, message] of cases) {
      const e = refusal(() => checkFactorioFolder(path, []));
      assert.equal(e.status, status, path);
      assert.equal(e.message, message);
    }
  }),
);

Deno.test(
  "checkFactorioFolder: a factorio-docker volume, a Factorio unpacked by hand, a folder with saves only",
  withTemp((dir) => {
    const volume = join(dir, "volume");
    for (const d of ["saves", "mods", "config", "scenarios", "script-output"]) {
      mkdirSync(join(volume, d), { recursive: true });
    }
    assert.equal(checkFactorioFolder(volume, []), volume);

    const unpacked = join(dir, "factorio");
    write(unpacked, "bin/x64/factorio", "#!/bin/sh\n");
    mkdirSync(join(unpacked, "data"));
    assert.equal(checkFactorioFolder(unpacked, []), unpacked);

    const settingsOnly = join(dir, "by-hand");
    write(settingsOnly, "server-settings.json", "{}");
    assert.equal(checkFactorioFolder(settingsOnly, []), settingsOnly);

    // A symlink to a folder answers the folder's real path.
    symlinkSync(volume, join(dir, "link"));
    assert.equal(checkFactorioFolder(join(dir, "link"), []), volume);
  }),
);

Deno.test(
  "checkFactorioFolder: another server's folder, inside it, holding it, or the same through a symlink",
  withTemp((dir) => {
    const main = join(dir, "srv", "main");
    mkdirSync(join(main, "saves"), { recursive: true });
    mkdirSync(join(main, "scenarios", "pvp", "saves"), { recursive: true });
    const other = join(dir, "srv", "other");
    mkdirSync(join(other, "mods"), { recursive: true });
    symlinkSync(main, join(dir, "main-link"));
    // The other server's root is given through a symlink too: real paths are compared.
    symlinkSync(join(dir, "srv"), join(dir, "srv-link"));
    const others = [{ name: "Main", root: join(dir, "srv-link", "main") }];

    const cases: [string, string][] = [
      [main, SERVERS_MSG.folderOfServer(main, "Main")],
      [join(dir, "main-link"), SERVERS_MSG.folderOfServer(join(dir, "main-link"), "Main")],
      [
        join(main, "scenarios", "pvp"),
        SERVERS_MSG.folderInsideServer(join(main, "scenarios", "pvp"), "Main"),
      ],
      [join(dir, "srv"), SERVERS_MSG.folderHoldsServer(join(dir, "srv"), "Main")],
    ];
    mkdirSync(join(dir, "srv", "config"));
    for (const [path, message] of cases) {
      const e = refusal(() => checkFactorioFolder(path, others));
      assert.equal(e.status, 409, path);
      assert.equal(e.message, message);
    }
    // A sibling whose name starts like the other's is not inside it.
    mkdirSync(join(dir, "srv", "main2", "saves"), { recursive: true });
    assert.equal(checkFactorioFolder(join(dir, "srv", "main2"), others), join(dir, "srv", "main2"));
    assert.equal(checkFactorioFolder(other, others), other);
  }),
);

/** A server's directory as the game and the panel leave it. */
function sourceServer(root: string): void {
  write(root, "saves/world.zip", new Uint8Array([80, 75, 3, 4, 1, 2, 3]));
  write(root, "saves/_autosave1.zip");
  write(root, "saves/world.tmp.zip", "being written");
  write(root, "saves/.hidden.zip");
  write(root, "saves/notes.txt");
  write(root, "mods/mod-list.json", '{"mods":[{"name":"base","enabled":true}]}');
  write(root, "mods/mod-settings.dat", new Uint8Array([0, 1, 2, 255]));
  write(root, "mods/Krastorio2_1.3.24.zip");
  write(root, "mods/my-mod/info.json", '{"name":"my-mod"}');
  write(root, "mods/my-mod/locale/en/strings.cfg");
  write(root, "mods/.mods-restore-abc/x.zip");
  write(root, "config/server-settings.json", '{"name":"Main","game_password":"secret"}');
  chmodSync(join(root, "config/server-settings.json"), 0o600);
  write(root, "config/server-adminlist.json", '["bob"]');
  write(root, "config/server-whitelist.json", '["alice"]');
  write(root, "config/server-banlist.json", "[]");
  write(root, "config/config.ini", "[path]\nwrite-data=/srv/main\n");
  write(root, "config/rconpw", "pw15charsXYZabc\n");
  write(root, "scenarios/pvp/control.lua");
  write(root, "factorio-current.log");
  write(root, "factorio-previous.log");
  write(root, "factorio-console.log");
  write(root, "versions/2.0.72/bin/x64/factorio");
  write(root, "script-output/out.txt");
  write(root, "game-process.json", "{}");
  write(root, "rcon.json", "{}");
}

Deno.test(
  "copyServerFiles: saves, mods, settings, player lists and scenarios; not config.ini, logs, versions",
  withTemp(async (dir) => {
    const from = join(dir, "main");
    sourceServer(from);
    const to = join(dir, "servers", "3", "factorio");
    await copyServerFiles(from, to);

    const src = tree(from);
    const want = [
      "config/server-adminlist.json",
      "config/server-banlist.json",
      "config/server-settings.json",
      "config/server-whitelist.json",
      "mods/Krastorio2_1.3.24.zip",
      "mods/mod-list.json",
      "mods/mod-settings.dat",
      "mods/my-mod/info.json",
      "mods/my-mod/locale/en/strings.cfg",
      "saves/_autosave1.zip",
      "saves/world.zip",
      "scenarios/pvp/control.lua",
    ];
    assert.deepEqual(tree(to), Object.fromEntries(want.map((f) => [f, src[f]])));
    assert.equal(
      statSync(join(to, "config/server-settings.json")).mode & 0o777,
      0o600,
      "settings stay owner-only",
    );
    assert.deepEqual(readdirSync(join(dir, "servers", "3")), ["factorio"], "no staging folder left");
    assert.deepEqual(tree(from), src, "the source is unchanged");

    // A folder that is there already is refused and left alone.
    const e = await refusalOf(copyServerFiles(from, to));
    assert.equal(e.status, 409);
    assert.equal(e.message, SERVERS_MSG.folderExists(to));
  }),
);

Deno.test(
  "copyServerFiles: a copy that fails leaves nothing, and a folder made meanwhile stays as it was",
  withTemp(async (dir) => {
    const from = join(dir, "main");
    sourceServer(from);

    // The target's parent is a file: the copy cannot be made, whoever runs it.
    write(dir, "servers");
    const bad = join(dir, "servers", "3", "factorio");
    const e = await copyServerFiles(from, bad).then(() => null, (e) => e);
    assert.ok(e instanceof Error, "the copy fails");
    assert.deepEqual(readdirSync(dir).sort(), ["main", "servers"], "nothing left beside the target");

    // Someone makes the target while the copy runs: the copy is refused at its rename, its files go,
    // and what they put there stays.
    const to = join(dir, "other");
    const copying = copyServerFiles(from, to);
    write(to, "saves/theirs.zip", "theirs");
    const clash = await refusalOf(copying);
    assert.equal(clash.status, 409);
    assert.equal(clash.message, SERVERS_MSG.folderExists(to));
    assert.deepEqual(tree(to), { "saves/theirs.zip": "theirs" });
    assert.deepEqual(readdirSync(dir).sort(), ["main", "other", "servers"], "no staging folder left");
  }),
);

Deno.test(
  "serverFromBackup: a backup the panel made (save, mods folder, settings, player lists) becomes a server",
  withGamePanel(async (p) => {
    const game = p.factorio.dir;
    write(
      game,
      "mods/mod-list.json",
      '{"mods":[{"name":"base","enabled":true},{"name":"my-mod","enabled":true}]}',
    );
    write(game, "mods/mod-settings.dat", new Uint8Array([0, 1, 2, 255]));
    write(game, "mods/my-mod_1.0.0.zip", new Uint8Array([80, 75, 5, 6, 9, 9]));
    write(game, "config/server-settings.json", '{"name":"Main","game_password":"secret"}');
    write(game, "config/server-adminlist.json", '["bob"]');
    write(game, "config/server-whitelist.json", '["alice"]');
    write(game, "config/server-banlist.json", '[{"username":"eve","reason":"griefing"}]');

    const c = await p.login();
    const r = await c.post("/api/backups", { include: ["mods", "settings", "players"] });
    assert.equal(r.status, 201, r.text);
    const b: Backup = r.body;
    const zip = join(p.config.backupsDir, `${b.id}.zip`);

    const root = join(p.dataDir, "servers", "2", "factorio");
    const manifest = await serverFromBackup(zip, root);
    assert.equal(manifest.save, "world.zip");
    assert.equal(manifest.id, b.id);
    const src = tree(game);
    const want = [
      "config/server-adminlist.json",
      "config/server-banlist.json",
      "config/server-settings.json",
      "config/server-whitelist.json",
      "mods/mod-list.json",
      "mods/mod-settings.dat",
      "mods/my-mod_1.0.0.zip",
      "saves/world.zip",
    ];
    assert.deepEqual(tree(root), Object.fromEntries(want.map((f) => [f, src[f]])));
    assert.equal(statSync(join(root, "config/server-settings.json")).mode & 0o777, 0o600);
    assert.deepEqual(readdirSync(join(p.dataDir, "servers", "2")), ["factorio"], "no staging folder left");

    const again = await refusalOf(serverFromBackup(zip, root));
    assert.equal(again.status, 409);

    // A file that is not a panel backup: 400, and nothing made.
    const notBackup = join(game, "saves", "world.zip");
    const e = await refusalOf(serverFromBackup(notBackup, join(p.dataDir, "servers", "4", "factorio")));
    assert.equal(e.status, 400);
    assert.match(e.message, /cannot be read/);
    assert.deepEqual(readdirSync(join(p.dataDir, "servers")), ["2"]);
  }),
);
