// One queue of game operations (start, save & stop, restart, backups that save the game, updates,
// scheduled tasks), so none overlaps another: a scheduled restart never runs into a manual stop or an
// update. Kill does not queue: it must always be possible at once.
//
// The queue also knows whether a restart of the game (an update & restart, a restart) is queued or
// running, so a scheduled restart that comes meanwhile is that one, not a second restart right after it
// with warnings of its own (schedules/tasks.ts asks `restarting`).

export class GameOps {
  #tail: Promise<unknown> = Promise.resolve();
  #current: string | null = null;
  #waiting = 0;
  /** Labels of the restarts queued or running, oldest first. */
  #restarts: string[] = [];

  /** Runs `fn` after every operation queued before it. `restarts`: it stops and starts the game again. */
  run<T>(label: string, fn: () => Promise<T>, opts: { restarts?: boolean } = {}): Promise<T> {
    this.#waiting++;
    if (opts.restarts) this.#restarts.push(label);
    const result = this.#tail.then(async () => {
      this.#waiting--;
      this.#current = label;
      try {
        return await fn();
      } finally {
        this.#current = null;
        if (opts.restarts) this.#restarts.splice(this.#restarts.indexOf(label), 1);
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

  /** The restart of the game queued or running now ("the update to Factorio 2.1.12"), or null. */
  get restarting(): string | null {
    return this.#restarts[0] ?? null;
  }
}
