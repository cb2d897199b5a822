// The double must be right about what it serves, or the panel's tests prove nothing: every release is a
// real mod zip whose info.json matches the release, and its advertised sha1 is true (except the one
// release that is wrong on purpose).

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readModZip } from "../../backend/factorio/mods/infojson.ts";
import { startFakePortal, USERS } from "./server.ts";

Deno.test("fake portal: releases are real mod zips matching their listing", async () => {
  const portal = await startFakePortal({ extraMods: 50 });
  const dir = mkdtempSync(join(tmpdir(), "fake-portal-"));
  try {
    const list = await (await fetch(`${portal.url}/api/mods?page_size=max`)).json();
    assert.equal(list.results.length, portal.mods.length + 50);
    for (const mod of portal.mods) {
      const full = await (await fetch(`${portal.url}/api/mods/${mod.name}/full`)).json();
      for (const r of full.releases) {
        const res = await fetch(
          `${portal.url}${r.download_url}?username=${USERS[0].username}&token=${USERS[0].token}`,
        );
        assert.equal(res.status, 200, r.download_url);
        const bytes = new Uint8Array(await res.arrayBuffer());
        const sha1 = createHash("sha1").update(bytes).digest("hex");
        assert.equal(sha1 === r.sha1, mod.name !== "fp-bad-sha", `${mod.name} ${r.version} sha1`);
        writeFileSync(join(dir, r.file_name), bytes);
        const info = await readModZip(join(dir, r.file_name));
        assert.equal(info.name, mod.name === "fp-wrong-name" ? "fp-impostor" : mod.name);
        assert.equal(info.version, r.version);
        assert.equal(info.factorio_version, r.info_json.factorio_version);
        assert.deepEqual(info.dependencies, r.info_json.dependencies);
      }
    }
    const refused = await fetch(
      `${portal.url}${`/download/belt-balancer/5fc1aca2bfe1b005c6943bf1`}?username=x&token=y`,
    );
    assert.equal(refused.status, 403);
    await refused.body?.cancel();
  } finally {
    await portal.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
