import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { builtInMods, installFakeFactorio } from "./install.ts";

Deno.test("installs a directory laid out like the game's, per version", () => {
  for (const version of ["1.1", "2.0", "2.1"] as const) {
    const dir = mkdtempSync(join(tmpdir(), "fake-factorio-"));
    try {
      const f = installFakeFactorio(dir, version);
      assert.ok(statSync(f.binary).mode & 0o100, "executable");
      for (
        const p of [
          "config/config.ini",
          "data/server-settings.example.json",
          "saves",
          "mods",
          "data/core/info.json",
        ]
      ) {
        assert.ok(existsSync(join(dir, p)), p);
      }
      for (const mod of builtInMods(version)) {
        const info = JSON.parse(readFileSync(join(dir, "data", mod, "info.json"), "utf8"));
        assert.equal(info.name, mod);
        assert.equal(info.version, f.fullVersion);
        assert.equal(info.factorio_version, version);
      }
      const settings = JSON.parse(readFileSync(join(dir, "data/server-settings.example.json"), "utf8"));
      assert.equal(settings.allow_commands, "admins-only");
      assert.equal("auto_pause_when_players_connect" in settings, version !== "1.1");
      assert.equal(existsSync(join(dir, "data/recycler")), version === "2.1");
      assert.equal(existsSync(join(dir, "data/space-age")), version !== "1.1");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});
