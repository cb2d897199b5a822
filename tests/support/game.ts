// Test helpers for everything that needs a game: a test panel (harness.ts) on a freshly installed
// Factorio simulator (tests/fake-factorio), waits for server states, free ports, and cleanup that never
// leaves a game process behind. Saves, settings, players and notification tests use these too.
//
//   const p = await startPanelWithGame();               // 2.0 simulator, one save "world.zip"
//   const c = await p.login();
//   await startGame(c);                                  // POST /api/server/start on a free UDP port
//   await p.ctx.game.rcon("/fake-join alice");
//   await p.close();                                     // kills the game if it still runs

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { type Client, type PanelOptions, startPanel, type TestPanel } from "./harness.ts";
import {
  createFakeSave,
  type FakeFactorio,
  installFakeFactorio,
  type SimulatedVersion,
  VERSIONS,
} from "../fake-factorio/install.ts";
import { freeTcpPort, freeUdpPort, holdUdpPort } from "../fake-factorio/sim.ts";
import type { AppContext } from "../../backend/boot/context.ts";
import type { ServerState, ServerStatus } from "../../shared/api.ts";
import { LOAD_LATEST } from "../../shared/api.ts";

export { createFakeSave, freeTcpPort, freeUdpPort, holdUdpPort };
export type { FakeFactorio, SimulatedVersion };

export interface GamePanelOptions extends PanelOptions {
  /** Simulated game version (default "2.0"). */
  version?: SimulatedVersion;
  /** An installed simulator directory to reuse (e.g. a second panel over the same game). */
  factorio?: FakeFactorio;
  /** Saves to create in a new installation (default ["world.zip"]; [] for none). */
  saves?: string[];
  /** Environment for the game (simulator knobs such as FAKE_FACTORIO_STARTUP_MS); set on this process. */
}

export interface GamePanel extends TestPanel {
  factorio: FakeFactorio;
  /** Kills the game if it still runs (unless `keepGame`), closes the panel, removes what it created. */
  close(opts?: { keepData?: boolean; keepGame?: boolean }): Promise<void>;
}

/** Installs a simulated Factorio in a temp dir (removed by the panel's close unless reused). */
export async function installGame(
  version: SimulatedVersion = "2.0",
  saves = ["world.zip"],
): Promise<FakeFactorio> {
  const f = installFakeFactorio(mkdtempSync(join(tmpdir(), "factorio-test-")), version);
  for (const s of saves) await createFakeSave(f, s);
  return f;
}

/** A test panel whose --factorio-dir is a simulated game. */
export async function startPanelWithGame(opts: GamePanelOptions = {}): Promise<GamePanel> {
  const ownGame = !opts.factorio;
  const factorio = opts.factorio ?? await installGame(opts.version ?? "2.0", opts.saves ?? ["world.zip"]);
  const panel = await startPanel({ ...opts, args: ["--factorio-dir", factorio.dir, ...(opts.args ?? [])] });
  const close = panel.close;
  return Object.assign(panel, {
    factorio,
    close: async ({ keepData, keepGame }: { keepData?: boolean; keepGame?: boolean } = {}) => {
      try {
        if (!keepGame) await killGame(panel.ctx);
      } finally {
        await close({ keepData });
        if (ownGame && !keepData) rmSync(factorio.dir, { recursive: true, force: true });
      }
    },
  });
}

/** Runs `fn` with a panel on a simulated game, and always cleans up. */
export function withGamePanel(
  fn: (p: GamePanel) => Promise<void>,
  opts: GamePanelOptions = {},
): () => Promise<void> {
  return async () => {
    const p = await startPanelWithGame(opts);
    try {
      await fn(p);
    } finally {
      await p.close();
    }
  };
}

/** Waits until the game server is in `state` (immediately if it is) and returns that status. */
export function waitForStatus(
  ctx: AppContext,
  state: ServerState,
  timeoutMs = 30_000,
): Promise<ServerStatus> {
  if (ctx.game.status().status === state) return Promise.resolve(ctx.game.status());
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`Timed out waiting for the server to be ${state}; it is ${ctx.game.status().status}`));
    }, timeoutMs);
    const off = ctx.bus.on("server.status", ({ status }) => {
      if (status.status !== state) return;
      clearTimeout(timer);
      off();
      resolve(status);
    });
  });
}

/** Starts the game through the API on a free UDP port and checks that it answered 200. */
export async function startGame(
  client: Client,
  opts: { savefile?: string; port?: number; bindip?: string } = {},
): Promise<{ port: number; message: string }> {
  const port = opts.port ?? await freeUdpPort();
  const r = await client.post("/api/server/start", {
    bindip: opts.bindip ?? "127.0.0.1",
    port,
    savefile: opts.savefile ?? LOAD_LATEST,
  });
  if (r.status !== 200) throw new Error(`start failed: ${r.status} ${r.text}`);
  return { port, message: r.body };
}

/**
 * Kills the game whatever its state, including a game left running by an earlier panel over the same
 * data dir, and waits until it is gone.
 */
export async function killGame(ctx: AppContext): Promise<void> {
  if (ctx.game.status().status !== "stopped") {
    await ctx.game.kill().catch(() => {});
    await waitForStatus(ctx, "stopped", 15_000).catch(() => {});
  }
  killRecordedGame(ctx.config.dataDir);
  // The other servers' games (tests of several servers).
  for (const s of ctx.servers.all()) {
    if (s.id === 1) continue;
    if (s.game.status().status !== "stopped") await s.game.kill().catch(() => {});
    killRecordedGame(s.config.dataDir);
  }
}

/** SIGKILLs the game recorded in a data dir (a game no panel watches any more). */
export function killRecordedGame(dataDir: string): void {
  try {
    const { pid } = JSON.parse(readFileSync(join(dataDir, "game-process.json"), "utf8"));
    Deno.kill(pid, "SIGKILL");
  } catch {
    // nothing recorded, or already gone
  }
}

/** The simulator's version string as the status reports it ("2.0.72.0"). */
export function statusVersion(version: SimulatedVersion): string {
  return `${VERSIONS[version].version}.0`;
}
