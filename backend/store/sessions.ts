// Server-side sessions. The browser holds a random token; only its SHA-256 is stored, so a leaked database
// does not hand out live sessions.

import type { Db } from "./db.ts";

export interface SessionRow {
  token_hash: string;
  user_id: number;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
}

/** A session as its owner sees it in the list of signed-in devices (rowid as a stable, non-secret id). */
export interface SessionListRow {
  id: number;
  token_hash: string;
  user_id: number;
  username: string;
  ip: string;
  user_agent: string;
  created_at: number;
  last_seen_at: number;
}

export class SessionStore {
  constructor(private readonly db: Db) {}

  insert(
    s: { tokenHash: string; userId: number; now: number; expiresAt: number; ip: string; userAgent: string },
  ) {
    this.db.prepare(
      `INSERT INTO sessions (token_hash, user_id, created_at, expires_at, last_seen_at, ip, user_agent)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
    ).run(s.tokenHash, s.userId, s.now, s.expiresAt, s.now, s.ip, s.userAgent.slice(0, 300));
  }

  get(tokenHash: string): SessionRow | undefined {
    return this.db.prepare(
      "SELECT token_hash, user_id, created_at, expires_at, last_seen_at FROM sessions WHERE token_hash = ?",
    ).get(tokenHash) as SessionRow | undefined;
  }

  /** True when the user has a session opened from `ip`. */
  hasAddress(userId: number, ip: string): boolean {
    return this.db.prepare("SELECT 1 FROM sessions WHERE user_id = ? AND ip = ? LIMIT 1").get(userId, ip) !==
      undefined;
  }

  touch(tokenHash: string, now: number, expiresAt: number): void {
    this.db.prepare("UPDATE sessions SET last_seen_at = ?, expires_at = ? WHERE token_hash = ?")
      .run(now, expiresAt, tokenHash);
  }

  delete(tokenHash: string): void {
    this.db.prepare("DELETE FROM sessions WHERE token_hash = ?").run(tokenHash);
  }

  /** Deletes every session of a user (optionally but one) and returns the deleted hashes. */
  deleteForUser(userId: number, exceptHash?: string): string[] {
    const rows = this.db.prepare("SELECT token_hash FROM sessions WHERE user_id = ?").all(userId) as {
      token_hash: string;
    }[];
    const doomed = rows.map((r) => r.token_hash).filter((h) => h !== exceptHash);
    const del = this.db.prepare("DELETE FROM sessions WHERE token_hash = ?");
    for (const h of doomed) del.run(h);
    return doomed;
  }

  /** Live sessions, of one user or (null) of everyone, most recently seen first. */
  list(userId: number | null, now: number): SessionListRow[] {
    return this.db.prepare(
      `SELECT s.rowid AS id, s.token_hash, s.user_id, u.username, s.ip, s.user_agent, s.created_at, s.last_seen_at
       FROM sessions s JOIN users u ON u.id = s.user_id
       WHERE s.expires_at > ? AND (? IS NULL OR s.user_id = ?) ORDER BY s.last_seen_at DESC`,
    ).all(now, userId, userId) as unknown as SessionListRow[];
  }

  byRowId(id: number): { token_hash: string; user_id: number } | undefined {
    return this.db.prepare("SELECT token_hash, user_id FROM sessions WHERE rowid = ?").get(id) as
      | { token_hash: string; user_id: number }
      | undefined;
  }

  deleteExpired(now: number): number {
    return Number(this.db.prepare("DELETE FROM sessions WHERE expires_at <= ?").run(now).changes);
  }
}
