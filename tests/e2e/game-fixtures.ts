// E2E fixtures for everything that needs a game: each test gets a simulated Factorio directory
// (tests/fake-factorio, with one save by default) and a real panel process whose --factorio-dir is it.
// After the test the game is killed if it still runs, whatever the panel did. Override per file with
//   test.use({ gameVersion: "1.1", gameSaves: [] });
// `gamePort` is a free UDP port for this test (two workers must never both start the game on 34197).

// deno-lint-ignore-file react-rules-of-hooks no-empty-pattern -- Playwright fixtures (see fixtures.ts)
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type PanelProcess, startPanelProcess, test as base } from "./fixtures.ts";
import {
  createFakeSave,
  type FakeFactorio,
  installFakeFactorio,
  type SimulatedVersion,
} from "../fake-factorio/install.ts";
import { freeUdpPort, rconPortArgs } from "../fake-factorio/sim.ts";

export interface GameFixtures {
  gameVersion: SimulatedVersion;
  gameSaves: string[];
  /** Extra panel arguments, e.g. ["--auto-restart"]. */
  panelArgs: string[];
  factorio: FakeFactorio;
  gamePort: number;
}

/** SIGKILLs the game a panel recorded in its data dir, if any. */
export function killRecordedGame(dataDir: string): void {
  try {
    const { pid } = JSON.parse(readFileSync(join(dataDir, "game-process.json"), "utf8"));
    process.kill(pid, "SIGKILL");
  } catch {
    // nothing running
  }
}

export const test = base.extend<GameFixtures>({
  gameVersion: ["2.0", { option: true }],
  gameSaves: [["world.zip"], { option: true }],
  panelArgs: [[], { option: true }],
  factorio: async ({ gameVersion, gameSaves }, use) => {
    const f = installFakeFactorio(mkdtempSync(join(tmpdir(), "factorio-e2e-")), gameVersion);
    for (const s of gameSaves) await createFakeSave(f, s);
    await use(f);
    rmSync(f.dir, { recursive: true, force: true });
  },
  gamePort: async ({}, use) => {
    await use(await freeUdpPort());
  },
  panel: async ({ factorio, panelArgs }, use) => {
    const rcon = await rconPortArgs(panelArgs);
    const panel: PanelProcess = await startPanelProcess({
      args: ["--factorio-dir", factorio.dir, ...rcon, ...panelArgs],
    });
    await use(panel);
    killRecordedGame(panel.dataDir);
    await panel.stop();
  },
});

export { expect };
export { createFakeSave, installFakeFactorio };
