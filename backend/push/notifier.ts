// Web Push consumer of the alert dispatcher: every alert goes to the devices that want its kind (and are
// not in their quiet hours, unless it is critical), tagged per server and kind so alerts of one kind about
// one server replace each other on the device. An alert about a server goes only to devices that chose it
// (or every server) and whose user has a role on it.
//
// deliver() only queues: the dispatcher (and everything behind it) never waits for a push service. Each
// device has its own first-in-first-out queue, so its alerts arrive in order, one slow or failing device
// never holds up the others, and a message that fails is retried with backoff before the device's next
// one goes out. 404/410 ("gone") deletes the subscription at once.

import type { Logger } from "../lib/log.ts";
import type { PushEvent, PushPayload } from "../../shared/api.ts";
import { CRITICAL_EVENTS } from "../../shared/alerts.ts";
import type { PushSubscriptionStore } from "../store/push.ts";
import { type AlertConsumer, type DispatchedAlert, serversOf, wantsServer } from "../alerts/alert.ts";
import { FIRST_SERVER } from "../../shared/contract/servers.ts";
import { inQuietHours } from "./quiet.ts";
import { TargetQueues } from "../alerts/queues.ts";
import { type DeliveryOptions, type PushSender, type SendResult, serviceHost } from "./sender.ts";

/** Delays before the 2nd, 3rd, ... attempt; after the last one the message is given up. */
export const RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000, 600_000];
/** Messages waiting per device beyond this drop the oldest (a device that is down for long). */
export const MAX_QUEUED_PER_DEVICE = 20;

/** TTL and urgency: a crash matters a day later too; a start or a join is old news within the hour. */
export function deliveryFor(kind: PushEvent | "test"): DeliveryOptions {
  if (kind === "test") return { ttl: 300, urgency: "high" };
  if (CRITICAL_EVENTS.includes(kind)) return { ttl: 24 * 3600, urgency: "high" };
  if (kind === "started" || kind === "player-joined" || kind === "player-left") {
    return { ttl: 3600, urgency: "normal" };
  }
  return { ttl: 6 * 3600, urgency: "normal" };
}

/**
 * One tag per kind and server: a device shows the latest alert of each kind about each server. Server 1 and
 * the panel's own alerts keep the tags they always had (crashes: "factorio-server-crash").
 */
export function tagOf(kind: PushEvent | "test", server: number | null = null): string {
  const tag = kind === "crashed"
    ? "factorio-server-crash"
    : kind === "test"
    ? "factorio-panel-test"
    : `factorio-${kind}`;
  return server === null || server === FIRST_SERVER ? tag : `${tag}-server-${server}`;
}

/** The push message for an alert. */
export function payloadFor(alert: DispatchedAlert): PushPayload {
  return {
    kind: alert.kind,
    title: alert.title,
    body: alert.body,
    tag: tagOf(alert.kind, alert.server?.id ?? null),
    url: alert.url,
    at: alert.at,
  };
}

interface Job {
  payload: PushPayload;
  options: DeliveryOptions;
  attempts: number;
  queuedAt: number;
}

interface DeviceQueue {
  jobs: Job[];
  busy: boolean;
  timer?: ReturnType<typeof setTimeout>;
}

export interface NotifierDeps {
  store: PushSubscriptionStore;
  sender: PushSender;
  log: Logger;
  now: () => number;
  /** Whether a user has a role on a server (read at each alert). */
  canSee: (userId: number, serverId: number) => boolean;
}

export class Notifier extends TargetQueues<DeviceQueue> implements AlertConsumer {
  /** Tests shorten these; see RETRY_DELAYS_MS. */
  retryDelaysMs = RETRY_DELAYS_MS;

  constructor(private readonly deps: NotifierDeps) {
    super(deps.log, "push notifications");
  }

  deliver(alert: DispatchedAlert): void {
    const critical = alert.audience.some((k) => CRITICAL_EVENTS.includes(k));
    const now = this.deps.now();
    const server = alert.server;
    const targets = this.deps.store.wantingAny(alert.audience).filter((row) => {
      if (!wantsServer(serversOf(row.servers), server)) return false;
      if (server && !this.deps.canSee(row.user_id, server.id)) return false;
      if (critical || !row.quiet_start || !row.quiet_end || !row.quiet_tz) return true;
      return !inQuietHours({ start: row.quiet_start, end: row.quiet_end, tz: row.quiet_tz }, now);
    });
    if (targets.length === 0) return;
    this.deps.log.info(`Sending "${alert.kind}" push notifications`, {
      devices: targets.length,
      ...(server ? { server: server.id } : {}),
    });
    const payload = payloadFor(alert);
    for (const row of targets) this.enqueue(row.id, payload, deliveryFor(alert.kind));
  }

  /** Queues a message for one device. */
  enqueue(deviceId: number, payload: PushPayload, options: DeliveryOptions): void {
    if (this.abort.signal.aborted) return;
    let q = this.queues.get(deviceId);
    if (!q) this.queues.set(deviceId, q = { jobs: [], busy: false });
    q.jobs.push({ payload, options, attempts: 0, queuedAt: this.deps.now() });
    if (q.jobs.length > MAX_QUEUED_PER_DEVICE) {
      const dropped = q.jobs.splice(0, q.jobs.length - MAX_QUEUED_PER_DEVICE);
      this.deps.log.warn("Dropped old push notifications for a device that is not taking them", {
        device: deviceId,
        dropped: dropped.length,
      });
    }
    if (!q.busy && !q.timer) void this.#drain(deviceId, q);
  }

  /** Sends one message to one device now and records the outcome (also used by "Send test notification"). */
  async send(deviceId: number, payload: PushPayload, options: DeliveryOptions): Promise<SendResult | null> {
    const row = this.deps.store.byId(deviceId);
    if (!row) return null;
    const result = await this.deps.sender.send(row, payload, options, this.abort.signal);
    const now = this.deps.now();
    const fields = {
      device: row.id,
      user: row.user_id,
      service: serviceHost(row.endpoint),
      kind: payload.kind,
    };
    switch (result.kind) {
      case "delivered":
        this.deps.store.delivered(row.id, now);
        this.deps.log.info("Push notification delivered", { ...fields, status: result.status });
        break;
      case "gone":
        this.deps.store.delete(row.id);
        this.deps.log.info("Removed a push subscription the push service no longer knows", {
          ...fields,
          status: result.status,
        });
        break;
      default:
        this.deps.store.failed(row.id, now, result.error);
        this.deps.log.warn("Push notification failed", { ...fields, error: result.error });
    }
    return result;
  }

  async #drain(deviceId: number, q: DeviceQueue): Promise<void> {
    q.busy = true;
    try {
      while (q.jobs.length > 0 && !this.abort.signal.aborted) {
        const job = q.jobs[0];
        job.attempts++;
        const result = await this.send(deviceId, job.payload, job.options);
        if (result === null || result.kind === "gone") {
          q.jobs.length = 0; // the device is gone: nothing more to send it
          break;
        }
        if (result.kind !== "retry") {
          q.jobs.shift();
          continue;
        }
        const delay = this.retryDelaysMs[job.attempts - 1];
        const expired = this.deps.now() - job.queuedAt > job.options.ttl * 1000;
        if (delay === undefined || expired) {
          q.jobs.shift();
          this.deps.log.error("Gave up on a push notification", {
            device: deviceId,
            kind: job.payload.kind,
            attempts: job.attempts,
            error: result.error,
          });
          continue;
        }
        const wait = Math.min(Math.max(delay, result.retryAfterMs ?? 0), 3600_000);
        this.deps.log.info("Will retry a push notification", {
          device: deviceId,
          attempt: job.attempts,
          in_ms: wait,
        });
        q.timer = setTimeout(() => {
          q.timer = undefined;
          void this.#drain(deviceId, q);
        }, wait);
        return;
      }
    } catch (e) {
      this.deps.log.error("Push delivery failed unexpectedly", { device: deviceId, error: String(e) });
      q.jobs.length = 0;
    } finally {
      q.busy = false;
      if (q.jobs.length === 0 && !q.timer) this.queues.delete(deviceId);
      this.checkIdle();
    }
  }
}
