// The first-run import routes over the real API: offered only while the panel is new, and a bad archive
// or folder changes nothing (no user, no leftover upload).

import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { withPanel } from "../../tests/support/harness.ts";
import { installGame, withGamePanel } from "../../tests/support/game.ts";
import type { ServerSummary } from "../../shared/contract/servers.ts";
import { TRANSFER_MSG } from "../../shared/transfer.ts";
import { INITIAL_PASSWORD_FILE } from "../auth/accounts.ts";

function archiveForm(bytes: Uint8Array): FormData {
  const f = new FormData();
  f.append("archive", new File([bytes as BlobPart], "panel-export.zip"));
  return f;
}

Deno.test(
  "a set-up panel does not offer the import: 409 on every import route, before the upload is read",
  withPanel(async (p) => {
    const c = await p.login();
    assert.deepEqual((await c.get("/api/import/status")).body, { available: false });
    for (const path of ["/api/import/old-panel/preview", "/api/import/old-panel"]) {
      const r = await c.post(path, { dir: "/nowhere" });
      assert.deepEqual([r.status, r.body], [409, TRANSFER_MSG.notFresh], path);
    }
    const up = await c.request("POST", "/api/import/archive", { body: archiveForm(new Uint8Array(1000)) });
    assert.deepEqual([up.status, up.body], [409, TRANSFER_MSG.notFresh]);
  }),
);

Deno.test(
  "a new panel: a bad folder or archive gets a clear 400 and changes nothing",
  withPanel(async (p) => {
    // The first-start admin still has the generated password (what bootstrap leaves without PANEL_ADMIN_PASSWORD).
    writeFileSync(join(p.dataDir, INITIAL_PASSWORD_FILE), "generated\n");
    const c = await p.login();
    assert.deepEqual((await c.get("/api/import/status")).body, { available: true });
    const before = readdirSync(p.dataDir).sort();

    const noDir = await c.post("/api/import/old-panel/preview", { dir: " " });
    assert.deepEqual([noDir.status, noDir.body], [400, TRANSFER_MSG.dirRequired]);
    // Said in words a person reads, not as the system's error code (ENOENT...).
    const missing = await c.post("/api/import/old-panel", { dir: join(p.dataDir, "nowhere") });
    assert.deepEqual([missing.status, missing.body], [
      400,
      `Nothing was imported. There is no folder ${join(p.dataDir, "nowhere")} on the panel's machine.`,
    ]);
    const notOld = await c.post("/api/import/old-panel/preview", { dir: p.dataDir });
    assert.equal(notOld.status, 400);
    assert.equal(
      notOld.body,
      `Nothing was imported. There is no conf.json in ${p.dataDir}, so it is not the old panel's folder. Give the folder factorio-server-manager runs from (it holds conf.json).`,
    );
    const aFile = await c.post("/api/import/old-panel/preview", {
      dir: join(p.dataDir, INITIAL_PASSWORD_FILE),
    });
    assert.match(
      aFile.body,
      /^Nothing was imported\. .*initial-admin-password is a file, not the old panel's folder/,
    );
    for (const r of [missing, notOld, aFile]) {
      assert.doesNotMatch(r.body, /ENOENT|ENOTDIR|EISDIR|no such file/);
    }

    const junk = await c.request("POST", "/api/import/archive", {
      body: archiveForm(new TextEncoder().encode("not a zip at all".repeat(50))),
    });
    assert.equal(junk.status, 400);
    assert.match(
      junk.body,
      /^The archive cannot be imported: it is not a readable zip .*Nothing was changed\.$/,
    );
    const none = await c.request("POST", "/api/import/archive", { body: new FormData() });
    assert.deepEqual([none.status, none.body], [400, TRANSFER_MSG.archiveRequired]);

    assert.deepEqual(
      (await c.get("/api/user/list")).body.map((u: { username: string }) => u.username),
      ["admin"],
    );
    assert.deepEqual(readdirSync(p.dataDir).sort(), before, "no upload left behind");
    assert.deepEqual((await c.get("/api/import/status")).body, { available: true });
  }),
);

Deno.test(
  "a new panel: importing the old panel adds its Factorio directory as a new server, used where it is",
  withGamePanel(async (p) => {
    writeFileSync(join(p.dataDir, INITIAL_PASSWORD_FILE), "generated\n");
    const game = await installGame("2.0", ["old-world.zip"]);
    const old = mkdtempSync(join(tmpdir(), "fsm-"));
    try {
      cpSync(new URL("../../tests/fixtures/old-panel", import.meta.url).pathname, old, { recursive: true });
      const conf = JSON.parse(readFileSync(join(old, "conf.json"), "utf8"));
      writeFileSync(join(old, "conf.json"), JSON.stringify({ ...conf, factorio_dir: game.dir }));
      const c = await p.login();
      const preview = await c.post("/api/import/old-panel/preview", { dir: old });
      assert.equal(preview.status, 200, preview.text);
      assert.ok(
        preview.body.lines.includes(
          `  Factorio directory ${game.dir}: would become a new server ("Old panel"), used where it is`,
        ),
        preview.text,
      );
      assert.equal(
        ((await c.get("/api/servers")).body as ServerSummary[]).length,
        1,
        "a preview adds nothing",
      );
      const r = await c.post("/api/import/old-panel", { dir: old });
      assert.equal(r.status, 200, r.text);
      assert.ok(
        r.body.lines.includes(
          `  Factorio directory ${game.dir}: now server 2 ("Old panel"), used where it is; start it from its Controls`,
        ),
        r.text,
      );
      const servers = (await c.get("/api/servers")).body as ServerSummary[];
      assert.deepEqual(servers.map((s) => [s.id, s.name, s.dir]), [[1, "Server 1", p.factorio.dir], [
        2,
        "Old panel",
        game.dir,
      ]]);
      const saves = (await c.get("/api/servers/2/saves/list")).body as { name: string }[];
      assert.ok(saves.some((s) => s.name === "old-world.zip"), JSON.stringify(saves));
    } finally {
      rmSync(old, { recursive: true, force: true });
      rmSync(game.dir, { recursive: true, force: true });
    }
  }),
);
