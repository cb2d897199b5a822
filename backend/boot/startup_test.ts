import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { panelUrls, startupLines } from "./startup.ts";
import { panelCommand, ROOT } from "../../scripts/launcher.mjs";
import { startPanelProcess } from "../../tests/support/process.ts";
import { until } from "../../tests/support/until.ts";

const lan = [
  { family: "IPv4", address: "127.0.0.1", internal: true },
  { family: "IPv6", address: "fe80::1", internal: false },
  { family: "IPv4", address: "192.168.1.20", internal: false },
  { family: "IPv4", address: "10.0.0.5", internal: false },
];
const base = {
  scheme: "http" as const,
  bind: "0.0.0.0",
  port: 8080,
  interfaces: lan,
  factorioDir: "/opt/factorio",
  factorioBinary: "/opt/factorio/bin/x64/factorio",
  binaryFound: true,
};

Deno.test("bound to every address: localhost and each IPv4 LAN address, never loopback or link-local v6", () => {
  assert.deepEqual(panelUrls(base), {
    local: "http://localhost:8080",
    lan: ["http://192.168.1.20:8080", "http://10.0.0.5:8080"],
  });
});

Deno.test("bound to one address: only that one", () => {
  assert.deepEqual(panelUrls({ ...base, bind: "192.168.1.20" }), {
    local: "http://192.168.1.20:8080",
    lan: [],
  });
  assert.deepEqual(panelUrls({ ...base, bind: "::1" }), { local: "http://[::1]:8080", lan: [] });
});

Deno.test("plain HTTP says phones need HTTPS; HTTPS does not", () => {
  const http = startupLines(base).join("\n");
  assert.match(http, /On your network: http:\/\/192\.168\.1\.20:8080, http:\/\/10\.0\.0\.5:8080/);
  assert.match(http, /Phones need HTTPS/);
  assert.doesNotMatch(startupLines({ ...base, scheme: "https" }).join("\n"), /Phones need HTTPS/);
});

Deno.test("HTTPS set up: the domain's https:// address, a certificate still missing, and a port 80 it cannot have with the way to allow it", () => {
  const https = {
    names: ["panel.example.org", "*.example.org"],
    waiting: null,
    plainHttpPort: 80,
    plainHttpProblem: null,
  };
  const served = startupLines({ ...base, scheme: "https", port: 443, https }).join("\n");
  assert.match(served, /Over HTTPS as: https:\/\/panel\.example\.org$/m);
  assert.doesNotMatch(served, /\*\.example|No HTTPS certificate|Cannot listen/);
  assert.match(
    startupLines({ ...base, scheme: "https", port: 8443, https }).join("\n"),
    /https:\/\/panel\.example\.org:8443/,
  );
  const waiting = startupLines({
    ...base,
    https: {
      ...https,
      waiting: "the CA refused: connection refused",
      plainHttpProblem: "a port below 1024 needs the right to bind it",
    },
  }).join("\n");
  assert.match(
    waiting,
    /No HTTPS certificate yet \(the CA refused: connection refused\): plain HTTP until one comes; see Settings > HTTPS\./,
  );
  assert.match(
    waiting,
    /Cannot listen on port 80 \(--acme-http-port\): a port below 1024 needs the right to bind it\./,
  );
  assert.match(waiting, /sudo setcap cap_net_bind_service=\+ep \S+deno/);
  assert.doesNotMatch(waiting, /Over HTTPS as|Phones need HTTPS/);
});

Deno.test("a missing game names the directory and what to do", () => {
  assert.doesNotMatch(startupLines(base).join("\n"), /No Factorio/);
  const text = startupLines({ ...base, binaryFound: false }).join("\n");
  assert.match(
    text,
    /No Factorio found in \/opt\/factorio \(looked for \/opt\/factorio\/bin\/x64\/factorio\)/,
  );
  assert.match(text, /factorio\.com\/download/);
  assert.match(text, /--factorio-dir/);
});

// The real command (the launcher's deno command line, as npm start runs it) over a fresh data dir.
async function runPanel(args: string[]) {
  const panel = panelCommand(args);
  const out = await new Deno.Command(panel.cmd, {
    args: panel.args,
    cwd: ROOT,
    env: { NO_COLOR: "1", PANEL_ADMIN_PASSWORD: "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  return {
    code: out.code,
    text: new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr),
  };
}

Deno.test("a first start that cannot listen keeps the generated password: the next start prints it, until it is changed", async () => {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-first-"));
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const failed = await runPanel([
      "--port",
      String(taken.addr.port),
      "--bind",
      "127.0.0.1",
      "--data-dir",
      dataDir,
    ]);
    assert.equal(failed.code, 1, failed.text);
    assert.match(failed.text, /already in use/);
    const file = join(dataDir, "initial-admin-password");
    assert.match(failed.text, new RegExp(`generated password is in ${file.replaceAll(".", "\\.")}`));
    const password = readFileSync(file, "utf8").trim();
    assert.ok(password.length >= 16);

    // The next start prints it (and where the file is), and it signs in.
    let panel = await startPanelProcess({
      args: ["--port", "0", "--bind", "127.0.0.1", "--data-dir", dataDir],
      env: { PANEL_ADMIN_PASSWORD: "" },
    });
    try {
      await until("the password lines", () => panel.output().includes(`The password is also in ${file}`));
      assert.match(panel.output(), /The user admin still has the password generated at the first start/);
      assert.ok(panel.output().includes(`  Password: ${password}\n`), panel.output());
      const c = await panel.login("admin", password);
      const changed = await c.post("/api/user/password", {
        old_password: password,
        new_password: "a chosen password",
        new_password_confirmation: "a chosen password",
      });
      assert.equal(changed.status, 200, changed.text);
    } finally {
      assert.equal(await panel.stop(), 0);
    }
    // Changed: the file is gone and nothing is printed any more.
    assert.ok(!existsSync(file));
    panel = await startPanelProcess({
      args: ["--port", "0", "--bind", "127.0.0.1", "--data-dir", dataDir],
      env: { PANEL_ADMIN_PASSWORD: "" },
    });
    try {
      await panel.login("admin", "a chosen password");
      assert.doesNotMatch(panel.output(), /Password:|generated/);
    } finally {
      await panel.stop();
    }
  } finally {
    taken.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
