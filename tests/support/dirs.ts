// A data dir and a Factorio dir of its own for a test that starts a panel, removed afterwards.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export async function withDirs(
  prefix: string,
  fn: (dataDir: string, factorioDir: string) => Promise<void>,
): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const factorioDir = mkdtempSync(join(tmpdir(), `${prefix}-game-`));
  try {
    await fn(dataDir, factorioDir);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(factorioDir, { recursive: true, force: true });
  }
}
