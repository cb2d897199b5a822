// The panel where `ps` cannot say when a process started: not installed (a minimal container), or
// BusyBox's, which refuses procps's options. The panel then checks only that the game's pid exists: a
// running game is still found after a panel restart and stopped from the panel, and the log says once
// why the check is weaker. Both panels run as npm start runs them (the launcher's permissions).

import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installGame } from "../../../tests/support/game.ts";
import { freeUdpPort } from "../../../tests/fake-factorio/sim.ts";
import { type PanelProcess, startPanelProcess } from "../../../tests/support/process.ts";
import { exists } from "./liveness.ts";
import { DENO, PANEL_PERMISSIONS } from "../../../scripts/launcher.mjs";

const PASSWORD = "nops-test-password";

/** A PATH with every command of /usr/bin but ps. */
function pathWithoutPs(dir: string): string {
  for (const name of readdirSync("/usr/bin")) {
    if (name !== "ps") symlinkSync(join("/usr/bin", name), join(dir, name));
  }
  return dir;
}

/** A PATH whose ps answers as BusyBox's does to procps's options, ahead of everything else. */
function pathWithBusyboxPs(dir: string): string {
  writeFileSync(
    join(dir, "ps"),
    '#!/bin/sh\necho "ps: unrecognized option: p" >&2\necho "BusyBox v1.36.1 multi-call binary." >&2\nexit 1\n',
    { mode: 0o755 },
  );
  return `${dir}:/usr/local/bin:/usr/bin:/bin`;
}

for (
  const [name, makePath, warning] of [
    ["ps not installed", pathWithoutPs, /`ps` \(procps\) is not installed/],
    ["BusyBox ps", pathWithBusyboxPs, /`ps` here cannot tell when a process started/],
  ] as const
) {
  Deno.test(`${name}: a running game is found again after a panel restart and stopped from the panel`, async () => {
    const factorio = await installGame("2.0", ["world.zip"]);
    const dataDir = mkdtempSync(join(tmpdir(), "panel-nops-"));
    const bin = mkdtempSync(join(tmpdir(), "panel-nops-bin-"));
    const env = { PANEL_ADMIN_PASSWORD: PASSWORD, PATH: makePath(bin) };
    const args = [
      "--port",
      "0",
      "--bind",
      "127.0.0.1",
      "--data-dir",
      dataDir,
      "--factorio-dir",
      factorio.dir,
    ];
    let panel: PanelProcess | null = await startPanelProcess({ args, env });
    let pid = 0;
    try {
      let c = await panel.login("admin", PASSWORD);
      const start = { bindip: "127.0.0.1", port: await freeUdpPort(), savefile: "world.zip" };
      const started = await c.post("/api/server/start", start);
      assert.equal(started.status, 200, started.text);
      pid = JSON.parse(readFileSync(join(dataDir, "game-process.json"), "utf8")).pid;
      assert.equal((await c.get("/api/server/status")).body.status, "running");

      // The panel restarts; the game keeps running and is found again by its pid.
      await panel.stop();
      const first = panel.output();
      panel = null;
      assert.ok(await exists(pid), "the game outlives the panel");
      panel = await startPanelProcess({ args, env });
      c = await panel.login("admin", PASSWORD);
      const s = (await c.get("/api/server/status")).body;
      assert.equal(s.status, "running", panel.output());
      assert.notEqual(s.last_exit?.reason, "crashed");

      const stopped = await c.get("/api/server/stop");
      assert.equal(stopped.status, 200, stopped.text);
      assert.equal((await c.get("/api/server/status")).body.status, "stopped");
      assert.ok(!await exists(pid), "the game is gone when Save & Stop answers");
      for (const output of [first, panel.output()]) {
        assert.equal(
          output.match(new RegExp(warning.source, "g"))?.length,
          1,
          `said once per panel:\n${output}`,
        );
      }
    } finally {
      if (pid && await exists(pid)) Deno.kill(pid, "SIGKILL");
      await panel?.stop();
      for (const dir of [dataDir, bin, factorio.dir]) rmSync(dir, { recursive: true, force: true });
    }
  });
}

Deno.test("several looks under way when ps first fails: said once, and each falls back to existence", async () => {
  const bin = mkdtempSync(join(tmpdir(), "panel-nops-bin-"));
  const script = join(bin, "looks.ts");
  writeFileSync(
    script,
    `import { isAlive, onPsUnusable } from ${JSON.stringify(new URL("./liveness.ts", import.meta.url).href)};
const said: string[] = [];
onPsUnusable((t) => said.push(t));
const alive = await Promise.all([isAlive(Deno.pid, 1), isAlive(Deno.pid, 2), isAlive(Deno.pid, null), isAlive(2 ** 22 + 1, 3)]);
console.log(JSON.stringify({ said, alive }));
`,
  );
  try {
    const out = await new Deno.Command(DENO, {
      args: ["run", ...PANEL_PERMISSIONS, "--no-prompt", script],
      env: { PATH: pathWithBusyboxPs(bin) },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const { said, alive } = JSON.parse(text);
    assert.equal(said.length, 1, text);
    assert.match(
      said[0],
      /`ps` here cannot tell when a process started \(it answered "ps: unrecognized option: p"/,
    );
    assert.deepEqual(alive, [true, true, true, false]);
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});
