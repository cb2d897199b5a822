// One queue of game operations. Start, stop, restart, a backup that asks the game to save, a restore,
// an update and every scheduled task run through here one at a time, so a scheduled restart never
// lands in the middle of a backup and a manual stop never interleaves with a restore. Kill does not
// queue: it must always work at once.

export interface OpInfo {
  label: string;
  since: number;
}

export class GameOps {
  #tail: Promise<unknown> = Promise.resolve();
  #current: OpInfo | null = null;
  #waiting = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** The operation running now, if any. */
  get current(): OpInfo | null {
    return this.#current;
  }

  /** Operations queued behind the current one. */
  get waiting(): number {
    return this.#waiting;
  }

  /** Runs `fn` after every operation queued before it has finished (whatever their outcome). */
  run<T>(label: string, fn: () => Promise<T>): Promise<T> {
    this.#waiting++;
    const result = this.#tail.then(async () => {
      this.#waiting--;
      this.#current = { label, since: this.now() };
      try {
        return await fn();
      } finally {
        this.#current = null;
      }
    });
    this.#tail = result.catch(() => {});
    return result;
  }
}
