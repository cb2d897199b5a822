// The VAPID key pair's life: made on first start (owner-only), kept across restarts, repaired when its
// file is unusable (and then the subscriptions bound to the old key are dropped).

import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { startPanel } from "../../tests/support/harness.ts";
import { pushPanel, subscribeDevice } from "../../tests/support/push.ts";
import { VAPID_FILE } from "./vapid.ts";
import { FakePushService } from "../../tests/fake-push/service.ts";

async function withDataDir(fn: (dir: string, fake: FakePushService) => Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), "panel-vapid-"));
  const fake = await FakePushService.start();
  try {
    await fn(dir, fake);
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

Deno.test("first start makes the key pair owner-only; restarts keep it and the devices", () =>
  withDataDir(async (dir, fake) => {
    const first = await startPanel(pushPanel({ dataDir: dir }));
    const file = join(dir, VAPID_FILE);
    assert.equal(statSync(file).mode & 0o777, 0o600);
    const stored = JSON.parse(Deno.readTextFileSync(file));
    const c = await first.login();
    assert.equal((await c.get("/api/push/key")).body.publicKey, stored.publicKey);
    await subscribeDevice(c, fake);
    await first.close({ keepData: true });

    const second = await startPanel(pushPanel({ dataDir: dir }));
    const c2 = await second.login();
    assert.equal((await c2.get("/api/push/key")).body.publicKey, stored.publicKey);
    assert.equal((await c2.get("/api/push/devices")).body.length, 1);
    assert.equal(JSON.parse(Deno.readTextFileSync(file)).privateKey, stored.privateKey);
    await second.close({ keepData: true });
  }));

Deno.test("a key file readable by others is made owner-only again", () =>
  withDataDir(async (dir) => {
    await (await startPanel(pushPanel({ dataDir: dir }))).close({ keepData: true });
    chmodSync(join(dir, VAPID_FILE), 0o644);
    const p = await startPanel(pushPanel({ dataDir: dir }));
    assert.equal(statSync(join(dir, VAPID_FILE)).mode & 0o777, 0o600);
    assert.match(Deno.readTextFileSync(join(dir, "panel.log")), /readable by others; made it owner-only/);
    await p.close({ keepData: true });
  }));

Deno.test("an unusable key file is kept aside, new keys are made, and the old devices are dropped", () =>
  withDataDir(async (dir, fake) => {
    const first = await startPanel(pushPanel({ dataDir: dir }));
    const oldKey = (await (await first.login()).get("/api/push/key")).body.publicKey;
    await subscribeDevice(await first.login(), fake);
    await first.close({ keepData: true });
    writeFileSync(join(dir, VAPID_FILE), '{"publicKey": "truncated', { mode: 0o600 });

    const p = await startPanel(pushPanel({ dataDir: dir }));
    const c = await p.login();
    const newKey = (await c.get("/api/push/key")).body.publicKey;
    assert.notEqual(newKey, oldKey);
    assert.deepEqual(
      (await c.get("/api/push/devices")).body,
      [],
      "subscriptions bound to the old key cannot work",
    );
    const aside = readdirSync(dir).filter((n) => n.startsWith(`${VAPID_FILE}.unusable-`));
    assert.equal(aside.length, 1);
    assert.equal(Deno.readTextFileSync(join(dir, aside[0])), '{"publicKey": "truncated');
    await p.close({ keepData: true });
  }));

Deno.test("a key file that cannot be read is left as it is: the panel does not start on new keys", () =>
  withDataDir(async (dir) => {
    await (await startPanel(pushPanel({ dataDir: dir }))).close({ keepData: true });
    const file = join(dir, VAPID_FILE);
    const keys = Deno.readTextFileSync(file);
    // A folder in its place: reading fails, as it would for a flood holding every open file or an I/O error.
    rmSync(file);
    mkdirSync(file);
    await assert.rejects(startPanel(pushPanel({ dataDir: dir })), /vapid-keys\.json could not be read/);
    assert.ok(statSync(file).isDirectory(), "left as it was");
    assert.deepEqual(readdirSync(dir).filter((n) => n.startsWith(`${VAPID_FILE}.unusable-`)), []);
    rmSync(file, { recursive: true });
    writeFileSync(file, keys, { mode: 0o600 });
    const p = await startPanel(pushPanel({ dataDir: dir }));
    assert.equal((await (await p.login()).get("/api/push/key")).body.publicKey, JSON.parse(keys).publicKey);
    await p.close({ keepData: true });
  }));
