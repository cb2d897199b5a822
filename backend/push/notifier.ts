// Turns game server status changes into Web Push alerts for every device that wants them.
//
// The bus listener only queues: the status change (and everything else the bus feeds) never waits for a
// push service. Each device has its own first-in-first-out queue, so its alerts arrive in order, one
// slow or failing device never holds up the others, and a message that fails is retried with backoff
// before the device's next one goes out. 404/410 ("gone") deletes the subscription at once.

import type { EventBus, PanelEvents } from "../events.ts";
import type { Logger } from "../log.ts";
import type { PushEvent, PushPayload } from "../../shared/api.ts";
import type { UpdateInfo } from "../../shared/factorio-versions.ts";
import { PUSH_MSG } from "../../shared/messages.ts";
import { formatVersion, parseVersion } from "../../shared/versions.ts";
import type { PushSubscriptionStore } from "../store/push.ts";
import { type DeliveryOptions, type PushSender, type SendResult, serviceHost } from "./sender.ts";

/** Delays before the 2nd, 3rd, ... attempt; after the last one the message is given up. */
export const RETRY_DELAYS_MS = [1_000, 5_000, 30_000, 120_000, 600_000];
/** Messages waiting per device beyond this drop the oldest (a device that is down for long). */
export const MAX_QUEUED_PER_DEVICE = 20;
/** Longest log line quoted in a crash alert. */
const LAST_LINE_MAX = 200;

export const DELIVERY: Record<PushEvent | "test", DeliveryOptions> = {
  // A crash matters a day later too; a start is old news within the hour.
  crashed: { ttl: 24 * 3600, urgency: "high" },
  stopped: { ttl: 6 * 3600, urgency: "normal" },
  started: { ttl: 3600, urgency: "normal" },
  update: { ttl: 24 * 3600, urgency: "normal" },
  "task-failed": { ttl: 24 * 3600, urgency: "high" },
  test: { ttl: 300, urgency: "high" },
};

/** The alert for a new game version (factorio/versions found it newer than the one running). */
export function updatePayload(info: UpdateInfo, at: string): PushPayload {
  return {
    kind: "update",
    title: PUSH_MSG.titleUpdate,
    body: `Factorio ${info.latest} is out (${info.channel}); the server has ${info.current}. Update it from Controls.`,
    tag: "factorio-update",
    url: "/",
    at,
  };
}

/** The alerts a status change can be. */
export type StatusEvent = Exclude<PushEvent, "update" | "task-failed">;

/** Which alert a status change is, if any. */
export function eventOf(change: PanelEvents["server.status"]): StatusEvent | null {
  if (change.exit) return change.exit.reason === "crashed" || change.exit.reason === "start-failed" ? "crashed" : "stopped";
  if (change.status.status === "running" && change.previous !== "running") return "started";
  return null;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max - 1) + "…" : flat;
}

/** The notification for a status change: short title, one or two sentences, tap opens Controls. */
export function payloadFor(event: StatusEvent, change: PanelEvents["server.status"], at: string): PushPayload {
  const { status, exit } = change;
  const save = status.savefile ? `${status.savefile}` : "the game";
  // The status carries the old API's four-part version ("2.0.72.0"); people know "2.0.72".
  const parsed = parseVersion(status.fac_version);
  const version = parsed ? formatVersion(parsed, 3) : status.fac_version;
  switch (event) {
    case "started":
      return {
        kind: "started",
        title: PUSH_MSG.titleStarted,
        body: `${save} is running on port ${status.port}${version ? ` (Factorio ${version})` : ""}.`,
        tag: "factorio-server-status",
        url: "/",
        at,
      };
    case "stopped":
      return {
        kind: "stopped",
        title: PUSH_MSG.titleStopped,
        body: exit?.reason === "killed"
          ? "Killed from the panel: the game was not saved."
          : "Saved and stopped from the panel.",
        tag: "factorio-server-status",
        url: "/",
        at: exit?.at ?? at,
      };
    case "crashed": {
      const how = exit?.signal ? `Ended by signal ${exit.signal}` : `Exit code ${exit?.code ?? "unknown"}`;
      const last = [...(exit?.last_lines ?? [])].reverse().find((l) => l.trim() !== "")
        // Factorio starts its lines with seconds since start ("  12.345 Error ..."): noise in an alert.
        ?.replace(/^\s*\d+\.\d{3} /, "");
      return {
        kind: "crashed",
        title: PUSH_MSG.titleCrashed,
        body: last ? `${how}. Last log line: ${oneLine(last, LAST_LINE_MAX)}` : `${how}.`,
        // Its own tag: a later "started" must not hide that the game crashed.
        tag: "factorio-server-crash",
        url: "/",
        at: exit?.at ?? at,
      };
    }
  }
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
  bus: EventBus;
  store: PushSubscriptionStore;
  sender: PushSender;
  log: Logger;
  now: () => number;
}

export class Notifier {
  /** Tests shorten these; see RETRY_DELAYS_MS. */
  retryDelaysMs = RETRY_DELAYS_MS;
  #queues = new Map<number, DeviceQueue>();
  #idleWaiters: (() => void)[] = [];
  #abort = new AbortController();
  /** Status changes heard but not yet turned into queued messages. */
  #heard = 0;
  #unsubscribe: () => void;

  constructor(private readonly deps: NotifierDeps) {
    const offVersions = deps.bus.on("factorio.versions", (m) => {
      if (m.kind !== "update-available") return;
      this.#heard++;
      queueMicrotask(() => {
        try {
          this.#send("update", updatePayload(m.info, new Date(this.deps.now()).toISOString()));
        } catch (e) {
          deps.log.error("Could not queue push notifications", { error: String(e) });
        } finally {
          this.#heard--;
          this.#checkIdle();
        }
      });
    });
    const offStatus = deps.bus.on("server.status", (change) => {
      // Off the emitter's stack: reading subscriptions and encrypting is the notifier's time, not the supervisor's.
      this.#heard++;
      queueMicrotask(() => {
        try {
          this.#onStatus(change);
        } catch (e) {
          deps.log.error("Could not queue push notifications", { error: String(e) });
        } finally {
          this.#heard--;
          this.#checkIdle();
        }
      });
    });
    this.#unsubscribe = () => (offStatus(), offVersions());
  }

  #onStatus(change: PanelEvents["server.status"]): void {
    const event = eventOf(change);
    if (!event) return;
    this.#send(event, payloadFor(event, change, new Date(this.deps.now()).toISOString()));
  }

  #send(event: PushEvent, payload: PushPayload): void {
    const targets = this.deps.store.wanting(event);
    if (targets.length === 0) return;
    this.deps.log.info(`Sending "${event}" push notifications`, { devices: targets.length });
    for (const row of targets) this.enqueue(row.id, payload, DELIVERY[event]);
  }

  /** Queues an alert that is not a status change (a failed backup or task) for every device that wants it. */
  alert(event: PushEvent, title: string, body: string, url: string): void {
    const payload: PushPayload = { kind: event, title, body, tag: `factorio-${event}`, url, at: new Date(this.deps.now()).toISOString() };
    for (const row of this.deps.store.wanting(event)) this.enqueue(row.id, payload, DELIVERY[event]);
  }

  /** Queues a message for one device. */
  enqueue(deviceId: number, payload: PushPayload, options: DeliveryOptions): void {
    if (this.#abort.signal.aborted) return;
    let q = this.#queues.get(deviceId);
    if (!q) this.#queues.set(deviceId, (q = { jobs: [], busy: false }));
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
  async deliver(deviceId: number, payload: PushPayload, options: DeliveryOptions): Promise<SendResult | null> {
    const row = this.deps.store.byId(deviceId);
    if (!row) return null;
    const result = await this.deps.sender.send(row, payload, options, this.#abort.signal);
    const now = this.deps.now();
    const fields = { device: row.id, user: row.user_id, service: serviceHost(row.endpoint), kind: payload.kind };
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
      while (q.jobs.length > 0 && !this.#abort.signal.aborted) {
        const job = q.jobs[0];
        job.attempts++;
        const result = await this.deliver(deviceId, job.payload, job.options);
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
        this.deps.log.info("Will retry a push notification", { device: deviceId, attempt: job.attempts, in_ms: wait });
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
      if (q.jobs.length === 0 && !q.timer) this.#queues.delete(deviceId);
      this.#checkIdle();
    }
  }

  /** Resolves once nothing is queued, being sent or waiting for a retry. */
  settled(): Promise<void> {
    if (this.#queues.size === 0 && this.#heard === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #checkIdle(): void {
    if (this.#queues.size > 0 || this.#heard > 0) return;
    for (const w of this.#idleWaiters.splice(0)) w();
  }

  close(): void {
    this.#unsubscribe();
    this.#abort.abort();
    let dropped = 0;
    for (const q of this.#queues.values()) {
      clearTimeout(q.timer);
      dropped += q.jobs.length;
    }
    if (dropped > 0) this.deps.log.warn("Shutting down with push notifications unsent", { dropped });
    this.#queues.clear();
    this.#checkIdle();
  }
}
