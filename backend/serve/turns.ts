// How many connections of one client address the gate serves at once. Beyond `max`, connections wait in
// a queue (their request head already read, one open file each) and get the next free turn in order, so
// one address cannot take every file while none of its requests is turned away.

export interface TurnHolder {
  address: string;
  /** Being served: holds one of its address's turns. */
  turn: boolean;
  /** Set while it waits for a turn. */
  go: (() => void) | null;
  /** When its clock started (reset when it gets a turn after waiting). */
  opened: number;
}

export class AddressTurns<L extends TurnHolder> {
  #busy = new Map<string, number>();
  #queues = new Map<string, L[]>();

  /** `max` null: no limit (behind a reverse proxy every connection has the proxy's address). */
  constructor(private readonly max: number | null, private readonly now: () => number) {}

  /** Takes a turn now if one is free. */
  take(link: L): boolean {
    const busy = this.#busy.get(link.address) ?? 0;
    if (this.max !== null && busy >= this.max) return false;
    this.#busy.set(link.address, busy + 1);
    link.turn = true;
    return true;
  }

  /** Waits for a turn, in order of arrival; resolves early when the link is released meanwhile. */
  wait(link: L): Promise<void> {
    const queue = this.#queues.get(link.address) ?? [];
    this.#queues.set(link.address, queue);
    return new Promise<void>((go) => {
      link.go = go;
      queue.push(link);
    });
  }

  /** True when connections of `address` wait for a turn. */
  waiting(address: string): boolean {
    return this.#queues.has(address);
  }

  /** A link is done: its turn goes to the next waiting link of its address; a waiting one leaves the queue. */
  release(link: L): void {
    const queue = this.#queues.get(link.address);
    if (!link.turn) {
      const i = queue?.indexOf(link) ?? -1;
      if (i !== -1) queue!.splice(i, 1);
      if (queue?.length === 0) this.#queues.delete(link.address);
      link.go?.();
      link.go = null;
      return;
    }
    link.turn = false;
    const next = queue?.shift();
    if (queue?.length === 0) this.#queues.delete(link.address);
    if (next) {
      next.turn = true;
      next.opened = this.now();
      next.go?.();
      next.go = null;
      return;
    }
    const left = (this.#busy.get(link.address) ?? 1) - 1;
    if (left > 0) this.#busy.set(link.address, left);
    else this.#busy.delete(link.address);
  }
}
