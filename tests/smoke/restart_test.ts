// What keeps `npm start` running, from well-known means: the launcher raises the open-file soft limit to
// the hard one before Deno starts, and npm start starts the panel again when it ends unexpectedly (here:
// out of open files under a flood of idle connections, where Deno's web server stops for good), with the
// game still running and found again and the sessions kept; not after a clean stop or a configuration
// error.

import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DENO, ROOT } from "../../scripts/launcher.mjs";
import { installGame } from "../support/game.ts";
import { freeTcpPort, freeUdpPort } from "../fake-factorio/sim.ts";
import { startPanelProcess } from "../support/process.ts";
import { spawnWrappedPanel } from "../support/wrapped.ts";
import { until } from "../support/until.ts";
import { isAlive } from "../../backend/factorio/game/liveness.ts";

const PASSWORD = "restart-test-password";

async function run(cmd: string, args: string[]): Promise<string> {
  return new TextDecoder().decode((await new Deno.Command(cmd, { args, stdout: "piped" }).output()).stdout);
}

/** The open-file limits (soft, hard) of a process, from /proc (read by `cat`: the test has the panel's permissions). */
async function openFileLimits(pid: number): Promise<[string, string]> {
  const line = (await run("cat", [`/proc/${pid}/limits`])).split("\n").find((l) =>
    l.startsWith("Max open files")
  );
  const [soft, hard] = line!.replace("Max open files", "").trim().split(/\s+/);
  return [soft, hard];
}

/** The pid of the Deno process running the panel below `root` (npm, then node, then sh, which execs Deno). */
async function panelPid(root: number): Promise<number | null> {
  const rows = (await run("ps", ["-eo", "pid=,ppid=,args="])).trim().split("\n").map((l) => {
    const [pid, ppid, ...args] = l.trim().split(/\s+/);
    return { pid: Number(pid), ppid: Number(ppid), args: args.join(" ") };
  });
  const family = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const r of rows) {
      if (!family.has(r.pid) && family.has(r.ppid)) grew = !!family.add(r.pid);
    }
  }
  return rows.find((r) => family.has(r.pid) && r.args.startsWith(`${DENO} run`))?.pid ?? null;
}

Deno.test("the launcher raises the panel's open-file soft limit to the hard limit", async () => {
  const panel = await spawnWrappedPanel({ shell: "ulimit -Sn 256" });
  try {
    const [soft, hard] = await openFileLimits(panel.pid);
    assert.equal(soft, hard);
    assert.notEqual(soft, "256");
  } finally {
    await panel.stop();
  }
});

Deno.test("npm start does not start the panel again after a configuration error", async () => {
  const out = await new Deno.Command("npm", {
    args: ["start", "--", "--port", "not-a-port"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 2, text);
  assert.match(text, /factorio-panel: Invalid value for --port/);
  assert.doesNotMatch(text, /starting it again/);
});

Deno.test("npm start starts the panel again when it runs out of open files; the game runs on; a SIGTERM ends it for good", async () => {
  const factorio = await installGame("2.0", ["world.zip"]);
  const dataDir = mkdtempSync(join(tmpdir(), "panel-restart-"));
  const port = await freeTcpPort();
  const args = [
    "--port",
    String(port),
    "--bind",
    "127.0.0.1",
    "--data-dir",
    dataDir,
    "--factorio-dir",
    factorio.dir,
  ];
  const env = {
    PANEL_ADMIN_PASSWORD: PASSWORD,
    PATH: Deno.env.get("PATH") ?? "",
    HOME: Deno.env.get("HOME") ?? "/root",
  };
  // A hard limit the launcher cannot raise: 300 idle connections are more than the panel's files.
  const panel = await startPanelProcess({
    args,
    env,
    viaNpm: true,
    shell: "ulimit -n 256",
    startTimeoutMs: 240_000,
  });
  let gamePid = 0;
  try {
    const c = await panel.login("admin", PASSWORD);
    const started = await c.post("/api/server/start", {
      bindip: "127.0.0.1",
      port: await freeUdpPort(),
      savefile: "world.zip",
    });
    assert.equal(started.status, 200, started.text);
    gamePid = JSON.parse(readFileSync(join(dataDir, "game-process.json"), "utf8")).pid;
    const first = await panelPid(panel.pid);
    assert.ok(first, "the panel's process");

    const flood: Deno.Conn[] = [];
    try {
      for (let i = 0; i < 300; i++) {
        try {
          flood.push(await Deno.connect({ hostname: "127.0.0.1", port }));
        } catch {
          break; // nothing listens any more: the panel has ended
        }
      }
      await until(
        "the panel to end and be started again",
        () => /starting it again in 1 s/.test(panel.output()),
        60_000,
      );
    } finally {
      for (const conn of flood) conn.close();
    }
    // Answers again, as the same panel to the same browser: the session is kept, the game is the same.
    const status = await until("an answer after the restart", async () => {
      try {
        const r = await c.get("/api/server/status");
        return r.status === 200 ? r.body : null;
      } catch {
        return null;
      }
    }, 60_000);
    assert.equal(status.status, "running", panel.output());
    assert.ok(await isAlive(gamePid, null), "the game kept running");
    assert.equal(
      JSON.parse(readFileSync(join(dataDir, "game-process.json"), "utf8")).pid,
      gamePid,
      "found again",
    );
    const second = await panelPid(panel.pid);
    assert.ok(second && second !== first, "a new panel process");
    assert.match(
      panel.output(),
      /The web server stopped \(.*(Too many open files|os error 24).*\); the panel ends, to be started again/,
    );

    // A SIGTERM to the panel itself is a clean stop: npm start ends with it.
    Deno.kill(second!, "SIGTERM");
    assert.equal(await panel.exit, 0, panel.output());
    assert.equal(panel.output().match(/starting it again/g)?.length, 1, panel.output());
    assert.ok(await isAlive(gamePid, null), "stopping the panel leaves the game running");
  } finally {
    if (gamePid) Deno.kill(gamePid, "SIGKILL");
    await panel.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(factorio.dir, { recursive: true, force: true });
  }
});
