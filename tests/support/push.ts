// Test helpers for Web Push: a panel that trusts the fake push service, a "browser" that subscribes
// through the API like the PWA does, and the status changes the game supervisor emits.

import type { PanelEvents } from "../../backend/lib/events.ts";
import type { ServerExit, ServerState, ServerStatus } from "../../shared/api.ts";
import { CA_FILE, FakePushService, type FakeSubscription } from "../fake-push/service.ts";
import { type Client, type PanelOptions, type TestPanel, withPanel } from "./harness.ts";

/** The options that let a panel send to the fake service: trust its CA, and allow its address (loopback). */
export const FAKE_PUSH_ARGS = ["--push-ca-file", CA_FILE, "--push-private-hosts", "127.0.0.1"];

/** Panel options: send to the fake push service and retry quickly. */
export function pushPanel(extra: PanelOptions = {}): PanelOptions {
  return {
    ...extra,
    args: [...FAKE_PUSH_ARGS, "--push-subject", "mailto:ops@example.org", ...(extra.args ?? [])],
    prepare: async (ctx) => {
      ctx.push.notifier.retryDelaysMs = [20, 40, 80];
      await extra.prepare?.(ctx);
    },
  };
}

/** Runs `fn` with a fresh fake push service and a panel that trusts it; closes both. */
export function withPush(
  fn: (panel: TestPanel, fake: FakePushService) => Promise<void>,
  opts: PanelOptions = {},
): () => Promise<void> {
  return async () => {
    const fake = await FakePushService.start();
    try {
      await withPanel((panel) => fn(panel, fake), pushPanel(opts))();
    } finally {
      await fake.close();
    }
  };
}

/** What the PWA does on "Enable": get a subscription for the panel's key, then store it. */
export async function subscribeDevice(
  client: Client,
  fake: FakePushService,
  extra: Record<string, unknown> = {},
): Promise<{ sub: FakeSubscription; deviceId: number }> {
  const key = await client.get("/api/push/key");
  if (key.status !== 200) throw new Error(`GET /api/push/key: ${key.status} ${key.text}`);
  const sub = fake.subscribe(key.body.publicKey);
  const { id: _id, ...subscription } = sub;
  const r = await client.post("/api/push/subscribe", { subscription, ...extra });
  if (r.status !== 200) throw new Error(`subscribe: ${r.status} ${r.text}`);
  return { sub, deviceId: r.body.id };
}

export function serverStatus(status: ServerState, extra: Partial<ServerStatus> = {}): ServerStatus {
  return {
    status,
    running: status !== "stopped",
    address: "127.0.0.1",
    bindip: "0.0.0.0",
    port: 34197,
    savefile: "my-base.zip",
    fac_version: "2.0.28.0",
    base_mod_version: "2.0.28",
    since: new Date().toISOString(),
    last_exit: null,
    started_at: null,
    factorio_found: true,
    factorio_dir: "/opt/factorio",
    problems: [],
    last_start: null,
    ...extra,
  };
}

export function exitOf(reason: ServerExit["reason"], extra: Partial<ServerExit> = {}): ServerExit {
  return {
    reason,
    code: reason === "crashed" ? 1 : 0,
    signal: null,
    at: new Date().toISOString(),
    last_lines: [
      "   1.234 Info ServerMultiplayerManager.cpp:800: updateTick(1234)",
      "  12.345 Error Util.cpp:83: Out of memory",
    ],
    ...extra,
  };
}

/** The "server.status" events of a start, a Save & Stop, a Kill and a crash. */
export const changes = {
  started: (): PanelEvents["server.status"] => ({
    status: serverStatus("running"),
    previous: "starting",
    exit: null,
  }),
  stopped: (): PanelEvents["server.status"] => {
    const exit = exitOf("stopped");
    return { status: serverStatus("stopped", { last_exit: exit }), previous: "stopping", exit };
  },
  killed: (): PanelEvents["server.status"] => {
    const exit = exitOf("killed", { code: null, signal: "SIGKILL" });
    return { status: serverStatus("stopped", { last_exit: exit }), previous: "running", exit };
  },
  crashed: (extra: Partial<ServerExit> = {}): PanelEvents["server.status"] => {
    const exit = exitOf("crashed", extra);
    return { status: serverStatus("stopped", { last_exit: exit }), previous: "running", exit };
  },
  starting: (): PanelEvents["server.status"] => ({
    status: serverStatus("starting"),
    previous: "stopped",
    exit: null,
  }),
};
