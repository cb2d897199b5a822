// Player history in SQLite: one row per session (joined_at, left_at: NULL while online), chat lines, and
// samples of how many were online. Times are the panel's clock in ms.

import { type Db, transaction } from "../../store/db.ts";
import type { ChatLine, OnlineCountSample, PlayerHistoryRow } from "../../../shared/alerts.ts";
import type { StatementSync } from "node:sqlite";

const CHAT_LIMIT = 200;

export class PlayerLogStore {
  #open: StatementSync;
  #close: StatementSync;
  #chat: StatementSync;
  #sample: StatementSync;

  constructor(private readonly db: Db) {
    this.#open = db.prepare("INSERT INTO player_sessions (name, joined_at) VALUES (?, ?)");
    this.#close = db.prepare(
      "UPDATE player_sessions SET left_at = MAX(?, joined_at), end_reason = ? WHERE name = ? AND left_at IS NULL",
    );
    this.#chat = db.prepare("INSERT INTO player_chat (at, name, message) VALUES (?, ?, ?)");
    this.#sample = db.prepare("INSERT INTO player_counts (at, count) VALUES (?, ?)");
  }

  openNames(): string[] {
    return (this.db.prepare("SELECT name FROM player_sessions WHERE left_at IS NULL ORDER BY joined_at")
      .all() as {
        name: string;
      }[]).map((r) => r.name);
  }

  /** Opens a session unless the player has one open; true when it opened one. */
  join(name: string, at: number): boolean {
    if (this.isOnline(name)) return false;
    this.#open.run(name, at);
    return true;
  }

  isOnline(name: string): boolean {
    return this.db.prepare("SELECT 1 FROM player_sessions WHERE name = ? AND left_at IS NULL").get(name) !==
      undefined;
  }

  /** Ends the player's open session; true when there was one. */
  leave(name: string, at: number, reason: string): boolean {
    return Number(this.#close.run(at, reason, name).changes) > 0;
  }

  /** Ends every open session (the game stopped or crashed); returns how many. */
  leaveAll(at: number, reason: string): number {
    return Number(
      this.db.prepare(
        "UPDATE player_sessions SET left_at = MAX(?, joined_at), end_reason = ? WHERE left_at IS NULL",
      )
        .run(at, reason).changes,
    );
  }

  chat(at: number, name: string, message: string): void {
    this.#chat.run(at, name, message);
  }

  /** Many chat lines in one transaction. */
  chatBatch(lines: [number, string, string][]): void {
    transaction(this.db, () => {
      for (const [at, name, message] of lines) this.#chat.run(at, name, message);
    });
  }

  sample(at: number, count: number): void {
    this.#sample.run(at, count);
  }

  lastSampleAt(): number | null {
    return (this.db.prepare("SELECT MAX(at) AS at FROM player_counts").get() as { at: number | null }).at;
  }

  dropSamplesBefore(at: number): void {
    this.db.prepare("DELETE FROM player_counts WHERE at < ?").run(at);
  }

  history(now: number): PlayerHistoryRow[] {
    const rows = this.db.prepare(
      `SELECT name, MIN(joined_at) AS first, MAX(COALESCE(left_at, ?)) AS last,
              SUM(COALESCE(left_at, ?) - joined_at) AS play_ms, COUNT(*) AS sessions,
              SUM(left_at IS NULL) AS open
       FROM player_sessions GROUP BY name ORDER BY last DESC, name`,
    ).all(now, now) as {
      name: string;
      first: number;
      last: number;
      play_ms: number;
      sessions: number;
      open: number;
    }[];
    return rows.map((r) => ({
      name: r.name,
      first_seen: new Date(r.first).toISOString(),
      last_seen: new Date(r.last).toISOString(),
      play_time_s: Math.round(r.play_ms / 1000),
      sessions: r.sessions,
      online: r.open > 0,
    }));
  }

  /** Newest first; `q` matches the name or the message, as plain text (no wildcards). */
  searchChat(q: string): ChatLine[] {
    const like = `%${q.replace(/[\\%_]/g, (ch) => "\\" + ch)}%`;
    const rows = this.db.prepare(
      `SELECT at, name, message FROM player_chat
       WHERE ? = '' OR name LIKE ? ESCAPE '\\' OR message LIKE ? ESCAPE '\\'
       ORDER BY at DESC, id DESC LIMIT ${CHAT_LIMIT}`,
    ).all(q, like, like) as { at: number; name: string; message: string }[];
    return rows.map((r) => ({ at: new Date(r.at).toISOString(), name: r.name, message: r.message }));
  }

  /** Samples since `from`, led by the last one before it (what the count was when the window opened). */
  counts(from: number): OnlineCountSample[] {
    const before = this.db.prepare(
      "SELECT at, count FROM player_counts WHERE at < ? ORDER BY at DESC LIMIT 1",
    )
      .get(from) as { at: number; count: number } | undefined;
    const rows = this.db.prepare("SELECT at, count FROM player_counts WHERE at >= ? ORDER BY at").all(
      from,
    ) as {
      at: number;
      count: number;
    }[];
    const all = before ? [{ at: from, count: before.count }, ...rows] : rows;
    return all.map((r) => ({ at: new Date(r.at).toISOString(), count: r.count }));
  }
}
