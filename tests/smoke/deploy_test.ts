// The deployment files in the repository: the compose file parses and runs the panel with its data in one
// volume, every PANEL_* setting it gives is one the panel knows and accepts, the systemd unit passes
// `systemd-analyze verify` (where systemd is installed), and the README shows deploy/Caddyfile as it is
// (tests/e2e/proxy.spec.ts runs that file). The Dockerfile: docker_test.ts.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { loadConfig } from "../../backend/boot/config.ts";
import { ROOT } from "../../scripts/launcher.mjs";

const read = (path: string) => readFileSync(join(ROOT, path), "utf8");

/** The PANEL_* variables a deployment file sets, checked by the panel's own configuration loader. */
function acceptedByThePanel(env: Record<string, string>): void {
  assert.equal(loadConfig([], env).kind, "config");
}

Deno.test("compose.yaml: one service, the game's UDP port, all data in one volume, known settings", () => {
  const compose = parse(read("compose.yaml"));
  const service = compose.services["factorio-panel"];
  assert.ok(service, "the factorio-panel service");
  assert.equal(service.build, ".");
  assert.ok(service.ports.includes("34197:34197/udp"));
  assert.ok(service.ports.includes("8080:8080/tcp"));
  assert.deepEqual(service.volumes, ["factorio-panel-data:/data"]);
  assert.ok("factorio-panel-data" in compose.volumes);
  assert.ok(service.stop_grace_period, "time for the game to save when the container stops");
  assert.equal(service.restart, "unless-stopped", "started again if the panel ever exits");
  const env = Object.fromEntries(Object.entries(service.environment ?? {}).map(([k, v]) => [k, String(v)]));
  for (const key of Object.keys(env)) assert.match(key, /^PANEL_/);
  acceptedByThePanel(env);
});

Deno.test("the systemd unit passes systemd-analyze verify and runs the launcher, not npm", async () => {
  const unit = read("deploy/factorio-panel.service");
  assert.match(unit, /^ExecStart=\/usr\/bin\/node scripts\/start\.mjs$/m);
  assert.match(unit, /^KillMode=process$/m, "stopping the panel leaves the game running");
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("systemd-analyze", {
      args: ["verify", join(ROOT, "deploy", "factorio-panel.service")],
      stderr: "piped",
      stdout: "piped",
    }).output();
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      console.log("systemd-analyze is not installed: the unit file was checked by its text only");
      return;
    }
    throw e;
  }
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
});

Deno.test("the README shows deploy/Caddyfile as it is, from its first setting on", () => {
  const file = read("deploy/Caddyfile");
  const shown = /^```caddy\n([\s\S]*?)^```$/m.exec(read("README.md"));
  assert.ok(shown, "the README's caddy block");
  assert.equal(shown[1], file.slice(file.indexOf("\n{\n") + 1));
});
