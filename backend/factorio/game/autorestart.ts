// Automatic restart after a crash (--auto-restart): the same save, address and port again after a delay
// that doubles with each crash in a row (at most 10 minutes), up to --auto-restart-max crashes; a run that
// stayed up for 10 minutes ends the streak. Every decision is said in the console.

import type { Config } from "../../boot/config.ts";
import type { StartRequest } from "../../../shared/api.ts";
import type { Run } from "./run.ts";

const MAX_DELAY_MS = 10 * 60_000;
/** A run that stayed up longer than this ends the streak of crashes. */
const STREAK_ENDS_MS = 10 * 60_000;

export class AutoRestart {
  #attempt = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly config: Config,
    private readonly now: () => number,
    /** Says something in the console. */
    private readonly note: (text: string) => void,
    /** Starts the game again; a failure is said in the console. */
    private readonly launch: (request: StartRequest) => Promise<unknown>,
  ) {}

  /** Whether a restart is waiting for its delay. */
  get pending(): boolean {
    return this.#timer !== undefined;
  }

  /** A run that was hosting crashed: schedules its restart, unless the streak is too long. */
  afterCrash(run: Run): void {
    const { config } = this;
    if (!config.autoRestart) return;
    if (this.now() - Date.parse(run.startedAt) > STREAK_ENDS_MS) this.#attempt = 0;
    if (this.#attempt >= config.autoRestartMax) {
      this.note(
        `The server crashed ${this.#attempt} times in a row; it is not restarted again automatically.`,
      );
      return;
    }
    this.#attempt++;
    const delay = Math.min(config.autoRestartDelay * 1000 * 2 ** (this.#attempt - 1), MAX_DELAY_MS);
    this.note(
      `The server crashed; it restarts in ${
        Math.round(delay / 1000)
      } s (attempt ${this.#attempt} of ${config.autoRestartMax}).`,
    );
    const request = { bindip: run.bindip, port: run.port, savefile: run.savefile };
    this.#timer = setTimeout(async () => {
      this.#timer = undefined;
      try {
        await this.launch(request);
      } catch (e) {
        this.note(`The automatic restart failed: ${(e as Error).message}`);
      }
    }, delay);
  }

  cancel(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** A start a person asked for: a new streak. */
  reset(): void {
    this.cancel();
    this.#attempt = 0;
  }
}
