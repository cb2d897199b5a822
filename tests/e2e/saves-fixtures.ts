// E2E fixtures for the saves area: each test's panel runs over its own simulated Factorio 2.0 install, and
// any game the test started is killed afterwards (the game runs detached from the panel by design).

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeFactorio, installFakeFactorio } from "../fake-factorio/install.ts";
import { startPanelProcess, test as base } from "./fixtures.ts";

export { expect, openSignedIn, signIn } from "./fixtures.ts";

function killRecordedGame(dataDir: string): void {
  try {
    const { pid } = JSON.parse(readFileSync(join(dataDir, "game-process.json"), "utf8"));
    process.kill(pid, "SIGKILL");
  } catch {
    // no game was started, or it is gone already
  }
}

export const test = base.extend<{ game: FakeFactorio; scratch: string }>({
  game: async ({}, use) => {
    const dir = mkdtempSync(join(tmpdir(), "factorio-e2e-"));
    await use(installFakeFactorio(dir, "2.0"));
    rmSync(dir, { recursive: true, force: true });
  },
  /** A temp dir for files the test makes (uploads, downloads). */
  scratch: async ({}, use) => {
    const dir = mkdtempSync(join(tmpdir(), "saves-e2e-"));
    await use(dir);
    rmSync(dir, { recursive: true, force: true });
  },
  panel: async ({ game }, use) => {
    const panel = await startPanelProcess({ args: ["--factorio-dir", game.dir] });
    try {
      await use(panel);
    } finally {
      killRecordedGame(panel.dataDir);
      await panel.stop();
    }
  },
});
