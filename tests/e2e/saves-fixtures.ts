// E2E fixtures for the saves area: the game fixtures (a simulated Factorio per test, the game killed
// afterwards), starting without any save, plus a scratch directory for files the test uploads and downloads.

// deno-lint-ignore-file react-rules-of-hooks no-empty-pattern -- Playwright fixtures (see fixtures.ts)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test as gameTest } from "./game-fixtures.ts";

export { expect } from "./game-fixtures.ts";
export { openSignedIn } from "./fixtures.ts";

export const test = gameTest.extend<{ scratch: string }>({
  gameSaves: [[], { option: true }],
  scratch: async ({}, use) => {
    const dir = mkdtempSync(join(tmpdir(), "saves-e2e-"));
    await use(dir);
    rmSync(dir, { recursive: true, force: true });
  },
});
