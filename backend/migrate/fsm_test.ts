// `npm start -- --import-fsm DIR`, against an old-panel directory built here the way the old panel leaves
// it: conf.json, a SQLite users table with base64(bcrypt) passwords (made by a bcrypt library) and a
// soft-deleted row, a mod pack folder, factorio.auth. The panel is started by the launcher, as npm start.

import assert from "node:assert/strict";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Buffer } from "node:buffer";
import bcrypt from "bcryptjs";
import { runPanelCommand, startPanelProcess } from "../../tests/support/process.ts";
import { freeTcpPort, freeUdpPort, installGame, killRecordedGame } from "../../tests/support/game.ts";
import type { ServerSummary } from "../../shared/contract/servers.ts";
import { LOAD_LATEST } from "../../shared/api.ts";

function oldPanel(factorioDir = "/opt/factorio"): string {
  const dir = mkdtempSync(join(tmpdir(), "fsm-"));
  writeFileSync(
    join(dir, "conf.json"),
    JSON.stringify(
      {
        rcon_pass: "xyz",
        sq_lite_database_file: "sqlite.db",
        cookie_encryption_key: "c2VjcmV0",
        settings_file: "server-settings.json",
        factorio_dir: factorioDir,
        server_ip: "0.0.0.0",
        server_port: 8088,
        rcon_port: 41234,
      },
      null,
      "\t",
    ),
  );
  const db = new DatabaseSync(join(dir, "sqlite.db"));
  db.exec(`CREATE TABLE users (id integer PRIMARY KEY AUTOINCREMENT, created_at datetime, updated_at datetime,
    deleted_at datetime, username text, password text, role text, email text)`);
  const add = db.prepare(
    "INSERT INTO users (created_at, updated_at, deleted_at, username, password, role, email) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const hash = (pw: string) => Buffer.from(bcrypt.hashSync(pw, 10)).toString("base64");
  const now = new Date().toISOString();
  add.run(now, now, null, "admin", hash("old admin password"), "admin", "admin@example.org");
  add.run(now, now, null, "bob", hash("bob's password"), "", "bob@example.org");
  add.run(now, now, now, "carol", hash("gone"), "admin", ""); // deleted in the old panel
  db.close();
  mkdirSync(join(dir, "mod_packs", "weekend"), { recursive: true });
  writeFileSync(
    join(dir, "mod_packs", "weekend", "mod-list.json"),
    JSON.stringify({ mods: [{ name: "base", enabled: true }] }),
  );
  writeFileSync(join(dir, "mod_packs", "weekend", "some-mod_1.0.0.zip"), "zip bytes");
  writeFileSync(
    join(dir, "factorio.auth"),
    JSON.stringify({ username: "engineer", userkey: "old-portal-token" }),
  );
  return dir;
}

Deno.test("--import-fsm: a dry run, the import, old passwords working, a second run importing nothing", async () => {
  const fsm = oldPanel();
  const dataDir = join(mkdtempSync(join(tmpdir(), "panel-import-")), "data");
  const base = ["--port", "0", "--bind", "127.0.0.1", "--data-dir", dataDir, "--import-fsm", fsm];
  try {
    const dry = await runPanelCommand([...base, "--dry-run"]);
    assert.equal(dry.code, 0, dry.out);
    assert.match(dry.out, /user admin \(admin\): would import/);
    assert.match(dry.out, /user bob \(operator\): would import/);
    assert.doesNotMatch(dry.out, /carol/);
    assert.match(dry.out, /mod pack weekend: would import/);
    assert.match(dry.out, /mod portal login: would import/);
    assert.match(
      dry.out,
      /start with: --factorio-dir \/opt\/factorio --bind 0\.0\.0\.0 --port 8088 --rcon-port 41234/,
    );
    assert.ok(!existsSync(dataDir), "a dry run changes nothing, not even the data dir");

    let panel = await startPanelProcess({ args: base });
    try {
      assert.doesNotMatch(panel.output(), /First start: created the user admin/);
      assert.match(panel.output(), /user bob \(operator\): imported/);
      const admin = await panel.login("admin", "old admin password");
      const users = (await admin.get("/api/user/list")).body as {
        username: string;
        role: string;
        email: string;
      }[];
      assert.deepEqual(users.map((u) => [u.username, u.role, u.email]), [
        ["admin", "admin", "admin@example.org"],
        ["bob", "operator", "bob@example.org"],
      ]);
      assert.ok(!users.some((u) => JSON.stringify(u).includes("bcrypt")), "no hash in the API");
      await panel.login("bob", "bob's password");
      assert.equal(
        (await panel.client().post("/api/login", { username: "bob", password: "wrong" })).status,
        401,
      );
      // Signed in once: the old bcrypt hash was replaced by the panel's own.
      const db = new DatabaseSync(join(dataDir, "panel.db"), { readOnly: true });
      const hashes = db.prepare("SELECT username, password_hash FROM users ORDER BY username").all() as {
        username: string;
        password_hash: string;
      }[];
      db.close();
      assert.deepEqual(hashes.map((h) => h.password_hash.split("$")[0]), ["scrypt", "scrypt"]);
      const packs = (await admin.get("/api/mods/packs/list")).body as { name: string }[];
      assert.ok(packs.some((p) => p.name === "weekend"), JSON.stringify(packs));
      assert.equal(
        readFileSync(join(dataDir, "mod-packs", "weekend", "some-mod_1.0.0.zip"), "utf8"),
        "zip bytes",
      );
      const creds = JSON.parse(readFileSync(join(dataDir, "mod-portal.json"), "utf8"));
      assert.equal(creds.username, "engineer");
      assert.equal(Deno.statSync(join(dataDir, "mod-portal.json")).mode! & 0o777, 0o600);
    } finally {
      await panel.stop();
    }

    // The same import again changes nothing.
    panel = await startPanelProcess({ args: base });
    try {
      assert.match(panel.output(), /Nothing to import\./);
      await panel.login("admin", "old admin password");
    } finally {
      await panel.stop();
    }
  } finally {
    rmSync(fsm, { recursive: true, force: true });
    rmSync(join(dataDir, ".."), { recursive: true, force: true });
  }
});

Deno.test("--import-fsm with a damaged user database: a clear message, nothing imported, no panel started", async () => {
  const fsm = oldPanel();
  const dataDir = join(mkdtempSync(join(tmpdir(), "panel-import-")), "data");
  try {
    writeFileSync(
      join(fsm, "sqlite.db"),
      "this is not a database at all, just some text of a fair length.".repeat(100),
    );
    const r = await runPanelCommand([
      "--port",
      "0",
      "--bind",
      "127.0.0.1",
      "--data-dir",
      dataDir,
      "--import-fsm",
      fsm,
    ]);
    assert.equal(r.code, 1);
    assert.match(
      r.out,
      /factorio-panel: nothing was imported\. .*sqlite\.db is not a readable user database of the old panel/,
    );
    assert.ok(!existsSync(dataDir));
  } finally {
    rmSync(fsm, { recursive: true, force: true });
    rmSync(join(dataDir, ".."), { recursive: true, force: true });
  }
});

Deno.test("--import-fsm leaves out users whose names the panel refuses (line breaks, bidi, spaces), and says so", async () => {
  const fsm = oldPanel();
  const dataDir = join(mkdtempSync(join(tmpdir(), "panel-import-")), "data");
  try {
    const db = new DatabaseSync(join(fsm, "sqlite.db"));
    const hash = Buffer.from(bcrypt.hashSync("pw", 4)).toString("base64");
    const add = db.prepare(
      "INSERT INTO users (username, password, role, email) VALUES (?, ?, 'admin', 'e@example.org')",
    );
    for (const name of ["eve\n   1.000 Error Server crashed", "mallory\u202Enimda", "John Smith"]) {
      add.run(name, hash);
    }
    db.close();
    const base = ["--port", "0", "--bind", "127.0.0.1", "--data-dir", dataDir, "--import-fsm", fsm];
    const dry = await runPanelCommand([...base, "--dry-run"]);
    assert.equal(dry.code, 0, dry.out);
    assert.match(dry.out, /user bob \(operator\): would import/);
    assert.match(
      dry.out,
      /user "eve\\u000a {3}1\.000 Error Server crashed": left out \(Username must be at most 64 characters, without spaces or control characters\)/,
    );
    assert.match(dry.out, /user "mallory\\u202enimda": left out/);
    assert.match(dry.out, /user "John Smith": left out/);
    assert.doesNotMatch(dry.out, /\n {3}1\.000 Error Server crashed/, "no forged line in the output");
    const panel = await startPanelProcess({ args: base });
    try {
      const admin = await panel.login("admin", "old admin password");
      const users = (await admin.get("/api/user/list")).body as { username: string }[];
      assert.deepEqual(users.map((u) => u.username), ["admin", "bob"]);
    } finally {
      await panel.stop();
    }
  } finally {
    rmSync(fsm, { recursive: true, force: true });
    rmSync(join(dataDir, ".."), { recursive: true, force: true });
  }
});

Deno.test("--import-fsm with a bcrypt hash dearer than cost 12: refused, naming the user, nothing imported", async () => {
  const fsm = oldPanel();
  const dataDir = join(mkdtempSync(join(tmpdir(), "panel-import-")), "data");
  try {
    // Each sign-in checks a hash with the cost it names: cost 31 would hold a core for days per attempt.
    const db = new DatabaseSync(join(fsm, "sqlite.db"));
    db.prepare("UPDATE users SET password = ? WHERE username = 'bob'").run(
      Buffer.from("$2b$31$" + "a".repeat(53)).toString("base64"),
    );
    db.close();
    const r = await runPanelCommand([
      "--port",
      "0",
      "--bind",
      "127.0.0.1",
      "--data-dir",
      dataDir,
      "--import-fsm",
      fsm,
    ]);
    assert.equal(r.code, 1, r.out);
    assert.match(
      r.out,
      /factorio-panel: nothing was imported\. .*sqlite\.db: the password of bob is a bcrypt hash of cost 31; the panel takes at most 12\./,
    );
    assert.ok(!existsSync(dataDir));
  } finally {
    rmSync(fsm, { recursive: true, force: true });
    rmSync(join(dataDir, ".."), { recursive: true, force: true });
  }
});

Deno.test("--import-fsm: the old panel's Factorio directory on this machine becomes a new server beside server 1; again, nothing", async () => {
  const game = await installGame("2.0", ["old-world.zip"]);
  const fsm = oldPanel(game.dir);
  const root = mkdtempSync(join(tmpdir(), "panel-import-"));
  const dataDir = join(root, "data");
  const own = join(root, "factorio");
  mkdirSync(own);
  const base = [
    "--port",
    "0",
    "--bind",
    "127.0.0.1",
    "--data-dir",
    dataDir,
    "--factorio-dir",
    own,
    "--rcon-port",
    String(await freeTcpPort()),
    "--import-fsm",
    fsm,
  ];
  try {
    const dry = await runPanelCommand([...base, "--dry-run"]);
    assert.equal(dry.code, 0, dry.out);
    assert.ok(
      dry.out.includes(
        `Factorio directory ${game.dir}: would become a new server ("Old panel"), used where it is`,
      ),
      dry.out,
    );
    assert.match(dry.out, /start with: --bind 0\.0\.0\.0 --port 8088 --rcon-port 41234\n/);

    let panel = await startPanelProcess({ args: base });
    try {
      assert.ok(
        panel.output().includes(
          `Factorio directory ${game.dir}: now server 2 ("Old panel"), used where it is`,
        ),
        panel.output(),
      );
      const admin = await panel.login("admin", "old admin password");
      const servers = (await admin.get("/api/servers")).body as ServerSummary[];
      assert.deepEqual(servers.map((s) => [s.id, s.name, s.dir]), [
        [1, "Server 1", own],
        [2, "Old panel", Deno.realPathSync(game.dir)],
      ]);
      const saves = (await admin.get("/api/servers/2/saves/list")).body as { name: string }[];
      assert.deepEqual(saves.map((s) => s.name).filter((n) => n !== LOAD_LATEST), ["old-world.zip"]);
      // Its game runs from where it is, with its own binary.
      const start = await admin.post("/api/servers/2/server/start", {
        bindip: "127.0.0.1",
        port: await freeUdpPort(),
        savefile: "old-world.zip",
      });
      assert.equal(start.status, 200, start.text);
      assert.equal((await admin.get("/api/servers/2/server/stop")).status, 200);
    } finally {
      await panel.stop();
      killRecordedGame(join(dataDir, "servers", "2"));
    }

    // Started again with the same flags: the directory is a server already; nothing is added.
    panel = await startPanelProcess({ args: base });
    try {
      assert.ok(
        panel.output().includes(
          `Factorio directory ${game.dir}: already the server "Old panel", left as it is`,
        ),
        panel.output(),
      );
      assert.match(panel.output(), /Nothing to import\./);
      const admin = await panel.login("admin", "old admin password");
      assert.equal(((await admin.get("/api/servers")).body as ServerSummary[]).length, 2);
    } finally {
      await panel.stop();
      killRecordedGame(join(dataDir, "servers", "2"));
    }
  } finally {
    rmSync(fsm, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
    rmSync(game.dir, { recursive: true, force: true });
  }
});
