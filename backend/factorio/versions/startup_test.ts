// What start-up prints about the game, with the panel as `npm start` runs it (the launcher's command line)
// and the fake factorio.com: without a game it points at the built-in installer; once the panel installed
// one (under <factorio-dir>/versions, not <factorio-dir>/bin), the next start finds it and says nothing.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { startPanelProcess } from "../../../tests/support/process.ts";
import { startFakeFactorioCom } from "../../../tests/fake-factorio-com/server.ts";
import { TARBALL_CACHE } from "../../../tests/support/versions.ts";
import { until } from "../../../tests/support/until.ts";
import type { VersionsAnswer } from "../../../shared/factorio-versions.ts";

Deno.test("start-up: no game points at the built-in installer; a game the panel installed is found at the next start", async () => {
  const fake = startFakeFactorioCom({ cacheDir: TARBALL_CACHE });
  const factorioDir = mkdtempSync(join(tmpdir(), "panel-startup-game-"));
  const dataDir = mkdtempSync(join(tmpdir(), "panel-startup-data-"));
  const args = [
    "--port",
    "0",
    "--bind",
    "127.0.0.1",
    "--data-dir",
    dataDir,
    "--factorio-dir",
    factorioDir,
    "--factorio-com-url",
    fake.url,
  ];
  const env = { PANEL_ADMIN_PASSWORD: "startup-test-password" };
  try {
    const first = await startPanelProcess({ args, env });
    try {
      // The note's last line is the demo's.
      const said = await until(
        "the start-up lines",
        () => first.output().includes("npm run demo") && first.output(),
      );
      assert.match(said, new RegExp(`No Factorio found in ${factorioDir}`));
      // The panel's own installer is named first, then the other ways.
      assert.match(said, /Controls, Install Factorio/);
      const c = await first.login("admin", "startup-test-password");
      const r = await c.post("/api/factorio/install", { version: "2.0.77" });
      assert.equal(r.status, 202, r.text);
      const done = await until("the install", async () => {
        const v = (await c.get("/api/factorio/versions")).body as VersionsAnswer;
        return ["done", "failed", "cancelled"].includes(v.install?.phase ?? "") && v;
      }, 120_000);
      assert.equal(done.install?.phase, "done", done.install?.message ?? "");
      assert.equal(done.gameFound, true);
    } finally {
      await first.stop();
    }
    const second = await startPanelProcess({ args, env });
    try {
      await until("the start-up lines", () => second.output().includes("listening on"));
      const c = await second.login("admin", "startup-test-password");
      assert.equal(((await c.get("/api/factorio/versions")).body as VersionsAnswer).gameFound, true);
      assert.doesNotMatch(second.output(), /No Factorio found/);
    } finally {
      await second.stop();
    }
  } finally {
    await fake.close();
    rmSync(factorioDir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
});
