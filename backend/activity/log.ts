// The activity log: who did what, when, from where, with which result. Every state-changing request is
// recorded by the route guard in http/app.ts; console commands and sign-in steps add their own records.
// Records older than --activity-days are swept, and the table keeps at most ACTIVITY_ROWS_MAX (the oldest
// go first). Sign-ins the limiter refused are counted in one record per address and 15 minutes. Request
// bodies are never recorded (they hold passwords).

import type { Db } from "../store/db.ts";
import { type ActivityEntry, REFUSED_SIGN_INS } from "../../shared/access.ts";

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
  /** The server acted on; absent or null: a panel-wide action. */
  server?: number | null;
}

export interface ActivityQuery {
  user?: string;
  action?: string;
  /** Epoch ms bounds. */
  from?: number;
  to?: number;
  limit?: number;
  /** Only records older than this id: the next page of a list read newest first. */
  before?: number;
  /** Only the records of this server. */
  server?: number;
}

export const ACTIVITY_LIMIT_DEFAULT = 200;
export const ACTIVITY_LIMIT_MAX = 10_000;

/**
 * The most records kept, whatever --activity-days says: past it the oldest go first. About 100 days of a
 * thousand changes a day; a row is ~0.3 KiB, so the table stays within some tens of MiB.
 */
export const ACTIVITY_ROWS_MAX = 100_000;

/** Refused sign-ins (429) from one address within this long share one summary record. */
export const REFUSED_WINDOW_MS = 15 * 60_000;
/** How often, at most, a summary record's count is written while refusals keep coming. */
const REFUSED_WRITE_MS = 1000;

/** The action of a summary of refused sign-in attempts. */
export const REFUSED_ACTION = REFUSED_SIGN_INS;

interface Refusals {
  id: number;
  first: number;
  last: number;
  count: number;
  written: number;
  /** The names tried, the first NAMES_KEPT of them. */
  names: Set<string>;
}

const NAMES_KEPT = 100;

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
  server_id: number | null;
}

export class ActivityLog {
  /** The open summary record of refused sign-ins, per address. */
  #refused = new Map<string, Refusals>();

  constructor(
    private readonly db: Db,
    private readonly now: () => number,
    private readonly keepDays: number,
  ) {}

  record(r: ActivityRecord): number {
    const id = Number(
      this.db.prepare(
        `INSERT INTO activity (at, username, via, address, user_agent, action, detail, status, server_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        this.now(),
        r.username.slice(0, 200),
        r.via.slice(0, 200),
        r.address.slice(0, 100),
        r.userAgent.slice(0, 300),
        r.action.slice(0, 200),
        r.detail.slice(0, 500),
        r.status,
        r.server ?? null,
      ).lastInsertRowid,
    );
    // The cap: ids only grow, so everything ACTIVITY_ROWS_MAX below the newest is the oldest.
    this.db.prepare("DELETE FROM activity WHERE id <= ?").run(id - ACTIVITY_ROWS_MAX);
    return id;
  }

  /**
   * A sign-in attempt the limiter refused (429), by someone not signed in. A flood of them would be a
   * record each (30,000 requests were 30,000 rows), so one record per address and REFUSED_WINDOW_MS
   * counts them, with the names tried; its count is written at most once a second (flush() at shutdown).
   */
  recordRefused(r: { address: string; username: string; userAgent: string }): void {
    const now = this.now();
    let entry = this.#refused.get(r.address);
    if (!entry || now - entry.first >= REFUSED_WINDOW_MS) {
      if (this.#refused.size >= 10_000) this.#sweepRefused(now);
      entry = { id: 0, first: now, last: now, count: 0, written: 0, names: new Set() };
      this.#refused.set(r.address, entry);
    }
    entry.count++;
    entry.last = now;
    if (r.username && entry.names.size < NAMES_KEPT) entry.names.add(r.username.slice(0, 100));
    if (entry.id === 0) {
      entry.id = this.record({
        username: [...entry.names][0] ?? "",
        via: "",
        address: r.address,
        userAgent: r.userAgent,
        action: REFUSED_ACTION,
        detail: refusedDetail(entry),
        status: 429,
      });
      entry.written = now;
    } else if (now - entry.written >= REFUSED_WRITE_MS) this.#write(entry);
  }

  /** Writes the counts not written yet (shutdown). */
  flush(): void {
    for (const entry of this.#refused.values()) if (entry.written < entry.last) this.#write(entry);
  }

  #write(entry: Refusals): void {
    entry.written = this.now();
    this.db.prepare("UPDATE activity SET detail = ? WHERE id = ?").run(refusedDetail(entry), entry.id);
  }

  #sweepRefused(now: number): void {
    for (const [address, entry] of this.#refused) {
      if (now - entry.first < REFUSED_WINDOW_MS) continue;
      if (entry.written < entry.last) this.#write(entry);
      this.#refused.delete(address);
    }
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
    if (q.before !== undefined) {
      where.push("id < ?");
      args.push(q.before);
    }
    if (q.server !== undefined) {
      where.push("server_id = ?");
      args.push(q.server);
    }
    const limit = Math.min(Math.max(1, q.limit ?? ACTIVITY_LIMIT_DEFAULT), ACTIVITY_LIMIT_MAX);
    const sql =
      `SELECT id, at, username, via, address, user_agent, action, detail, status, server_id FROM activity
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
      server: r.server_id,
    }));
  }

  /** Deletes records older than the retention, and the oldest past ACTIVITY_ROWS_MAX; returns how many. */
  sweep(): number {
    const cutoff = this.now() - this.keepDays * 24 * 3600_000;
    const old = Number(this.db.prepare("DELETE FROM activity WHERE at < ?").run(cutoff).changes);
    const newest =
      (this.db.prepare("SELECT MAX(id) AS id FROM activity").get() as { id: number | null }).id ?? 0;
    return old +
      Number(this.db.prepare("DELETE FROM activity WHERE id <= ?").run(newest - ACTIVITY_ROWS_MAX).changes);
  }
}

/** "1,234 sign-in attempts refused by the limit in 3 min 20 s; names tried: admin, bob and 3 more". */
function refusedDetail(e: Refusals): string {
  const seconds = Math.round((e.last - e.first) / 1000);
  const span = seconds < 60 ? `${seconds} s` : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  const shown = [...e.names].slice(0, 5);
  const more = e.names.size - shown.length;
  const names = shown.length === 0
    ? ""
    : `; names tried: ${shown.join(", ")}${
      more > 0 ? ` and ${more}${e.names.size >= NAMES_KEPT ? "+" : ""} more` : ""
    }`;
  return `${e.count} sign-in attempt${e.count === 1 ? "" : "s"} refused by the limit in ${span}${names}`;
}

const CSV_COLUMNS: (keyof ActivityEntry)[] = [
  "at",
  "username",
  "via",
  "address",
  "user_agent",
  "action",
  "detail",
  "status",
  "server",
];

/**
 * RFC 4180 CSV. Cells that a spreadsheet would run as a formula (= + - @ at the start) get a leading
 * apostrophe: a user agent or a save name is text the panel did not write.
 */
export function activityCsv(entries: ActivityEntry[]): string {
  const cell = (v: unknown) => {
    let s = v === null ? "" : String(v);
    if (/^[=+\-@\t\r]/.test(s)) s = "'" + s;
    return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
  };
  return [CSV_COLUMNS.join(","), ...entries.map((e) => CSV_COLUMNS.map((k) => cell(e[k])).join(","))].join(
    "\r\n",
  ) +
    "\r\n";
}
