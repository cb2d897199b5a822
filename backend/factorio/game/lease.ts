// Exclusive use of the game directory. A change that needs the game stopped (installing or deleting mods,
// loading a pack, creating a save, switching the game version, restoring a backup) holds the directory for
// its whole length, not just for a check when its request arrives: while any is held, the game does not
// start (409, naming what is under way), and none is granted while the game is not stopped (423). Several
// such changes may run side by side: each area serialises its own files.

import { Conflict, Locked } from "../../lib/errors.ts";
import { PANEL_MSG } from "../../../shared/messages.ts";
import type { ServerState } from "../../../shared/api.ts";

export class GameDirLease {
  #held = new Map<number, string>();
  #next = 1;
  #launching = false;

  constructor(private readonly state: () => ServerState) {}

  /** Runs `fn` holding the game directory; refused with 423 unless the game is stopped and not starting. */
  async whileStopped<T>(label: string, fn: () => Promise<T>): Promise<T> {
    if (this.state() !== "stopped" || this.#launching) throw new Locked(PANEL_MSG.serverNotStopped);
    const id = this.#next++;
    this.#held.set(id, label);
    try {
      return await fn();
    } finally {
      this.#held.delete(id);
    }
  }

  /** What holds the directory now, in words, or null. */
  busyWith(): string | null {
    const labels = [...new Set(this.#held.values())];
    return labels.length ? labels.join(", ") : null;
  }

  /**
   * Runs a game start: refused while a change holds the directory; while it runs (until the game process
   * exists and the state says so), no change is granted.
   */
  async launching<T>(fn: () => Promise<T>): Promise<T> {
    const busy = this.busyWith();
    if (busy) {
      throw new Conflict(`The server cannot start while ${busy} is under way; try again when it is done.`);
    }
    if (this.#launching) throw new Conflict(PANEL_MSG.serverAlreadyRunning);
    this.#launching = true;
    try {
      return await fn();
    } finally {
      this.#launching = false;
    }
  }
}
