// The panel's SQLite database (node:sqlite). Schema changes are migrations, applied in list order once each
// and recorded by id, so an id must never change once released. Add new ones at the end.

import { DatabaseSync } from "node:sqlite";
import { chmodSync, existsSync, statSync } from "node:fs";
import { StartupError } from "../lib/errors.ts";
import { HEALTH_MIGRATION } from "../health/schema.ts";
import { SERVERS_MIGRATION } from "../servers/store.ts";

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
  {
    // Alerts (issue 16): quiet hours per push device; channels (Discord, Slack, ntfy, signed webhook), whose
    // URL, token and HMAC secret never leave the panel in full; addresses and devices users signed in from.
    id: "016-alerts",
    sql: `
      ALTER TABLE push_subscriptions ADD COLUMN quiet_start TEXT;
      ALTER TABLE push_subscriptions ADD COLUMN quiet_end TEXT;
      ALTER TABLE push_subscriptions ADD COLUMN quiet_tz TEXT;
      CREATE TABLE alert_channels (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        type TEXT NOT NULL,
        name TEXT NOT NULL,
        url TEXT NOT NULL,
        topic TEXT,
        priority INTEGER,
        token TEXT,
        secret TEXT,
        events TEXT NOT NULL,
        enabled INTEGER NOT NULL DEFAULT 1,
        created_at INTEGER NOT NULL,
        last_delivery_at INTEGER,
        last_result TEXT,
        last_ok INTEGER
      );
      CREATE TABLE known_sign_ins (
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,
        value TEXT NOT NULL,
        first_at INTEGER NOT NULL,
        PRIMARY KEY (user_id, kind, value)
      );
    `,
  },
  {
    // Player history (issue 16): sessions from the game's [JOIN]/[LEAVE] lines, chat, and how many were
    // online over time.
    id: "016-player-history",
    sql: `
      CREATE TABLE player_sessions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        name TEXT NOT NULL,
        joined_at INTEGER NOT NULL,
        left_at INTEGER,
        end_reason TEXT
      );
      CREATE INDEX player_sessions_name ON player_sessions(name);
      CREATE INDEX player_sessions_open ON player_sessions(left_at) WHERE left_at IS NULL;
      CREATE TABLE player_chat (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        at INTEGER NOT NULL,
        name TEXT NOT NULL,
        message TEXT NOT NULL
      );
      CREATE INDEX player_chat_at ON player_chat(at);
      CREATE TABLE player_counts (
        at INTEGER NOT NULL,
        count INTEGER NOT NULL
      );
      CREATE INDEX player_counts_at ON player_counts(at);
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
  HEALTH_MIGRATION,
  SERVERS_MIGRATION,
  {
    // Several servers (issue 49): a viewer's or operator's role per server (an admin has every server, so
    // has no rows); the role they had is their role on server 1, today's one. API tokens may be limited to
    // servers (a JSON list of ids; NULL: every server of their owner). Activity records name the server
    // acted on (NULL: panel-wide).
    id: "049-server-roles",
    sql: `
      CREATE TABLE server_roles (
        user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        server_id INTEGER NOT NULL,
        role TEXT NOT NULL,
        PRIMARY KEY (user_id, server_id)
      ) WITHOUT ROWID;
      CREATE INDEX server_roles_server ON server_roles(server_id);
      INSERT INTO server_roles (user_id, server_id, role) SELECT id, 1, role FROM users WHERE role <> 'admin';
      ALTER TABLE api_tokens ADD COLUMN servers TEXT;
      ALTER TABLE activity ADD COLUMN server_id INTEGER;
      CREATE INDEX activity_server ON activity(server_id, id);
    `,
  },
  {
    // Several servers (issue 49): the servers each push device and alert channel gets alerts about, a JSON
    // list of ids; NULL (what every existing one keeps) is every server.
    id: "049-alert-servers",
    sql: `
      ALTER TABLE push_subscriptions ADD COLUMN servers TEXT;
      ALTER TABLE alert_channels ADD COLUMN servers TEXT;
    `,
  },
];

/**
 * Opens (creating if needed) the database at `path` (":memory:" for tests) and applies migrations. An
 * existing file that is empty, has no tables or is not a readable database is never started over: that
 * would create a new admin and lose every user. StartupError says which file and what to do.
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
      if (check[0]?.quick_check !== "ok") {
        throw new Error(check.map((r) => r.quick_check).slice(0, 3).join("; "));
      }
      // A file with a header and no tables: what a copy of panel.db taken while the panel ran holds when
      // everything since the last checkpoint was in panel.db-wal and the copy left that file behind.
      if ((db.prepare("SELECT COUNT(*) AS n FROM sqlite_master").get() as { n: number }).n === 0) {
        db.close();
        db = undefined;
        throw new StartupError(
          `The database ${path} has no tables, so its users are gone (a copy taken while the panel ran also needs ` +
            `${path}-wal). Restore it from a backup, or delete it to start over with a new admin.`,
        );
      }
    }
  } catch (e) {
    if (e instanceof StartupError) throw e;
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
  cachePrepared(db);
  return db;
}

/**
 * Makes db.prepare() hand out one statement per SQL text, prepared on first use: every request looks its
 * session up, and preparing the two statements again each time was a quarter of a status request's CPU.
 * Safe because the stores only use run/get/all, which reset the statement on each call (no iterate()).
 * It also counts this connection's writes, for dataStamp().
 */
function cachePrepared(db: DatabaseSync): void {
  const prepare = db.prepare.bind(db);
  const exec = db.exec.bind(db);
  const statements = new Map<string, ReturnType<DatabaseSync["prepare"]>>();
  const writes = { n: 0 };
  db.prepare = (sql: string) => {
    let s = statements.get(sql);
    if (!s) {
      s = prepare(sql);
      // A read-only statement (SELECT, PRAGMA reads) never changes anything a cache could hold.
      if (!s.sourceSQL.trimStart().toUpperCase().startsWith("SELECT")) {
        // deno-lint-ignore no-explicit-any
        const counted = (fn: (...a: any[]) => unknown) => (...a: unknown[]) => (writes.n++, fn(...a));
        // deno-lint-ignore no-explicit-any
        const w = s as any;
        w.run = counted(s.run.bind(s));
        w.get = counted(s.get.bind(s));
        w.all = counted(s.all.bind(s));
      }
      statements.set(sql, s);
    }
    return s;
  };
  db.exec = (sql: string) => {
    writes.n++;
    exec(sql);
  };
  // Another process writing the file (none does today: the panel holds its data dir alone) shows in
  // SQLite's data_version. Asking costs as much as a session lookup, so it is asked at most once a second.
  const dataVersion = prepare("PRAGMA data_version");
  // Asked on every signed-in request, so it costs nearly nothing when nothing changed (the clock, and the
  // same string as long as neither count moved).
  let outside = { at: -Infinity, version: 0 };
  let stamp = { writes: -1, version: -1, text: "" };
  stamps.set(db, () => {
    const now = Date.now();
    if (now < outside.at || now - outside.at >= 1000) {
      outside = { at: now, version: (dataVersion.get() as { data_version: number }).data_version };
    }
    if (stamp.writes !== writes.n || stamp.version !== outside.version) {
      stamp = { writes: writes.n, version: outside.version, text: `${writes.n}:${outside.version}` };
    }
    return stamp.text;
  });
}

const stamps = new WeakMap<DatabaseSync, () => string>();

/**
 * Changes whenever anything may have been written to the database: at once for this connection's writes
 * (counted), within a second for another process's (SQLite's data_version). In-memory copies of rows
 * (the session cache) are valid while it stays the same.
 */
export function dataStamp(db: Db): string {
  return stamps.get(db)?.() ?? String(Math.random());
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
