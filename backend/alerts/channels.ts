// Alert channels: the rules for adding, changing and deleting them, "Send test", and the consumer that
// queues each dispatched alert for every enabled channel subscribed to it.

import { randomBytes } from "node:crypto";
import type { Db } from "../store/db.ts";
import type { Logger } from "../lib/log.ts";
import { Conflict, Invalid, NotFound } from "../lib/errors.ts";
import {
  type AlertChannel,
  type AlertEvent,
  CHANNEL_TYPES,
  type ChannelTestResult,
  type ChannelType,
  type CreatedAlertChannel,
  DEFAULT_ALERT_EVENTS,
  isAlertEvent,
} from "../../shared/alerts.ts";
import { CHANNEL_MSG, PUSH_MSG } from "../../shared/messages.ts";
import {
  channelNameProblem,
  channelPriorityProblem,
  channelTokenProblem,
  channelTopicProblem,
  channelUrl,
} from "../../shared/validation.ts";
import { type AlertConsumer, checkServers, type DispatchedAlert, serversOf, wantsServer } from "./alert.ts";
import { channelEvents, channelOf, type ChannelRow, ChannelStore, type NewChannelRow } from "./store.ts";
import { ChannelDelivery } from "./delivery.ts";
import type { Message } from "./formats.ts";

export const MAX_CHANNELS = 20;

export class Channels implements AlertConsumer {
  readonly store: ChannelStore;
  readonly delivery: ChannelDelivery;

  constructor(
    private readonly deps: { db: Db; log: Logger; now: () => number; serverExists: (id: number) => boolean },
  ) {
    this.store = new ChannelStore(deps.db);
    this.delivery = new ChannelDelivery({ store: this.store, log: deps.log, now: deps.now });
  }

  deliver(alert: DispatchedAlert): void {
    const message: Message = {
      kind: alert.kind,
      title: alert.title,
      body: alert.body,
      details: alert.details ?? {},
      at: alert.at,
      count: alert.count,
      server: alert.server,
    };
    for (const row of this.store.list()) {
      if (row.enabled !== 1) continue;
      if (!channelEvents(row).some((e) => alert.audience.includes(e))) continue;
      if (!wantsServer(serversOf(row.servers), alert.server)) continue;
      this.delivery.enqueue(row.id, message);
    }
  }

  list(): AlertChannel[] {
    return this.store.list().map(channelOf);
  }

  create(body: Record<string, unknown>): CreatedAlertChannel {
    const type = body.type;
    if (typeof type !== "string" || !(CHANNEL_TYPES as readonly string[]).includes(type)) {
      throw new Invalid(CHANNEL_MSG.typeInvalid);
    }
    const t = type as ChannelType;
    const row: NewChannelRow = {
      type: t,
      name: checkName(body.name),
      url: checkUrl(body.url),
      topic: t === "ntfy" ? checkTopic(body.topic) : null,
      priority: t === "ntfy" ? (body.priority === undefined ? 3 : checkPriority(body.priority)) : null,
      token: t === "ntfy" && body.token !== undefined && body.token !== "" ? checkToken(body.token) : null,
      // The receiver checks this HMAC key; it is shown once, in this answer.
      secret: t === "webhook" ? randomBytes(32).toString("base64url") : null,
      events: body.events === undefined ? [...DEFAULT_ALERT_EVENTS] : checkEvents(body.events),
      servers: body.servers === undefined ? null : checkServers(body.servers, this.deps.serverExists),
      enabled: body.enabled === undefined ? true : checkEnabled(body.enabled),
    };
    if (this.store.count() >= MAX_CHANNELS) throw new Conflict(CHANNEL_MSG.tooMany(MAX_CHANNELS));
    const saved = this.store.insert(row, this.deps.now());
    this.deps.log.info("Alert channel added", { channel: saved.id, type: saved.type });
    return { ...channelOf(saved), ...(row.secret ? { secret: row.secret } : {}) };
  }

  update(id: number, body: Record<string, unknown>): AlertChannel {
    const row = this.#row(id);
    const change: Parameters<ChannelStore["update"]>[1] = {};
    if (body.name !== undefined) change.name = checkName(body.name);
    if (body.url !== undefined) change.url = checkUrl(body.url);
    if (body.events !== undefined) change.events = checkEvents(body.events);
    if (body.servers !== undefined) change.servers = checkServers(body.servers, this.deps.serverExists);
    if (body.enabled !== undefined) change.enabled = checkEnabled(body.enabled);
    if (row.type === "ntfy") {
      if (body.topic !== undefined) change.topic = checkTopic(body.topic);
      if (body.priority !== undefined) change.priority = checkPriority(body.priority);
      if (body.token !== undefined) {
        change.token = body.token === null || body.token === "" ? null : checkToken(body.token);
      }
    }
    // A channel imported without its secrets (transfer/) has no URL (and an ntfy one no topic) until the
    // admin enters them: switched on like that, every alert would fail.
    if (change.enabled ?? row.enabled === 1) {
      if ((change.url ?? row.url) === "") throw new Invalid(CHANNEL_MSG.urlMissing);
      if (row.type === "ntfy" && !(change.topic ?? row.topic)) throw new Invalid(CHANNEL_MSG.topicMissing);
    }
    this.store.update(id, change);
    return channelOf(this.store.byId(id)!);
  }

  delete(id: number): string {
    const row = this.#row(id);
    this.store.delete(id);
    this.deps.log.info("Alert channel deleted", { channel: id });
    return CHANNEL_MSG.deleted(row.name);
  }

  /** Sends the test message now (not queued, no retry) and says how it went. */
  async test(id: number): Promise<ChannelTestResult> {
    const row = this.#row(id);
    const result = await this.delivery.send(row, {
      kind: "test",
      title: CHANNEL_MSG.titleTest,
      body: CHANNEL_MSG.bodyTest,
      details: { Channel: row.name },
      at: new Date(this.deps.now()).toISOString(),
      count: 1,
      server: null,
    });
    if (result.kind === "delivered") {
      return {
        ok: true,
        status: result.status,
        message: `Sent to ${row.name} (answered HTTP ${result.status}).`,
      };
    }
    return { ok: false, status: result.status, message: `${row.name}: ${result.error}` };
  }

  #row(id: number): ChannelRow {
    const row = this.store.byId(id);
    if (!row) throw new NotFound(CHANNEL_MSG.notFound);
    return row;
  }

  close(): void {
    this.delivery.close();
  }
}

// The field rules are shared with the import and the Notifications form (shared/validation.ts).
function checkName(value: unknown): string {
  const problem = channelNameProblem(value);
  if (problem) throw new Invalid(problem);
  return (value as string).trim();
}

function checkUrl(value: unknown): string {
  const url = channelUrl(value);
  if (url === null) throw new Invalid(CHANNEL_MSG.urlInvalid);
  return url;
}

function checkTopic(value: unknown): string {
  const problem = channelTopicProblem(value);
  if (problem) throw new Invalid(problem);
  return value as string;
}

function checkPriority(value: unknown): number {
  const problem = channelPriorityProblem(value);
  if (problem) throw new Invalid(problem);
  return value as number;
}

function checkToken(value: unknown): string {
  const problem = channelTokenProblem(value);
  if (problem) throw new Invalid(problem);
  return value as string;
}

function checkEnabled(value: unknown): boolean {
  if (typeof value !== "boolean") throw new Invalid(CHANNEL_MSG.enabledInvalid);
  return value;
}

function checkEvents(value: unknown): AlertEvent[] {
  if (!Array.isArray(value) || !value.every(isAlertEvent)) throw new Invalid(PUSH_MSG.eventsInvalid);
  return [...new Set(value)];
}
