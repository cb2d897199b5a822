// A full disk: a real panel whose Factorio directory is a tiny tmpfs (mounted in a private mount namespace
// with `unshare -rm`, so no root is needed where user namespaces are allowed). Writes answer 507 naming
// the area, and leave nothing partial.

import assert from "node:assert/strict";
import { canMount, ROOT, signedInHeaders, spawnWrappedPanel } from "../../tests/support/wrapped.ts";
import { PANEL_MSG } from "../../shared/messages.ts";

Deno.test({
  name: "out of disk space: uploads and settings answer 507 naming the area, and nothing partial stays",
  ignore: !canMount(), // the machine allows no mount namespace: nothing to fill up safely
  fn: async () => {
    const dir = Deno.makeTempDirSync({ prefix: "panel-full-" });
    const example = `${ROOT}/tests/fake-factorio/data/server-settings.example.json`;
    // Mount 256 KiB, put the settings in place, then fill every free byte.
    const shell = [
      `mount -t tmpfs -o size=256k tmpfs ${dir}`,
      `mkdir -p ${dir}/saves ${dir}/mods ${dir}/config ${dir}/data`,
      `cp ${example} ${dir}/config/server-settings.json`,
      `(dd if=/dev/zero of=${dir}/filler bs=4k 2>/dev/null || true)`,
    ].join(" && ");
    const panel = await spawnWrappedPanel({ wrap: ["unshare", "-rm"], shell, args: ["--factorio-dir", dir] });
    try {
      const headers = await signedInHeaders(panel);
      const upload = async (path: string, field: string, name: string) => {
        const form = new FormData();
        form.append(field, new File([new Uint8Array(512 * 1024).fill(7)], name));
        const r = await fetch(panel.url + path, { method: "POST", headers, body: form });
        return [r.status, await r.json()];
      };
      assert.deepEqual(await upload("/api/saves/upload", "savefile", "big.zip"), [
        507,
        PANEL_MSG.noSpace("the saves"),
      ]);
      assert.deepEqual(await upload("/api/mods/upload", "mod_file", "big_1.0.0.zip"), [
        507,
        PANEL_MSG.noSpace("the mods"),
      ]);
      const settings = await fetch(panel.url + "/api/settings/update", {
        method: "POST",
        headers: { ...headers, "Content-Type": "application/json" },
        body: JSON.stringify({
          name: "A much longer server name ".repeat(20),
          description: "x".repeat(4000),
        }),
      });
      assert.deepEqual([settings.status, await settings.json()], [
        507,
        PANEL_MSG.noSpace("the server settings"),
      ]);
      // Nothing partial: the saves list is still empty and the old settings are whole.
      const list = await (await fetch(panel.url + "/api/saves/list", { headers })).json();
      assert.ok(!list.some((s: { name: string }) => s.name === "big.zip"));
      const now = await (await fetch(panel.url + "/api/settings", { headers })).json();
      assert.notEqual(now.name, "A much longer server name ".repeat(20));
      assert.ok(panel.alive());
    } finally {
      await panel.stop();
      Deno.removeSync(dir, { recursive: true });
    }
  },
});
