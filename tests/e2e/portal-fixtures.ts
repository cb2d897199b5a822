// E2E fixtures for the Mods page: the fake mod portal as its own process (tests/fake-portal/main.ts), a
// simulated Factorio directory, and the panel pointed at both.

// deno-lint-ignore-file react-rules-of-hooks no-empty-pattern -- Playwright fixtures (see fixtures.ts)
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DENO, PANEL_PERMISSIONS } from "../../scripts/launcher.mjs";
import { type PanelProcess, ROOT, startPanelProcess, test as base } from "./fixtures.ts";

export { expect, openSignedIn } from "./fixtures.ts";

/** The account the fake auth server knows (tests/fake-portal/server.ts USERS). */
export const PORTAL_USER = { username: "engineer", password: "correct horse battery" };

export interface FakePortalProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startFakePortalProcess(extraMods = 0): Promise<FakePortalProcess> {
  const child = spawn(DENO, [
    "run",
    ...PANEL_PERMISSIONS,
    "tests/fake-portal/main.ts",
    "--extra-mods",
    String(extraMods),
  ], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stderr!.on("data", (d) => (out += d));
  const url = await new Promise<string>((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`fake portal did not start:\n${out}`)), 60_000);
    child.stdout!.on("data", (d) => {
      out += d;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) {
        clearTimeout(timer);
        ok(JSON.parse(line).url);
      }
    });
    child.on("exit", (code) => fail(new Error(`fake portal exited with ${code}:\n${out}`)));
  });
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Lays out a simulated Factorio of `version` in a new temp dir. */
export function installFactorio(version: "1.1" | "2.0" | "2.1" = "2.0"): string {
  const dir = mkdtempSync(join(tmpdir(), "e2e-factorio-"));
  const r = spawnSync(DENO, ["run", ...PANEL_PERMISSIONS, "tests/fake-factorio/install.ts", dir, version], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`installing the simulator failed: ${r.stderr}`);
  return dir;
}

export const test = base.extend<{ fakePortal: FakePortalProcess; factorioDir: string }>({
  fakePortal: async ({}, use) => {
    const portal = await startFakePortalProcess();
    await use(portal);
    await portal.stop();
  },
  factorioDir: async ({}, use) => {
    const dir = installFactorio("2.0");
    await use(dir);
    rmSync(dir, { recursive: true, force: true });
  },
  panel: async ({ fakePortal, factorioDir }, use) => {
    const panel: PanelProcess = await startPanelProcess({
      args: ["--factorio-dir", factorioDir, "--mod-portal-url", fakePortal.url, "--auth-url", fakePortal.url],
    });
    await use(panel);
    await panel.stop();
  },
});
