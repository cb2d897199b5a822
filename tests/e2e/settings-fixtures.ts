// A panel over a simulated Factorio directory, for the settings, game settings and players pages.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPanelProcess, test as base, type PanelProcess } from "./fixtures.ts";
import { installFakeFactorio } from "../fake-factorio/install.ts";

export const test = base.extend<{ factorioDir: string }>({
  factorioDir: async ({}, use) => {
    const dir = mkdtempSync(join(tmpdir(), "factorio-e2e-"));
    installFakeFactorio(dir, "2.0");
    await use(dir);
    rmSync(dir, { recursive: true, force: true });
  },
  panel: async ({ factorioDir }, use) => {
    const panel: PanelProcess = await startPanelProcess({ args: ["--factorio-dir", factorioDir] });
    await use(panel);
    await panel.stop();
  },
});

export { expect, openSignedIn } from "./fixtures.ts";
