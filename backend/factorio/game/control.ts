// What the rest of the panel may ask of the game server. The process supervisor implements it
// (factorio/game/supervisor.ts); settings, players and notifications use only this.

import type { ServerStatus } from "../../../shared/api.ts";

/** Extra command-line arguments for the next start, e.g. ["--server-whitelist", path, "--use-server-whitelist", "true"]. */
export type LaunchArgsProvider = () => string[] | Promise<string[]>;

export interface GameControl {
  status(): ServerStatus;
  /**
   * Runs a command over RCON and returns the game's reply (may be empty).
   * Throws Conflict when the game is not running.
   */
  rcon(command: string): Promise<string>;
  /** Adds arguments to every future start. */
  addLaunchArgs(provider: LaunchArgsProvider): void;
}
