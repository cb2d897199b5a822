// `npm run demo` reaches nothing outside the machine. Every outside address is sent to a local proxy that
// records what it is asked for (HTTP_PROXY/HTTPS_PROXY, which Deno's fetch follows; the machine's own
// addresses go direct), then what a demo user does that asks factorio.com or the mod portal is done: the
// Controls versions card, "Check for updates", the mod portal's list and its login. Each answer comes from
// the demo's local stand-ins, and the proxy saw nothing.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPanelProcess } from "../support/process.ts";
import { DEFAULT_RELEASES } from "../fake-factorio-com/server.ts";
import { VERSIONS } from "../fake-factorio/install.ts";
import type { VersionsAnswer } from "../../shared/factorio-versions.ts";

const PASSWORD = "demo-test-password";

/** A proxy that answers nothing: it keeps the first line of every request (CONNECT host:443 for https). */
function recordingProxy(): { url: string; asked: string[]; close: () => void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const asked: string[] = [];
  (async () => {
    for await (const conn of listener) {
      (async () => {
        const buf = new Uint8Array(4096);
        const n = await conn.read(buf).catch(() => null);
        if (n) asked.push(new TextDecoder().decode(buf.subarray(0, n)).split("\r\n")[0]);
        conn.close();
      })();
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`,
    asked,
    close: () => listener.close(),
  };
}

Deno.test("npm run demo: factorio.com and the mod portal are local stand-ins, and nothing goes outside", async () => {
  const dir = mkdtempSync(join(tmpdir(), "panel-demo-"));
  const proxy = recordingProxy();
  const demo = await startPanelProcess({
    viaNpm: true,
    npmScript: "demo",
    args: ["--port", "0"],
    env: {
      DEMO_DIR: dir,
      PANEL_ADMIN_PASSWORD: PASSWORD,
      PATH: Deno.env.get("PATH") ?? "",
      HOME: Deno.env.get("HOME") ?? "/root",
      HTTP_PROXY: proxy.url,
      HTTPS_PROXY: proxy.url,
      NO_PROXY: "127.0.0.1,localhost",
    },
    startTimeoutMs: 120_000,
  });
  try {
    const c = await demo.login("admin", PASSWORD);
    const versions = await c.get("/api/factorio/versions");
    const check = await c.post("/api/factorio/check");
    const mods = await c.get("/api/mods/portal/list");
    const login = await c.post("/api/mods/portal/login", {
      username: "engineer",
      password: "correct horse battery",
    });
    assert.deepEqual(proxy.asked, [], "nothing was asked of an address outside this machine");

    assert.equal(versions.status, 200, versions.text);
    const answer = versions.body as VersionsAnswer;
    assert.equal(answer.availableError, null);
    assert.deepEqual(
      answer.available.map((v) => v.version).sort(),
      DEFAULT_RELEASES.map((r) => r.version).sort(),
    );
    assert.equal(check.status, 200, check.text);
    const update = check.body as { current: string; latest: string };
    assert.deepEqual({ current: update.current, latest: update.latest }, {
      current: VERSIONS["2.0"].version,
      latest: "2.0.77",
    });
    assert.equal(mods.status, 200, mods.text);
    assert.ok((mods.body as { results: unknown[] }).results.length > 0, "the stand-in portal lists mods");
    assert.equal(login.status, 200, login.text);
    assert.match(demo.output(), /Nothing leaves this machine/);
  } finally {
    await demo.stop();
    proxy.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
