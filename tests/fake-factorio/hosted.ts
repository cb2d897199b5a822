// A hosted simulator for Deno tests that talk to the game over RCON (sim.ts stays loadable under Node, for
// the end-to-end fixtures).

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFakeSave, type FakeFactorio, installFakeFactorio, type SimulatedVersion } from "./install.ts";
import { freeTcpPort, freeUdpPort, SimProcess } from "./sim.ts";
import { RconClient } from "../../backend/factorio/game/rcon.ts";

export interface HostedSim {
  f: FakeFactorio;
  game: SimProcess;
  /** A new authenticated RCON connection to the game. */
  connect: () => Promise<RconClient>;
  /** Stops the game as the panel does (SIGINT: it saves), and removes its directory unless told not to. */
  stop: (removeDir?: boolean) => Promise<void>;
}

/**
 * The simulator hosting a map on ports of its own, with RCON on 127.0.0.1 (password "pw"): a new install
 * and a save at `tick` unless `f` and `save` are given; auto_pause as the game's default unless set.
 */
export async function hostGame(
  version: SimulatedVersion,
  opts: { tick?: number; autoPause?: boolean; save?: string; f?: FakeFactorio } = {},
): Promise<HostedSim> {
  const f = opts.f ?? installFakeFactorio(mkdtempSync(join(tmpdir(), "fake-hosted-")), version);
  const save = opts.save ?? await createFakeSave(f, "world", { state: { tick: opts.tick ?? 0 } });
  const settings = join(f.dir, "server-settings.json");
  writeFileSync(settings, JSON.stringify({ auto_pause: opts.autoPause ?? true }));
  const rconPort = await freeTcpPort();
  const game = new SimProcess(f.binary, [
    "--start-server",
    save,
    "--bind",
    "127.0.0.1",
    "--port",
    String(await freeUdpPort()),
    "--rcon-bind",
    `127.0.0.1:${rconPort}`,
    "--rcon-password",
    "pw",
    "--server-settings",
    settings,
  ], { FAKE_FACTORIO_STARTUP_MS: "50", FAKE_FACTORIO_SAVE_MS: "10" });
  await game.waitForLine(/Starting RCON interface/);
  return {
    f,
    game,
    connect: () => RconClient.connect({ host: "127.0.0.1", port: rconPort, password: "pw" }),
    stop: async (removeDir = true) => {
      game.kill("SIGINT");
      await game.exited;
      if (removeDir) rmSync(f.dir, { recursive: true, force: true });
    },
  };
}
