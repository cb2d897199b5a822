// Whole operations: a change that needs the game stopped holds the game directory until it is done, not
// only when its request arrives. Before, a slow mod upload that finished after the game had started
// rewrote mods/ and mod-list.json under the running game.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startGame, withGamePanel } from "../../../tests/support/game.ts";
import { freeUdpPort } from "../../../tests/fake-factorio/sim.ts";
import { buildModZip } from "../../../tests/fake-portal/catalog.ts";
import { GameDirLease } from "./lease.ts";
import type { ServerState } from "../../../shared/api.ts";

/** A multipart body whose file arrives in two halves; the second only when `release()` is called. */
function gatedUpload(field: string, filename: string, bytes: Uint8Array) {
  const boundary = "----lease-test-boundary";
  const enc = new TextEncoder();
  const head = enc.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\n` +
      "Content-Type: application/zip\r\n\r\n",
  );
  const tail = enc.encode(`\r\n--${boundary}--\r\n`);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  let firstSent!: () => void;
  const started = new Promise<void>((r) => (firstSent = r));
  const half = Math.floor(bytes.length / 2);
  const body = new ReadableStream<Uint8Array>({
    async start(ctrl) {
      ctrl.enqueue(head);
      ctrl.enqueue(bytes.subarray(0, half));
      firstSent();
      await gate;
      ctrl.enqueue(bytes.subarray(half));
      ctrl.enqueue(tail);
      ctrl.close();
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}`, release, started };
}

Deno.test(
  "a slow mod upload holds the game directory: the game does not start until it is done",
  withGamePanel(async (p) => {
    const c = await p.login();
    const zip = await buildModZip({ name: "fp-slow", version: "1.0.0", factorio_version: "2.0" });
    const upload = gatedUpload("mod_file", "fp-slow_1.0.0.zip", zip);
    const answer = fetch(`${p.url}/api/mods/upload`, {
      method: "POST",
      headers: { Origin: p.origin, Cookie: c.cookie!, "Content-Type": upload.contentType },
      body: upload.body,
    });
    await upload.started;
    // Wait until the upload's request holds the directory.
    for (let i = 0; i < 500 && !p.ctx.game.lease.busyWith(); i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(p.ctx.game.lease.busyWith(), "a mod upload");

    const port = await freeUdpPort();
    const start = await c.post("/api/server/start", { bindip: "127.0.0.1", port, savefile: "world.zip" });
    assert.equal(start.status, 409);
    assert.equal(
      start.body,
      "The server cannot start while a mod upload is under way; try again when it is done.",
    );
    assert.equal(p.ctx.game.status().status, "stopped");

    upload.release();
    const done = await answer;
    assert.equal(done.status, 200, await done.text());
    assert.ok(existsSync(join(p.factorio.dir, "mods", "fp-slow_1.0.0.zip")));
    assert.equal(p.ctx.game.lease.busyWith(), null);
    await startGame(c, { savefile: "world.zip" });

    // And the other way round: with the game running, a change to mods is refused before it touches anything.
    const modList = readFileSync(join(p.factorio.dir, "mods", "mod-list.json"), "utf8");
    const refused = await c.post("/api/mods/toggle", { modName: "fp-slow" });
    assert.equal(refused.status, 423);
    assert.equal(readFileSync(join(p.factorio.dir, "mods", "mod-list.json"), "utf8"), modList);
  }),
);

Deno.test("the lease: changes run side by side; a start waits for none and is refused while any runs", async () => {
  let state: ServerState = "stopped";
  const lease = new GameDirLease(() => state);
  let finishA!: () => void;
  let finishB!: () => void;
  const a = lease.whileStopped("a mod install", () => new Promise<void>((r) => (finishA = r)));
  const b = lease.whileStopped("creating a save", () => new Promise<void>((r) => (finishB = r)));
  await new Promise((r) => setTimeout(r, 0));
  assert.equal(lease.busyWith(), "a mod install, creating a save");
  await assert.rejects(
    lease.launching(async () => {}),
    /cannot start while a mod install, creating a save is under way/,
  );
  finishA();
  await a;
  assert.equal(lease.busyWith(), "creating a save");
  finishB();
  await b;
  // While a start is launching, no change is granted; once the game runs, the state refuses them.
  let launched!: () => void;
  const launching = lease.launching(() => new Promise<void>((r) => (launched = r)));
  await assert.rejects(
    lease.whileStopped("deleting a mod", async () => {}),
    (e: Error & { status?: number }) => e.status === 423,
  );
  state = "running";
  launched();
  await launching;
  await assert.rejects(
    lease.whileStopped("deleting a mod", async () => {}),
    (e: Error & { status?: number }) => e.status === 423,
  );
});
