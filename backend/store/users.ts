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

  list(): User[] {
    return this.db.prepare("SELECT username, role, email FROM users ORDER BY username COLLATE NOCASE")
      .all() as unknown as User[];
  }

  insert(u: { username: string; passwordHash: string; role: Role; email: string }, now: number): number {
    const r = this.db.prepare(
      "INSERT INTO users (username, password_hash, role, email, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(u.username, u.passwordHash, u.role, u.email, now, now);
    return Number(r.lastInsertRowid);
  }

  setRole(id: number, role: Role, now: number): void {
    this.db.prepare("UPDATE users SET role = ?, updated_at = ? WHERE id = ?").run(role, now, id);
  }

  setPassword(id: number, passwordHash: string, now: number): void {
    this.db.prepare("UPDATE users SET password_hash = ?, updated_at = ? WHERE id = ?").run(
      passwordHash,
      now,
      id,
    );
  }

  delete(id: number): void {
    this.db.prepare("DELETE FROM users WHERE id = ?").run(id);
  }
}

export function publicUser(row: UserRow): User {
  return { username: row.username, role: row.role, email: row.email };
}
