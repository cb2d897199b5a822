// When a certificate is renewed and when, at the latest, the panel must serve the new one: plain arithmetic
// on its validity, shared by the manager (manager.ts) and the listener (listener.ts).

const DAY = 86_400_000;

/**
 * When to renew a certificate valid from `notBefore` to `notAfter` (ms): 30 days before it ends, or a third of
 * its lifetime before, whichever is later. Let's Encrypt's 90 days renew at 60; a 60 s test certificate at 40 s.
 */
export function renewalTime(notBefore: number, notAfter: number): number {
  return notAfter - Math.min(30 * DAY, (notAfter - notBefore) / 3);
}

/**
 * The latest moment to stop serving `notAfter`'s certificate for a new one that arrived at `now`: when a tenth
 * of its remaining life or 24 hours is left, whichever is less. Until then the swap waits for a moment with no
 * request in flight and no WebSocket open (listener.ts).
 */
export function swapDeadline(notAfter: number, now: number): number {
  const left = Math.max(0, notAfter - now);
  return notAfter - Math.min(left / 10, DAY);
}

/** Whole days from `now` to `at` (negative once past). */
export function daysLeft(at: number, now: number): number {
  return Math.floor((at - now) / DAY);
}
