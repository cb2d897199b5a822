// Storage of Web Push subscriptions: one row per browser endpoint, owned by a user (deleted with them).
// Rules (validation, limits, who may touch what) live in push/subscriptions.ts.

import type { Db } from "./db.ts";
import { isPushEvent, type PushDevice, type PushEvent } from "../../shared/api.ts";
import type { QuietHours } from "../../shared/alerts.ts";
import { serversColumn, serversOf } from "../alerts/alert.ts";

export interface PushSubscriptionRow {
  id: number;
  user_id: number;
  endpoint: string;
  p256dh: string;
  auth: string;
  name: string;
  events: string;
  created_at: number;
  last_success_at: number | null;
  last_failure_at: number | null;
  last_error: string | null;
  quiet_start: string | null;
  quiet_end: string | null;
  quiet_tz: string | null;
  /** JSON list of server ids, or NULL: every server the user may see. */
  servers: string | null;
}

const COLUMNS =
  "id, user_id, endpoint, p256dh, auth, name, events, created_at, last_success_at, last_failure_at, last_error, quiet_start, quiet_end, quiet_tz, servers";

export function eventsOf(row: Pick<PushSubscriptionRow, "events">): PushEvent[] {
  return row.events.split(",").filter(isPushEvent);
}

export function deviceOf(row: PushSubscriptionRow): PushDevice {
  const failedLast = row.last_failure_at !== null && (row.last_success_at ?? 0) <= row.last_failure_at;
  return {
    id: row.id,
    name: row.name,
    endpoint: row.endpoint,
    events: eventsOf(row),
    servers: serversOf(row.servers),
    created_at: new Date(row.created_at).toISOString(),
    last_success_at: row.last_success_at === null ? null : new Date(row.last_success_at).toISOString(),
    last_error: failedLast ? row.last_error : null,
    quiet_hours: row.quiet_start && row.quiet_end && row.quiet_tz
      ? { start: row.quiet_start, end: row.quiet_end, tz: row.quiet_tz }
      : null,
  };
}

export class PushSubscriptionStore {
  constructor(private readonly db: Db) {}

  byId(id: number): PushSubscriptionRow | undefined {
    return this.db.prepare(`SELECT ${COLUMNS} FROM push_subscriptions WHERE id = ?`).get(id) as
      | PushSubscriptionRow
      | undefined;
  }

  byEndpoint(endpoint: string): PushSubscriptionRow | undefined {
    return this.db.prepare(`SELECT ${COLUMNS} FROM push_subscriptions WHERE endpoint = ?`).get(endpoint) as
      | PushSubscriptionRow
      | undefined;
  }

  forUser(userId: number): PushSubscriptionRow[] {
    return this.db.prepare(`SELECT ${COLUMNS} FROM push_subscriptions WHERE user_id = ? ORDER BY id`)
      .all(userId) as unknown as PushSubscriptionRow[];
  }

  /** Every subscription that wants `event`. */
  wanting(event: PushEvent): PushSubscriptionRow[] {
    return this.wantingAny([event]);
  }

  /** Every subscription that wants any of `events`. */
  wantingAny(events: readonly PushEvent[]): PushSubscriptionRow[] {
    return (this.db.prepare(`SELECT ${COLUMNS} FROM push_subscriptions ORDER BY id`)
      .all() as unknown as PushSubscriptionRow[])
      .filter((r) => eventsOf(r).some((e) => events.includes(e)));
  }

  countForUser(userId: number): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM push_subscriptions WHERE user_id = ?").get(userId) as {
      n: number;
    }).n;
  }

  count(): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM push_subscriptions").get() as { n: number }).n;
  }

  /**
   * Inserts, or takes over the row with the same endpoint: an endpoint is one browser profile, and
   * whoever signs in there and subscribes now owns its alerts. Keys are replaced (a browser may
   * resubscribe with fresh keys); the delivery history and the choice of servers start again.
   */
  upsert(s: {
    userId: number;
    endpoint: string;
    p256dh: string;
    auth: string;
    name: string;
    userAgent: string;
    events: PushEvent[];
    now: number;
  }): PushSubscriptionRow {
    this.db.prepare(
      `INSERT INTO push_subscriptions (user_id, endpoint, p256dh, auth, name, user_agent, events, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(endpoint) DO UPDATE SET
         user_id = excluded.user_id, p256dh = excluded.p256dh, auth = excluded.auth, name = excluded.name,
         user_agent = excluded.user_agent, events = excluded.events, created_at = excluded.created_at,
         servers = NULL, last_success_at = NULL, last_failure_at = NULL, last_error = NULL`,
    ).run(
      s.userId,
      s.endpoint,
      s.p256dh,
      s.auth,
      s.name,
      s.userAgent.slice(0, 300),
      s.events.join(","),
      s.now,
    );
    return this.byEndpoint(s.endpoint)!;
  }

  update(
    id: number,
    change: { name?: string; events?: PushEvent[]; servers?: number[] | null; quiet?: QuietHours | null },
  ): void {
    if (change.servers !== undefined) {
      this.db.prepare("UPDATE push_subscriptions SET servers = ? WHERE id = ?").run(
        serversColumn(change.servers),
        id,
      );
    }
    if (change.quiet !== undefined) {
      const q = change.quiet;
      this.db.prepare(
        "UPDATE push_subscriptions SET quiet_start = ?, quiet_end = ?, quiet_tz = ? WHERE id = ?",
      )
        .run(q?.start ?? null, q?.end ?? null, q?.tz ?? null, id);
    }
    if (change.name !== undefined) {
      this.db.prepare("UPDATE push_subscriptions SET name = ? WHERE id = ?").run(change.name, id);
    }
    if (change.events !== undefined) {
      this.db.prepare("UPDATE push_subscriptions SET events = ? WHERE id = ?").run(
        change.events.join(","),
        id,
      );
    }
  }

  delivered(id: number, now: number): void {
    this.db.prepare("UPDATE push_subscriptions SET last_success_at = ? WHERE id = ?").run(now, id);
  }

  failed(id: number, now: number, error: string): void {
    this.db.prepare("UPDATE push_subscriptions SET last_failure_at = ?, last_error = ? WHERE id = ?")
      .run(now, error.slice(0, 300), id);
  }

  delete(id: number): boolean {
    return Number(this.db.prepare("DELETE FROM push_subscriptions WHERE id = ?").run(id).changes) > 0;
  }

  /** Takes a deleted server out of every device's list (an empty list stays: panel alerts only). */
  forgetServer(id: number): void {
    const rows = this.db.prepare(`SELECT ${COLUMNS} FROM push_subscriptions WHERE servers IS NOT NULL`)
      .all() as unknown as PushSubscriptionRow[];
    for (const row of rows) {
      const servers = serversOf(row.servers);
      if (servers?.includes(id)) this.update(row.id, { servers: servers.filter((s) => s !== id) });
    }
  }

  deleteAll(): number {
    return Number(this.db.prepare("DELETE FROM push_subscriptions").run().changes);
  }
}
