// A factorio-docker volume used as it is: the game installed elsewhere (/opt/factorio), the volume holding
// config/ (server-settings.json, rconpw, the three player lists), mods/ and saves/, and the game's
// config.ini pointing write-data at the volume. The panel starts and stops the game, its console uses the
// volume's rconpw, and the whitelist in the volume is enforced as factorio-docker enforced it.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFakeSave, installGame, startGame, startPanelWithGame } from "../../../tests/support/game.ts";
import { inspect } from "./liveness.ts";

Deno.test("a factorio-docker volume: start, console with its rconpw, its whitelist, stop", async () => {
  const game = await installGame("2.0", []);
  const volume = mkdtempSync(join(tmpdir(), "factorio-volume-"));
  try {
    for (const d of ["config", "mods", "saves", "scenarios"]) mkdirSync(join(volume, d), { recursive: true });
    // As factorio-docker's image does: the game's config.ini writes into the volume.
    const ini = join(game.dir, "config", "config.ini");
    writeFileSync(ini, readFileSync(ini, "utf8").replace(/^;?\s*write-data=.*$/m, `write-data=${volume}`));
    const rconpw = "pw15charsXYZabc"; // pwgen 15 1, as the image makes it
    writeFileSync(join(volume, "config", "rconpw"), rconpw + "\n");
    writeFileSync(join(volume, "config", "server-whitelist.json"), JSON.stringify(["alice"]));
    writeFileSync(join(volume, "config", "server-adminlist.json"), JSON.stringify(["bob"]));
    writeFileSync(join(volume, "config", "server-banlist.json"), "[]");
    writeFileSync(
      join(volume, "config", "server-settings.json"),
      readFileSync(join(game.dir, "data", "server-settings.example.json")),
    );
    await createFakeSave({ ...game, dir: volume }, "_autosave1.zip");

    const p = await startPanelWithGame({
      factorio: { ...game, dir: volume },
      args: ["--factorio-binary", game.binary],
    });
    try {
      const c = await p.login();
      const lists = await c.get("/api/players");
      assert.equal(lists.status, 200, lists.text);
      assert.deepEqual(lists.body.admins, ["bob"]);
      assert.deepEqual(lists.body.whitelist, ["alice"]);
      assert.equal(lists.body.use_whitelist, true, "factorio-docker enforces a whitelist file with names");

      await startGame(c, { savefile: "_autosave1.zip" });
      const pid = JSON.parse(readFileSync(join(p.dataDir, "game-process.json"), "utf8")).pid;
      const args = (await inspect(pid))!.args;
      assert.match(
        args,
        new RegExp(`--rcon-password ${rconpw}( |$)`),
        "the game got the volume's RCON password",
      );
      assert.match(args, /--use-server-whitelist true/);
      // The console works with it, and the whitelist holds.
      assert.match(await p.ctx.game.rcon("/fake-join carol"), /not whitelisted|whitelist/i);
      assert.doesNotMatch(await p.ctx.game.rcon("/fake-join alice"), /not whitelisted/i);
      assert.deepEqual(await p.ctx.players.online(), ["alice"]);

      const stop = await c.get("/api/server/stop");
      assert.equal(stop.status, 200, stop.text);
      // Nothing was moved out of the volume.
      assert.equal(readFileSync(join(volume, "config", "rconpw"), "utf8").trim(), rconpw);
    } finally {
      await p.close();
    }
  } finally {
    rmSync(volume, { recursive: true, force: true });
    rmSync(game.dir, { recursive: true, force: true });
  }
});
