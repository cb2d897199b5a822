// Starts the fake push service (main.ts) as its own Deno process and drives it over its control API.
// Plain JavaScript so both Playwright specs and bench/*.mjs (Node) can use it.

import { spawn } from "node:child_process";
import { join, resolve } from "node:path";
import { PANEL_PERMISSIONS } from "../../scripts/launcher.mjs";

const ROOT = resolve(import.meta.dirname, "../..");

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
  const child = spawn(join(ROOT, "node_modules/.bin/deno"), ["run", ...PANEL_PERMISSIONS, "tests/fake-push/main.ts"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stderr.on("data", (d) => (out += d));
  const info = await new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`fake push service did not start:\n${out}`)), 30_000);
    child.stdout.on("data", (d) => {
      out += d;
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line) {
        clearTimeout(timer);
        ok(JSON.parse(line));
      }
    });
    child.on("exit", (code) => fail(new Error(`fake push service exited with ${code}:\n${out}`)));
  });
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
    respond: async (id, status, times) => void (await call("POST", `/subscriptions/${id}/respond`, { status, times })),
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
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
  return fake;
}
