// Test helpers for game versions: a panel whose --factorio-com-url is the fake factorio.com
// (tests/fake-factorio-com), over an empty or hand-installed --factorio-dir, and waits for the
// install/update outcomes published on the bus.

import { mkdtempSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { type FakeFactorioCom, type Release, startFakeFactorioCom } from "../fake-factorio-com/server.ts";
import { installFakeFactorio } from "../fake-factorio/install.ts";
import { killGame } from "./game.ts";
import { startPanel, type TestPanel } from "./harness.ts";
import type { EventBus } from "../../backend/lib/events.ts";
import { type InstallProgress, UPDATE_ENDED, type UpdateProgress } from "../../shared/factorio-versions.ts";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** Tarballs are built once per version and kind, and kept between runs (.tmp is not committed). */
export const TARBALL_CACHE = join(ROOT, ".tmp", "fake-factorio-com");

export interface VersionsPanel {
  panel: TestPanel;
  fake: FakeFactorioCom;
  factorioDir: string;
  close(): Promise<void>;
}

export interface VersionsPanelOptions {
  releases?: Release[];
  /** Lay out a hand-installed game of this version in --factorio-dir first. */
  handInstalled?: string;
  args?: string[];
  slowBytesPerSecond?: number;
}

export async function startVersionsPanel(opts: VersionsPanelOptions = {}): Promise<VersionsPanel> {
  const fake = startFakeFactorioCom({
    cacheDir: TARBALL_CACHE,
    releases: opts.releases,
    slowBytesPerSecond: opts.slowBytesPerSecond,
  });
  const factorioDir = mkdtempSync(join(tmpdir(), "panel-versions-"));
  if (opts.handInstalled) installFakeFactorio(factorioDir, "2.0", { fullVersion: opts.handInstalled });
  const panel = await startPanel({
    args: [
      "--factorio-dir",
      factorioDir,
      "--factorio-com-url",
      fake.url,
      "--update-warnings",
      "2,1",
      ...(opts.args ?? []),
    ],
  });
  return {
    panel,
    fake,
    factorioDir,
    close: async () => {
      try {
        await killGame(panel.ctx);
      } finally {
        await panel.close();
        await fake.close();
        rmSync(factorioDir, { recursive: true, force: true });
      }
    },
  };
}

export function withVersionsPanel(
  fn: (v: VersionsPanel) => Promise<void>,
  opts: VersionsPanelOptions = {},
): () => Promise<void> {
  return async () => {
    const v = await startVersionsPanel(opts);
    try {
      await fn(v);
    } finally {
      await v.close();
    }
  };
}

/** Resolves with the first install progress that has ended (done, failed, cancelled). */
export function installOutcome(bus: EventBus, timeoutMs = 120_000): Promise<InstallProgress> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (off(), reject(new Error("no install outcome"))), timeoutMs);
    const off = bus.on("factorio.versions", (m) => {
      if (m.kind !== "install" || !["done", "failed", "cancelled"].includes(m.install.phase)) return;
      clearTimeout(timer);
      off();
      resolve(m.install);
    });
  });
}

/** Resolves with the first update progress that has ended (done, rolled-back, failed). */
export function updateOutcome(
  bus: EventBus,
  seen: UpdateProgress[] = [],
  timeoutMs = 180_000,
): Promise<UpdateProgress> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => (off(), reject(new Error(`no update outcome: ${JSON.stringify(seen)}`))),
      timeoutMs,
    );
    const off = bus.on("factorio.versions", (m) => {
      if (m.kind !== "update") return;
      seen.push(m.update);
      if (!UPDATE_ENDED.includes(m.update.phase)) return;
      clearTimeout(timer);
      off();
      resolve(m.update);
    });
  });
}
