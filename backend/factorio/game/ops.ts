// One queue of game operations (start, save & stop, restart, backups that save the game, updates,
// scheduled tasks), so none overlaps another: a scheduled restart never runs into a manual stop or an
// update. Kill does not queue: it must always be possible at once.

export class GameOps {
  #tail: Promise<unknown> = Promise.resolve();
  #current: string | null = null;
  #waiting = 0;

  /** Runs `fn` after every operation queued before it. */
  run<T>(label: string, fn: () => Promise<T>): Promise<T> {
    this.#waiting++;
    const result = this.#tail.then(async () => {
      this.#waiting--;
      this.#current = label;
      try {
        return await fn();
      } finally {
        this.#current = null;
      }
    });
    this.#tail = result.catch(() => {});
    return result;
  }

  /** The operation running now, or null. */
  get current(): string | null {
    return this.#current;
  }

  get waiting(): number {
    return this.#waiting;
  }
}
