// The servers' records in panel.db: a name, the Factorio directory, the game and RCON ports. Server 1 is
// the panel's first server: its directory is --factorio-dir (root "" here) and its files stay where a
// one-server panel kept them, so an upgrade moves nothing.

import type { Db, Migration } from "../store/db.ts";

export interface ServerRecord {
  id: number;
  name: string;
  /** Its Factorio directory (write-data); "" for server 1, whose directory is --factorio-dir. */
  root: string;
  /** Whether the panel made `root` (an empty server, a copy, a backup) and deletes it with the server. */
  owned: boolean;
  port: number;
  /** 0 for server 1: --rcon-port decides (0 there picks a free port and keeps it). */
  rconPort: number;
  createdAt: number;
}

export const SERVERS_MIGRATION: Migration = {
  id: "020-servers",
  sql: `
    CREATE TABLE servers (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      name TEXT NOT NULL UNIQUE COLLATE NOCASE,
      root TEXT NOT NULL,
      owned INTEGER NOT NULL DEFAULT 1,
      port INTEGER NOT NULL,
      rcon_port INTEGER NOT NULL,
      created_at INTEGER NOT NULL
    );
    INSERT INTO servers (id, name, root, owned, port, rcon_port, created_at)
      VALUES (1, 'Server 1', '', 0, 34197, 0, 0);
  `,
};

interface Row {
  id: number;
  name: string;
  root: string;
  owned: number;
  port: number;
  rcon_port: number;
  created_at: number;
}

const recordOf = (r: Row): ServerRecord => ({
  id: r.id,
  name: r.name,
  root: r.root,
  owned: r.owned === 1,
  port: r.port,
  rconPort: r.rcon_port,
  createdAt: r.created_at,
});

export class ServerStore {
  constructor(private readonly db: Db) {}

  list(): ServerRecord[] {
    return (this.db.prepare("SELECT * FROM servers ORDER BY id").all() as unknown as Row[]).map(recordOf);
  }

  get(id: number): ServerRecord | null {
    const r = this.db.prepare("SELECT * FROM servers WHERE id = ?").get(id) as unknown as Row | undefined;
    return r ? recordOf(r) : null;
  }

  /** Adds a record; its id is the next one (ids are never reused, so an old link never finds another). */
  insert(r: Omit<ServerRecord, "id">): number {
    const res = this.db.prepare(
      "INSERT INTO servers (name, root, owned, port, rcon_port, created_at) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(r.name, r.root, r.owned ? 1 : 0, r.port, r.rconPort, r.createdAt);
    return Number(res.lastInsertRowid);
  }

  update(
    id: number,
    change: { name?: string; port?: number; rconPort?: number; root?: string; owned?: boolean },
  ): void {
    const r = this.get(id);
    if (!r) return;
    this.db.prepare(
      "UPDATE servers SET name = ?, port = ?, rcon_port = ?, root = ?, owned = ? WHERE id = ?",
    ).run(
      change.name ?? r.name,
      change.port ?? r.port,
      change.rconPort ?? r.rconPort,
      change.root ?? r.root,
      (change.owned ?? r.owned) ? 1 : 0,
      id,
    );
  }

  remove(id: number): void {
    this.db.prepare("DELETE FROM servers WHERE id = ?").run(id);
  }
}
