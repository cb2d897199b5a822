// The native ARM64 headless build (Factorio 2.1 and later: a linux-arm64 archive with its own sha256 line
// and bin/arm64 inside), against the fake factorio.com. The host's architecture comes from Deno.build.arch
// unless --factorio-arch names it, which is how these tests stand on an arm64 host.

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { installOutcome, withVersionsPanel } from "../../tests/support/versions.ts";
import { freeUdpPort, installGame, killGame, waitForStatus } from "../../tests/support/game.ts";
import { startPanel } from "../../tests/support/harness.ts";
import { loadConfig } from "../boot/config.ts";
import { installFakeFactorio } from "../../tests/fake-factorio/install.ts";
import type { VersionsAnswer } from "../../shared/factorio-versions.ts";

const ARM64 = { args: ["--factorio-arch", "arm64"] };

async function install(v: Parameters<Parameters<typeof withVersionsPanel>[0]>[0], version: string) {
  const c = await v.panel.login();
  const outcome = installOutcome(v.panel.ctx.bus);
  const r = await c.post("/api/factorio/install", { version });
  assert.equal(r.status, 202, r.text);
  return { c, done: await outcome };
}

const downloads = (v: Parameters<Parameters<typeof withVersionsPanel>[0]>[0]) =>
  v.fake.requests.filter((r) => r.path.startsWith("/get-download/")).map((r) => r.path);

Deno.test(
  "on an arm64 host, 2.1 installs from the linux-arm64 archive, verified, and runs from bin/arm64",
  withVersionsPanel(async (v) => {
    const { c, done } = await install(v, "2.1.12");
    assert.equal(done.phase, "done", done.message);
    assert.deepEqual(downloads(v), ["/get-download/2.1.12/headless/linux-arm64"]);
    const dir = join(v.factorioDir, "versions", "2.1.12");
    assert.ok(existsSync(join(dir, "bin", "arm64", "factorio")));
    assert.ok(!existsSync(join(dir, "bin", "x64")));
    const after = (await c.get("/api/factorio/versions")).body as VersionsAnswer;
    assert.equal(after.gameFound, true);
    assert.deepEqual(after.installed, [{ version: "2.1.12", active: true, managed: true }]);
    assert.deepEqual((await c.get("/api/server/facVersion")).body, {
      version: "2.1.12.0",
      base_mod_version: "2.1.12",
    });
    // The ARM64 game makes the save and hosts it.
    assert.equal((await c.get("/api/saves/create/first")).status, 200);
    const again = await c.post("/api/server/start", {
      bindip: "127.0.0.1",
      port: await freeUdpPort(),
      savefile: "first.zip",
    });
    assert.equal(again.status, 200, again.text);
    assert.match(v.panel.ctx.game.recentLines().join("\n"), /versions\/2\.1\.12\/bin\/arm64\/factorio/);
    assert.equal((await c.get("/api/server/stop")).status, 200);
  }, ARM64),
);

Deno.test(
  "on an arm64 host the arm64 archive is checked against its own sha256 line",
  withVersionsPanel(async (v) => {
    v.fake.setMode("2.1.12", "wrong-checksum");
    const { c, done } = await install(v, "2.1.12");
    assert.equal(done.phase, "failed");
    assert.match(done.message, /does not match factorio\.com's checksum/);
    assert.equal(((await c.get("/api/factorio/versions")).body as VersionsAnswer).gameFound, false);
    assert.ok(!existsSync(join(v.factorioDir, "versions", "2.1.12")));
  }, ARM64),
);

Deno.test(
  "on an arm64 host, a version without an arm64 build gets the x64 one",
  withVersionsPanel(async (v) => {
    const { done } = await install(v, "2.0.77");
    assert.equal(done.phase, "done", done.message);
    assert.deepEqual(downloads(v), ["/get-download/2.0.77/headless/linux64"]);
    assert.ok(existsSync(join(v.factorioDir, "versions", "2.0.77", "bin", "x64", "factorio")));
  }, ARM64),
);

Deno.test(
  "an x64 host keeps the linux64 archive for 2.1",
  withVersionsPanel(async (v) => {
    const { done } = await install(v, "2.1.12");
    assert.equal(done.phase, "done", done.message);
    assert.deepEqual(downloads(v), ["/get-download/2.1.12/headless/linux64"]);
    assert.ok(existsSync(join(v.factorioDir, "versions", "2.1.12", "bin", "x64", "factorio")));
  }, { args: ["--factorio-arch", "x64"] }),
);

Deno.test("--factorio-arch takes x64 or arm64 only, and defaults to this machine's", () => {
  assert.throws(
    () => loadConfig(["--factorio-arch", "riscv"], {}),
    /--factorio-arch .*: "riscv" is not x64 or arm64/,
  );
  const config = loadConfig([], {});
  assert.equal(
    config.kind === "config" && config.config.factorioArch,
    Deno.build.arch === "aarch64" ? "arm64" : "x64",
  );
});

Deno.test("an ARM64 build unpacked by hand in --factorio-dir is found and started", async () => {
  const dir = mkdtempSync(join(tmpdir(), "panel-arm64-hand-"));
  const seed = await installGame("2.1", ["world.zip"]);
  const game = installFakeFactorio(dir, "2.1", { arch: "arm64" });
  Deno.renameSync(join(seed.dir, "saves", "world.zip"), join(dir, "saves", "world.zip"));
  rmSync(seed.dir, { recursive: true, force: true });
  assert.equal(game.binary, join(dir, "bin", "arm64", "factorio"));
  const p = await startPanel({ args: ["--factorio-dir", dir] });
  try {
    const c = await p.login();
    const status = (await c.get("/api/server/status")).body;
    assert.equal(status.factorio_found, true, status.problems.join());
    const r = await c.post("/api/server/start", {
      bindip: "127.0.0.1",
      port: await freeUdpPort(),
      savefile: "world.zip",
    });
    assert.equal(r.status, 200, r.text);
    await waitForStatus(p.ctx, "running");
  } finally {
    await killGame(p.ctx);
    await p.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
