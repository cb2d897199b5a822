// Small helpers both sides use. No runtime-specific imports.

/** Resolves with `p`, or with "timeout" after `ms`; the timer never outlives the race. */
export async function within<T>(p: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves with `p`, or rejects with `makeError()` after `ms`. */
export async function orTimeout<T>(p: Promise<T>, ms: number, makeError: () => Error): Promise<T> {
  const r = await within(p, ms);
  if (r === "timeout") throw makeError();
  return r;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A Retry-After header (seconds or an HTTP date) as milliseconds from `now`, or null. */
export function retryAfterMs(value: string | null, now = Date.now()): number | null {
  if (!value) return null;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** A size for people: "12.5 MiB". */
export function formatBytes(n: number): string {
  if (n >= 1024 ** 3) return `${+(n / 1024 ** 3).toFixed(1)} GiB`;
  if (n >= 1024 ** 2) return `${+(n / 1024 ** 2).toFixed(1)} MiB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}

/**
 * An abort signal that fires after `ms` without activity: `touch()` on every sign of life (a chunk of a
 * download). A slow but moving transfer never times out; a stalled one does.
 */
export function idleTimeout(ms: number): { signal: AbortSignal; touch(): void; clear(): void } {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const touch = () => {
    clearTimeout(timer);
    timer = setTimeout(
      () => controller.abort(new DOMException(`no data for ${ms / 1000} s`, "TimeoutError")),
      ms,
    );
  };
  touch();
  return { signal: controller.signal, touch, clear: () => clearTimeout(timer) };
}

/**
 * A Map that keeps at most `limit` entries: setting one more drops the least recently set or read one.
 * For caches whose keys come from outside (file paths, mod names), so they cannot grow without bound.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(readonly limit: number) {
    super();
  }

  override get(key: K): V | undefined {
    const value = super.get(key);
    if (value !== undefined) {
      // Most recently used goes last.
      super.delete(key);
      super.set(key, value);
    }
    return value;
  }

  override set(key: K, value: V): this {
    super.delete(key);
    super.set(key, value);
    while (this.size > this.limit) super.delete(super.keys().next().value as K);
    return this;
  }
}

/**
 * An English collator's compare, the collator built on the first comparison, not when the module loads:
 * the first Intl object starts ICU, ~20 ms before the panel's first answer.
 */
export function lazyCompare(options: Intl.CollatorOptions): (a: string, b: string) => number {
  let collator: Intl.Collator | null = null;
  return (a, b) => (collator ??= new Intl.Collator("en", options)).compare(a, b);
}

/**
 * `make(key)`, made again only when the key is not the one of the last call (===): for a value asked on
 * every request whose input rarely changes, and for handing out the same array while it does not.
 */
export function keptFor<K, V>(make: (key: K) => V): (key: K) => V {
  let last: { key: K; value: V } | null = null;
  return (key) => {
    if (last === null || last.key !== key) last = { key, value: make(key) };
    return last.value;
  };
}
