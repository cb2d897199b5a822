// The panel's SQLite database (node:sqlite). Schema changes are migrations, applied in list order once each
// and recorded by id, so an id must never change once released. Add new ones at the end.

import { DatabaseSync } from "node:sqlite";
import { chmodSync, existsSync, statSync } from "node:fs";
import { StartupError } from "../errors.ts";

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
    // The index of the backup files (the files are the truth; it is repaired from them at start-up), so
    // listing a thousand backups reads one table instead of a thousand zips.
    id: "014-backups",
    sql: `
      CREATE TABLE backups (
        id TEXT PRIMARY KEY,
        file TEXT NOT NULL,
        created INTEGER NOT NULL,
        reason TEXT NOT NULL,
        save TEXT NOT NULL,
        size INTEGER NOT NULL,
        mtime INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        locked INTEGER NOT NULL DEFAULT 0,
        game_version TEXT NOT NULL,
        includes TEXT NOT NULL,
        mods TEXT NOT NULL
      );
      CREATE INDEX backups_created ON backups(created);
    `,
  },
  {
    // Schedules (cron + ordered tasks) and the record of their runs.
    id: "014-schedules",
    sql: `
      CREATE TABLE schedules (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        cron TEXT NOT NULL,
        condition TEXT NOT NULL,
        enabled INTEGER NOT NULL,
        run_missed INTEGER NOT NULL DEFAULT 0,
        tasks TEXT NOT NULL,
        checked_at INTEGER NOT NULL,
        created_at INTEGER NOT NULL
      );
      CREATE TABLE schedule_runs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        schedule_id INTEGER NOT NULL REFERENCES schedules(id) ON DELETE CASCADE,
        started INTEGER NOT NULL,
        finished INTEGER,
        trigger TEXT NOT NULL,
        result TEXT NOT NULL,
        output TEXT NOT NULL DEFAULT ''
      );
      CREATE INDEX schedule_runs_schedule ON schedule_runs(schedule_id, id);
    `,
  },
];

/**
 * Opens (creating if needed) the database at `path` (":memory:" for tests) and applies migrations. An
 * existing file that is empty or not a readable database is never started over: that would create a new
 * admin and lose every user. StartupError says which file and what to do.
 */
export function openDb(path: string, migrations: Migration[] = MIGRATIONS): Db {
  const fresh = path !== ":memory:" && !existsSync(path);
  if (!fresh && path !== ":memory:" && statSync(path).size === 0) {
    throw new StartupError(
      `The database ${path} is empty (0 bytes), so its users are gone. Restore it from a backup, or delete ` +
        "it to start over with a new admin.",
    );
  }
  let db: DatabaseSync | undefined;
  try {
    db = new DatabaseSync(path);
    if (!fresh) {
      const check = db.prepare("PRAGMA quick_check").all() as { quick_check: string }[];
      if (check[0]?.quick_check !== "ok") throw new Error(check.map((r) => r.quick_check).slice(0, 3).join("; "));
    }
  } catch (e) {
    db?.close();
    throw new StartupError(
      `The database ${path} cannot be read (${(e as Error).message}). Restore it from a backup, or move it ` +
        "aside to start over with a new admin (its users, sessions and push devices are then lost).",
    );
  }
  return migrate(db, path, fresh, migrations);
}

function migrate(db: DatabaseSync, path: string, fresh: boolean, migrations: Migration[]): Db {
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
