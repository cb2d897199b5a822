// Test helpers for alert channels: a panel plus the local doubles of Discord, Slack, ntfy and a webhook
// receiver (tests/fake-alerts), with retries shortened so backoff tests finish quickly.

import { type Client, type PanelOptions, type TestPanel, withPanel } from "./harness.ts";
import { FakeAlerts, startFakeAlerts } from "../fake-alerts/server.mjs";
import type { CreatedAlertChannel, NewAlertChannel } from "../../shared/alerts.ts";

export { FakeAlerts };

export function withAlerts(
  fn: (panel: TestPanel, fake: FakeAlerts) => Promise<void>,
  opts: PanelOptions = {},
): () => Promise<void> {
  return async () => {
    const fake = await startFakeAlerts();
    try {
      await withPanel((panel) => fn(panel, fake), {
        ...opts,
        prepare: async (ctx) => {
          ctx.alerts.channels.delivery.retryDelaysMs = [20, 40, 80];
          ctx.alerts.channels.delivery.rateRefillMs = 20;
          await opts.prepare?.(ctx);
        },
      })();
    } finally {
      await fake.close();
    }
  };
}

export async function addChannel(c: Client, channel: NewAlertChannel): Promise<CreatedAlertChannel> {
  const r = await c.post("/api/notifications/channels", channel);
  if (r.status !== 200) throw new Error(`adding a channel failed: ${r.status} ${r.text}`);
  return r.body;
}

/** The path part of a URL (what the double records). */
export function pathOf(url: string): string {
  return new URL(url).pathname;
}

/** An alert's title as devices and channels get it: led by the name of the server it is about. */
export function titleOn(panel: TestPanel, title: string, server = 1): string {
  return `${panel.ctx.alerts.servers.serverName(server)}: ${title}`;
}
