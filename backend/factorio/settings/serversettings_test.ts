import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ServerSettings } from "./serversettings.ts";
import { factorioPaths } from "../layout.ts";
import { gameRefused } from "../players/lists.ts";

Deno.test("a settings save that fails after the admin list changed puts the admin list back", async () => {
  const root = mkdtempSync(join(tmpdir(), "settings-"));
  try {
    const paths = factorioPaths({ factorioDir: root, factorioBinary: join(root, "bin/x64/factorio") });
    mkdirSync(paths.configDir, { recursive: true });
    writeFileSync(paths.serverSettings, JSON.stringify({ name: "Old name", max_players: 0 }, null, 2));
    let admins = ["alice"];
    const calls: string[][] = [];
    const settings = new ServerSettings(paths, {
      admins: () => admins,
      checkNames: () => {},
      setAdmins: (names) => {
        calls.push(names);
        admins = names;
        // The disk fails between the list change and the settings write (here: the file became a folder).
        if (calls.length === 1) {
          rmSync(paths.serverSettings);
          mkdirSync(paths.serverSettings);
        }
        return Promise.resolve();
      },
    });
    await assert.rejects(settings.update({ name: "New name", admins: ["alice", "bob"] }));
    assert.deepEqual(calls, [["alice", "bob"], ["alice"]], "the list was changed, then put back");
    assert.deepEqual(admins, ["alice"]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

Deno.test("the game's refusals of a player list change are told apart from its confirmations", () => {
  for (
    const refusal of ['Unknown command "promote".', "Player bob doesn't exist.", "You cannot ban an admin."]
  ) {
    assert.ok(gameRefused(refusal), refusal);
  }
  for (
    const ok of [
      "bob was promoted to admin by <server>.",
      "Added bob to the whitelist.",
      "bob is already in the whitelist.",
      "bob was banned by <server>. Reason: griefing.",
      "bob was unbanned by <server>.",
    ]
  ) {
    assert.ok(!gameRefused(ok), ok);
  }
});
