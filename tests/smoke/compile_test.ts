// `npm run compile`: one executable with the web app embedded. Where Deno's runtime (denort) can be
// downloaded, the executable is run and must serve the web app from inside itself; where it cannot (this
// machine), the script must say so in one clear line and fail.

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../backend/boot/config.ts";
import { ROOT } from "../../scripts/launcher.mjs";

Deno.test("the web app is found where --include puts it: <panel>/pwa/dist beside backend/", () => {
  const r = loadConfig([], {});
  assert.equal(r.kind, "config");
  if (r.kind === "config") assert.equal(r.config.staticDir, join(ROOT, "pwa", "dist"));
});

Deno.test("npm run compile: an executable serving the embedded web app, or one clear line why not", async () => {
  const dir = mkdtempSync(join(tmpdir(), "panel-compile-"));
  const output = join(dir, "factorio-panel");
  try {
    const r = await new Deno.Command("node", {
      args: ["scripts/compile.mjs", output],
      cwd: ROOT,
      stdout: "piped",
      stderr: "piped",
    })
      .output();
    const stderr = new TextDecoder().decode(r.stderr).trim();
    if (r.code !== 0) {
      const lines = stderr.split("\n");
      assert.equal(lines.length, 1, stderr);
      assert.match(
        lines[0],
        /^npm run compile: deno compile must download Deno's runtime \(denort\) from https:\/\/\S+denort\S+, and that download failed/,
      );
      assert.ok(!existsSync(output), "no half-written executable");
      console.log(
        "denort cannot be downloaded here: checked the one-line explanation instead of the executable",
      );
      return;
    }
    const panel = new Deno.Command(output, {
      args: ["--port", "0", "--bind", "127.0.0.1", "--data-dir", join(dir, "data")],
      env: { PANEL_ADMIN_PASSWORD: "compiled-password" },
      stdout: "piped",
      stderr: "null",
    }).spawn();
    try {
      const reader = panel.stdout.pipeThrough(new TextDecoderStream()).getReader();
      let out = "";
      let url: string | undefined;
      while (!url) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the executable exited:\n${out}`);
        out += value;
        url = /listening on (\S+)/.exec(out)?.[1];
      }
      const page = await fetch(url.replace("localhost", "127.0.0.1") + "/login");
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<div id="root">/);
      reader.releaseLock();
    } finally {
      panel.kill("SIGTERM");
      await panel.status;
      await panel.stdout.cancel().catch(() => {});
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
