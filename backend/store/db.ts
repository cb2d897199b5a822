// The panel's SQLite database (node:sqlite). Schema changes are migrations, applied in list order once each
// and recorded by id, so an id must never change once released. Add new ones at the end.

import { DatabaseSync } from "node:sqlite";
import { chmodSync, existsSync } from "node:fs";

export type Db = DatabaseSync;

export interface Migration {
  id: string;
  sql: string;
}

export const MIGRATIONS: Migration[] = [
  {
    id: "001-users-sessions",
    sql: `
      CREATE TABLE users (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        username TEXT NOT NULL UNIQUE COLLATE NOCASE,
        password_hash TEXT NOT NULL,
        role TEXT NOT NULL,
        email TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE sessions (
        token_hash TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        last_seen_at INTEGER NOT NULL,
        ip TEXT NOT NULL DEFAULT '',
        user_agent TEXT NOT NULL DEFAULT ''
      );
      CREATE INDEX sessions_user ON sessions(user_id);
    `,
  },
  {
    // Web Push: one row per browser (endpoint) that asked for alerts, owned by the signed-in user.
    id: "002-push-subscriptions",
    sql: `
      CREATE TABLE push_subscriptions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        endpoint TEXT NOT NULL UNIQUE,
        p256dh TEXT NOT NULL,
        auth TEXT NOT NULL,
        name TEXT NOT NULL,
        user_agent TEXT NOT NULL DEFAULT '',
        events TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        last_success_at INTEGER,
        last_failure_at INTEGER,
        last_error TEXT
      );
      CREATE INDEX push_subscriptions_user ON push_subscriptions(user_id);
    `,
  },
  {
    // Accounts and access (issue 17): the activity log, API tokens, TOTP, recovery codes and passkeys.
    // The id names the issue so parallel branches cannot pick the same one.
    id: "017-access",
    sql: `
      CREATE TABLE activity (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        username TEXT NOT NULL DEFAULT '',
        via TEXT NOT NULL DEFAULT '',
        address TEXT NOT NULL DEFAULT '',
        user_agent TEXT NOT NULL DEFAULT '',
        action TEXT NOT NULL,
        detail TEXT NOT NULL DEFAULT '',
        status INTEGER NOT NULL
      );
      CREATE INDEX activity_at ON activity(at);
      CREATE TABLE api_tokens (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        role TEXT NOT NULL,
        token_hash TEXT NOT NULL UNIQUE,
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        last_used_at INTEGER,
        last_used_address TEXT NOT NULL DEFAULT '',
        revoked_at INTEGER
      );
      CREATE INDEX api_tokens_user ON api_tokens(user_id);
      CREATE TABLE totp (
        user_id INTEGER PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
        secret TEXT NOT NULL,
        confirmed_at INTEGER,
        last_step INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE recovery_codes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        code_hash TEXT NOT NULL,
        used_at INTEGER
      );
      CREATE INDEX recovery_codes_user ON recovery_codes(user_id);
      CREATE TABLE passkeys (
        id TEXT PRIMARY KEY,
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        name TEXT NOT NULL,
        public_key BLOB NOT NULL,
        counter INTEGER NOT NULL,
        transports TEXT NOT NULL DEFAULT '',
        created_at INTEGER NOT NULL,
        last_used_at INTEGER
      );
      CREATE INDEX passkeys_user ON passkeys(user_id);
    `,
  },
];

/** Opens (creating if needed) the database at `path` (":memory:" for tests) and applies migrations. */
export function openDb(path: string, migrations: Migration[] = MIGRATIONS): Db {
  const fresh = path !== ":memory:" && !existsSync(path);
  const db = new DatabaseSync(path);
  if (fresh) chmodSync(path, 0o600);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA foreign_keys = ON");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const applied = new Set(
    (db.prepare("SELECT id FROM schema_migrations").all() as { id: string }[]).map((r) => r.id),
  );
  for (const m of migrations) {
    if (applied.has(m.id)) continue;
    db.exec("BEGIN");
    try {
      db.exec(m.sql);
      db.prepare("INSERT INTO schema_migrations (id, applied_at) VALUES (?, ?)").run(m.id, Date.now());
      db.exec("COMMIT");
    } catch (e) {
      db.exec("ROLLBACK");
      throw new Error(`Database migration ${m.id} failed: ${(e as Error).message}`);
    }
  }
  return db;
}

/** Runs `fn` in a transaction (node:sqlite has no helper for it). */
export function transaction<T>(db: Db, fn: () => T): T {
  db.exec("BEGIN IMMEDIATE");
  try {
    const result = fn();
    db.exec("COMMIT");
    return result;
  } catch (e) {
    db.exec("ROLLBACK");
    throw e;
  }
}
