// The activity log: who did what, when, from where, with which result. Every state-changing request is
// recorded by the route guard in app.ts; console commands and sign-in steps add their own records.
// Records older than --activity-days are swept. Request bodies are never recorded (they hold passwords).

import type { Db } from "../store/db.ts";
import type { ActivityEntry } from "../../shared/access.ts";

/** What a handler adds to its request's record. */
export interface ActivityNote {
  /** Who acted when there is no session yet (the name a sign-in tried). */
  user?: string;
  /** The target in words ("alice -> operator"); never a secret. */
  detail?: string;
}

export interface ActivityRecord {
  username: string;
  via: string;
  address: string;
  userAgent: string;
  action: string;
  detail: string;
  status: number;
}

export interface ActivityQuery {
  user?: string;
  action?: string;
  /** Epoch ms bounds. */
  from?: number;
  to?: number;
  limit?: number;
}

export const ACTIVITY_LIMIT_DEFAULT = 200;
export const ACTIVITY_LIMIT_MAX = 10_000;

interface Row {
  id: number;
  at: number;
  username: string;
  via: string;
  address: string;
  user_agent: string;
  action: string;
  detail: string;
  status: number;
}

export class ActivityLog {
  constructor(private readonly db: Db, private readonly now: () => number, private readonly keepDays: number) {}

  record(r: ActivityRecord): void {
    this.db.prepare(
      `INSERT INTO activity (at, username, via, address, user_agent, action, detail, status)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      this.now(),
      r.username.slice(0, 200),
      r.via.slice(0, 200),
      r.address.slice(0, 100),
      r.userAgent.slice(0, 300),
      r.action.slice(0, 200),
      r.detail.slice(0, 500),
      r.status,
    );
  }

  /** Newest first. `user` is an exact name (any case), `action` a part of the action. */
  query(q: ActivityQuery = {}): ActivityEntry[] {
    const where: string[] = [];
    const args: (string | number)[] = [];
    if (q.user) {
      where.push("username = ? COLLATE NOCASE");
      args.push(q.user);
    }
    if (q.action) {
      where.push("instr(lower(action), lower(?)) > 0");
      args.push(q.action);
    }
    if (q.from !== undefined) {
      where.push("at >= ?");
      args.push(q.from);
    }
    if (q.to !== undefined) {
      where.push("at <= ?");
      args.push(q.to);
    }
    const limit = Math.min(Math.max(1, q.limit ?? ACTIVITY_LIMIT_DEFAULT), ACTIVITY_LIMIT_MAX);
    const sql = `SELECT id, at, username, via, address, user_agent, action, detail, status FROM activity
      ${where.length ? "WHERE " + where.join(" AND ") : ""} ORDER BY id DESC LIMIT ${limit}`;
    return (this.db.prepare(sql).all(...args) as unknown as Row[]).map((r) => ({
      id: r.id,
      at: new Date(r.at).toISOString(),
      username: r.username,
      via: r.via,
      address: r.address,
      user_agent: r.user_agent,
      action: r.action,
      detail: r.detail,
      status: r.status,
    }));
  }

  /** Deletes records older than the retention; returns how many. */
  sweep(): number {
    const cutoff = this.now() - this.keepDays * 24 * 3600_000;
    return Number(this.db.prepare("DELETE FROM activity WHERE at < ?").run(cutoff).changes);
  }
}

const CSV_COLUMNS: (keyof ActivityEntry)[] = ["at", "username", "via", "address", "user_agent", "action", "detail", "status"];

/**
 * RFC 4180 CSV. Cells that a spreadsheet would run as a formula (= + - @ at the start) get a leading
 * apostrophe: a user agent or a save name is text the panel did not write.
 */
export function activityCsv(entries: ActivityEntry[]): string {
  const cell = (v: unknown) => {
    let s = String(v);
    if (/^[=+\-@\t\r]/.test(s)) s = "'" + s;
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return [CSV_COLUMNS.join(","), ...entries.map((e) => CSV_COLUMNS.map((k) => cell(e[k])).join(","))].join("\r\n") +
    "\r\n";
}
