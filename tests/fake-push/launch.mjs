// Starts the fake push service (main.ts) as its own Deno process and drives it over its control API.
// Plain JavaScript so both Playwright specs and bench/*.mjs (Node) can use it.

import { startDenoService } from "../launch.mjs";

/**
 * @typedef {{ id: string, endpoint: string, expirationTime: null, keys: { p256dh: string, auth: string } }} FakeSubscription
 * @typedef {{ seq: number, subscriptionId: string, receivedAt: number, status: number, problem: string | null,
 *   ttl: number | null, urgency: string | null, topic: string | null,
 *   claims: { aud: string, exp: number, sub: string } | null, payload: string | null }} ReceivedPush
 */

/** @returns {Promise<{ origin: string, caFile: string,
 *   subscribe(applicationServerKey: string): Promise<FakeSubscription>,
 *   respond(id: string, status: number, times?: number): Promise<void>,
 *   received(after?: number, waitMs?: number): Promise<ReceivedPush[]>,
 *   waitFor(match: (r: ReceivedPush) => boolean, opts?: { after?: number, timeoutMs?: number }): Promise<ReceivedPush>,
 *   stop(): Promise<void> }>} */
export async function startFakePush() {
  const { info, stop } = await startDenoService("tests/fake-push/main.ts", "fake push service");
  const call = async (method, path, body) => {
    const res = await fetch(info.control + path, {
      method,
      headers: body === undefined ? {} : { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`fake push ${method} ${path}: ${res.status} ${await res.text()}`);
    return await res.json();
  };
  const fake = {
    origin: info.origin,
    caFile: info.caFile,
    subscribe: (applicationServerKey) => call("POST", "/subscriptions", { applicationServerKey }),
    respond: async (id, status, times) =>
      void (await call("POST", `/subscriptions/${id}/respond`, { status, times })),
    received: (after = 0, waitMs = 0) => call("GET", `/received?after=${after}&wait=${waitMs}`),
    waitFor: async (match, { after = 0, timeoutMs = 30_000 } = {}) => {
      const deadline = Date.now() + timeoutMs;
      let seen = after;
      for (;;) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error("no matching push arrived at the fake push service");
        const batch = await fake.received(seen, Math.min(left, 10_000));
        const hit = batch.find(match);
        if (hit) return hit;
        if (batch.length) seen = batch[batch.length - 1].seq;
      }
    },
    stop,
  };
  return fake;
}
