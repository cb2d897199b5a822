// Small helpers both sides use. No runtime-specific imports.

/** Resolves with `p`, or with "timeout" after `ms`; the timer never outlives the race. */
export async function within<T>(p: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), ms)))]);
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
