// Storage of panel users. Rules (who may be deleted, what a valid user is) live in auth/accounts.ts.

import type { Db } from "./db.ts";
import type { Role, User } from "../../shared/api.ts";

export interface UserRow {
  id: number;
  username: string;
  password_hash: string;
  role: Role;
  email: string;
}

export class UserStore {
  constructor(private readonly db: Db) {}

  count(): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM users").get() as { n: number }).n;
  }

  countByRole(role: Role): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM users WHERE role = ?").get(role) as { n: number }).n;
  }

  byName(username: string): UserRow | undefined {
    return this.db.prepare("SELECT id, username, password_hash, role, email FROM users WHERE username = ?")
      .get(username) as UserRow | undefined;
  }

  byId(id: number): UserRow | undefined {
    return this.db.prepare("SELECT id, username, password_hash, role, email FROM users WHERE id = ?")
      .get(id) as UserRow | undefined;
  }

  list(): (User & { id: number })[] {
    return this.db.prepare("SELECT id, username, role, email FROM users ORDER BY username COLLATE NOCASE")
      .all() as unknown as (User & { id: number })[];
  }

  /**
   * A viewer or operator gets their role on server 1 (as every user had before there were several
   * servers), or the roles of `servers` when given. Callers wanting both rows or neither run it in a
   * transaction.
   */
  insert(
    u: { username: string; passwordHash: string; role: Role; email: string },
    now: number,
    servers?: Map<number, Role>,
  ): number {
    const r = this.db.prepare(
      "INSERT INTO users (username, password_hash, role, email, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(u.username, u.passwordHash, u.role, u.email, now, now);
    const id = Number(r.lastInsertRowid);
    if (u.role !== "admin") {
      for (const [server, role] of servers ?? [[1, u.role]]) this.setServerRole(id, server, role);
    }
    return id;
  }

  /**
   * The user's role; for a viewer or operator it is their role on server 1 (the old panel's one role), so
   * that row follows. An admin has every server: their rows go.
   */
  setRole(id: number, role: Role, now: number): void {
    this.db.prepare("UPDATE users SET role = ?, updated_at = ? WHERE id = ?").run(role, now, id);
    if (role === "admin") this.clearServerRoles({ userId: id });
    else this.setServerRole(id, 1, role);
  }

  setPassword(id: number, passwordHash: string, now: number): void {
    this.db.prepare("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?").run(
      passwordHash,
      now,
      id,
    );
  }

  /** A viewer's or operator's roles by server id, lowest id first (an admin has no rows: every server). */
  serverRoles(userId: number): Map<number, Role> {
    const rows = this.db.prepare(
      "SELECT server_id, role FROM server_roles WHERE user_id = ? ORDER BY server_id",
    )
      .all(userId) as { server_id: number; role: Role }[];
    return new Map(rows.map((r) => [r.server_id, r.role]));
  }

  /** Every non-admin's roles, by user id then server id (the user list, in one query). */
  allServerRoles(): Map<number, Map<number, Role>> {
    const all = new Map<number, Map<number, Role>>();
    const rows = this.db.prepare(
      "SELECT user_id, server_id, role FROM server_roles ORDER BY user_id, server_id",
    )
      .all() as { user_id: number; server_id: number; role: Role }[];
    for (const r of rows) {
      let roles = all.get(r.user_id);
      if (!roles) all.set(r.user_id, roles = new Map());
      roles.set(r.server_id, r.role);
    }
    return all;
  }

  /** Sets (a role) or removes (null) a user's role on a server. */
  setServerRole(userId: number, serverId: number, role: Role | null): void {
    if (role === null) {
      this.db.prepare("DELETE FROM server_roles WHERE user_id = ? AND server_id = ?").run(userId, serverId);
    } else {
      this.db.prepare(
        "INSERT INTO server_roles (user_id, server_id, role) VALUES (?, ?, ?) " +
          "ON CONFLICT (user_id, server_id) DO UPDATE SET role = excluded.role",
      ).run(userId, serverId, role);
    }
  }

  /** Removes every server role of a user (they became an admin), or everyone's on a server (it was deleted). */
  clearServerRoles(of: { userId: number } | { serverId: number }): void {
    if ("userId" in of) this.db.prepare("DELETE FROM server_roles WHERE user_id = ?").run(of.userId);
    else this.db.prepare("DELETE FROM server_roles WHERE server_id = ?").run(of.serverId);
  }

  delete(id: number): void {
    this.db.prepare("DELETE FROM users WHERE id = ?").run(id);
  }
}

export function publicUser(row: UserRow): User {
  return { username: row.username, role: row.role, email: row.email };
}
