import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { startPanel } from "../testing/harness.ts";

Deno.test("the built app is served: files, index.html for app routes, 404 for missing files", async () => {
  const dist = mkdtempSync(join(tmpdir(), "dist-"));
  mkdirSync(join(dist, "assets"));
  writeFileSync(join(dist, "index.html"), "<!doctype html><title>panel</title>");
  writeFileSync(join(dist, "assets", "app-abc123.js"), "console.log(1)");
  writeFileSync(join(dist, "sw.js"), "self.x=1");
  writeFileSync(join(tmpdir(), "outside-secret.txt"), "secret");
  const p = await startPanel({ args: ["--static-dir", dist] });
  try {
    for (const path of ["/", "/login", "/mods", "/user-management", "/no/such/page"]) {
      const r = await fetch(p.url + path);
      assert.equal(r.status, 200, path);
      assert.match(await r.text(), /<title>panel<\/title>/);
      assert.equal(r.headers.get("Cache-Control"), "no-cache");
      assert.match(r.headers.get("Content-Security-Policy") ?? "", /frame-ancestors 'none'/);
    }
    const asset = await fetch(p.url + "/assets/app-abc123.js");
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get("Content-Type")!, /javascript/);
    assert.match(asset.headers.get("Cache-Control")!, /immutable/);
    await asset.body?.cancel();
    const sw = await fetch(p.url + "/sw.js");
    assert.equal(sw.headers.get("Cache-Control"), "no-cache", "a new service worker is picked up at once");
    await sw.body?.cancel();
    for (const path of ["/assets/missing.js", "/%2e%2e/outside-secret.txt", "/..%2foutside-secret.txt", "/%00.js"]) {
      const r = await fetch(p.url + path);
      assert.ok(r.status === 404 || r.status === 400, `${path}: ${r.status}`);
      assert.doesNotMatch(await r.text(), /secret/);
    }
  } finally {
    await p.close();
    rmSync(dist, { recursive: true, force: true });
    rmSync(join(tmpdir(), "outside-secret.txt"), { force: true });
  }
});

Deno.test("without a built app, app routes explain how to build it", async () => {
  const p = await startPanel({ args: ["--static-dir", join(tmpdir(), "definitely-not-built")] });
  try {
    const r = await fetch(p.url + "/");
    assert.equal(r.status, 503);
    assert.match(await r.text(), /npm start/);
  } finally {
    await p.close();
  }
});
