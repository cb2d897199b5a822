// What the push notifier and the channel delivery share: one FIFO queue per target (a device, a
// channel), "settled" for tests and shutdown, and a shutdown that says how much was left unsent. Each
// keeps its own drain loop (retries and limits differ).

import type { Logger } from "../lib/log.ts";

export interface TargetQueue {
  jobs: unknown[];
  busy: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

export class TargetQueues<Q extends TargetQueue> {
  protected readonly queues = new Map<number, Q>();
  protected readonly abort = new AbortController();
  #idle: (() => void)[] = [];

  constructor(protected readonly queueLog: Logger, private readonly what: string) {}

  /** Resolves once nothing is queued, being sent or waiting for a retry. */
  settled(): Promise<void> {
    if (this.queues.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  protected checkIdle(): void {
    if (this.queues.size > 0) return;
    for (const w of this.#idle.splice(0)) w();
  }

  close(): void {
    this.abort.abort();
    let dropped = 0;
    for (const q of this.queues.values()) {
      clearTimeout(q.timer);
      dropped += q.jobs.length;
    }
    if (dropped > 0) this.queueLog.warn(`Shutting down with ${this.what} unsent`, { dropped });
    this.queues.clear();
    this.checkIdle();
  }
}
