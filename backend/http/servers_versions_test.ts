// Game versions with several servers: a version is downloaded once and shared; each server has its own
// active version, runs it writing into its own directory, and a version another server runs is never
// deleted or pruned.

import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { installOutcome, withVersionsPanel } from "../../tests/support/versions.ts";
import { freeTcpPort, freeUdpPort } from "../../tests/support/game.ts";
import type { Client } from "../../tests/support/harness.ts";
import type { VersionsAnswer } from "../../shared/factorio-versions.ts";
import type { ServerSummary } from "../../shared/contract/servers.ts";
import { LOAD_LATEST } from "../../shared/api.ts";

async function install(
  c: Client,
  bus: Parameters<typeof installOutcome>[0],
  version: string,
  prefix = "/api",
) {
  const outcome = installOutcome(bus);
  const r = await c.post(`${prefix}/factorio/install`, { version });
  assert.equal(r.status, 202, r.text);
  const done = await outcome;
  assert.equal(done.phase, "done", done.message);
}

async function waitState(c: Client, prefix: string, state: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (((await c.get(`${prefix}/server/status`)).body as { status: string }).status === state) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${prefix} did not get ${state}`);
}

Deno.test(
  "versions are shared downloads; each server runs its own active version in its own directory",
  withVersionsPanel(async (v) => {
    const c = await v.panel.login();
    await install(c, v.panel.ctx.bus, "2.0.76");
    await install(c, v.panel.ctx.bus, "2.0.77");
    // Server 1 runs the first version installed; server 2 is made on the other one.
    const made = await c.post("/api/servers", {
      name: "Older",
      version: "2.0.77",
      rcon_port: await freeTcpPort(),
    });
    assert.equal(made.status, 201, made.text);
    const id = (made.body as { id: number }).id;
    const prefix = `/api/servers/${id}`;
    const list = (await c.get("/api/servers")).body as ServerSummary[];
    assert.deepEqual(list.map((s) => s.version), ["2.0.76", "2.0.77"]);
    const two = (await c.get(`${prefix}/factorio/versions`)).body as VersionsAnswer;
    assert.deepEqual(two.installed.filter((i) => i.active).map((i) => i.version), ["2.0.77"]);
    // One download each, in the first server's versions folder only.
    assert.deepEqual(readdirSync(join(v.factorioDir, "versions")).filter((n) => /^\d/.test(n)).sort(), [
      "2.0.76",
      "2.0.77",
    ]);
    const root = list[1].dir;
    assert.ok(!existsSync(join(root, "versions", "2.0.77")), "no copy of the game in server 2's directory");

    // Server 2's game is the shared 2.0.77, and it writes in server 2's directory.
    const created = await c.get(`${prefix}/saves/create/moon.zip`);
    assert.equal(created.status, 200, created.text);
    assert.ok(existsSync(join(root, "saves", "moon.zip")));
    assert.ok(!existsSync(join(v.factorioDir, "saves", "moon.zip")));
    const port = await freeUdpPort();
    const start = await c.post(`${prefix}/server/start`, {
      bindip: "127.0.0.1",
      port,
      savefile: LOAD_LATEST,
    });
    assert.equal(start.status, 200, start.text);
    const status = (await c.get(`${prefix}/server/status`)).body as { fac_version: string };
    assert.equal(status.fac_version, "2.0.77.0");

    // The version server 2 runs cannot be deleted from server 1.
    const del = await c.request("DELETE", "/api/factorio/versions/2.0.77");
    assert.equal(del.status, 409);
    assert.match(del.body as string, /Older/);
    assert.equal((await c.get(`${prefix}/server/stop`)).status, 200);
    await waitState(c, prefix, "stopped");
  }),
);
