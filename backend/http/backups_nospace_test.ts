// A backup onto a full disk: the panel process (launched as `npm start` does) in a private mount
// namespace whose backups folder is a small tmpfs filled to the last byte. The answer names the backups
// folder, not "the panel's data", and no backup is listed.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canMount, signedInHeaders, spawnWrappedPanel } from "../../tests/support/wrapped.ts";
import { createFakeSave, installFakeFactorio } from "../../tests/fake-factorio/install.ts";
import { PANEL_MSG } from "../../shared/messages.ts";

Deno.test({
  name: "a backup onto a full backups disk answers 507 naming the backups folder, and lists nothing",
  ignore: !canMount(), // the machine allows no mount namespace: nothing to fill up safely
  fn: async () => {
    const game = installFakeFactorio(mkdtempSync(join(tmpdir(), "factorio-full-")), "2.0");
    await createFakeSave(game, "world.zip");
    const backups = mkdtempSync(join(tmpdir(), "backups-full-"));
    const shell = [
      `mount -t tmpfs -o size=2m tmpfs ${backups}`,
      `(dd if=/dev/zero of=${backups}/filler bs=4k 2>/dev/null || true)`,
    ].join(" && ");
    const panel = await spawnWrappedPanel({
      wrap: ["unshare", "-rm"],
      shell,
      args: ["--factorio-dir", game.dir, "--backups-dir", backups],
    });
    try {
      const headers = await signedInHeaders(panel);
      const r = await fetch(panel.url + "/api/backups", {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/json" },
        body: "{}",
      });
      assert.deepEqual([r.status, await r.json()], [
        507,
        PANEL_MSG.noSpace(`the backups folder (${backups})`),
      ]);
      const list = await (await fetch(panel.url + "/api/backups", { headers })).json();
      assert.deepEqual(list, [], "no backup is listed");
      assert.ok(panel.alive());
    } finally {
      await panel.stop();
      rmSync(backups, { recursive: true, force: true });
      rmSync(game.dir, { recursive: true, force: true });
    }
  },
});
