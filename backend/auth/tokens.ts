// API tokens for scripts: per user, with a role no stronger than the user's, an expiry, the last use, and
// revoke. The token is shown once; only its SHA-256 is stored (it is 32 random bytes, so a fast hash is
// enough: there is nothing to guess).

import { randomBytes } from "node:crypto";
import type { Db } from "../store/db.ts";
import { Forbidden, Invalid, NotFound } from "../lib/errors.ts";
import { isRole, type Role, roleAtLeast } from "../../shared/api.ts";
import { ACCESS_MSG, type ApiToken, TOKEN_MAX_DAYS } from "../../shared/access.ts";
import { hashToken } from "./accounts.ts";

/** Tokens start with this, so a leaked one is recognisable (secret scanners, logs). */
export const TOKEN_PREFIX = "fpt_";
const NAME_MAX = 100;
const TOKENS_PER_USER_MAX = 50;

interface Row {
  id: number;
  user_id: number;
  name: string;
  role: Role;
  created_at: number;
  expires_at: number;
  last_used_at: number | null;
  last_used_address: string;
  revoked_at: number | null;
  /** JSON list of server ids; null: every server of the owner. */
  servers: string | null;
}

const COLUMNS =
  "id, user_id, name, role, created_at, expires_at, last_used_at, last_used_address, revoked_at, servers";

export class ApiTokens {
  constructor(private readonly db: Db, private readonly now: () => number) {}

  /** `servers`: the servers it is limited to, checked by the caller (auth/access.ts); null: all the user's. */
  create(
    user: { id: number; role: Role },
    body: Record<string, unknown>,
    servers: number[] | null = null,
  ): { token: string; info: ApiToken } {
    const name = typeof body.name === "string" ? body.name.trim() : "";
    if (name === "" || name.length > NAME_MAX || /\p{Cc}/u.test(name)) {
      throw new Invalid(
        name === "" ? ACCESS_MSG.tokenNameRequired : `Token name must be at most ${NAME_MAX} characters`,
      );
    }
    const role = body.role ?? user.role;
    if (!isRole(role)) throw new Invalid(ACCESS_MSG.roleUnknown(String(role)));
    if (!roleAtLeast(user.role, role)) throw new Forbidden(ACCESS_MSG.tokenRoleAboveUser);
    const days = body.expires_days;
    if (typeof days !== "number" || !Number.isInteger(days) || days < 1 || days > TOKEN_MAX_DAYS) {
      throw new Invalid(ACCESS_MSG.tokenExpiryRange(TOKEN_MAX_DAYS));
    }
    if (this.#rows(user.id).length >= TOKENS_PER_USER_MAX) {
      throw new Invalid(`At most ${TOKENS_PER_USER_MAX} tokens per user: revoke some first`);
    }
    const token = TOKEN_PREFIX + randomBytes(32).toString("base64url");
    const now = this.now();
    const id = Number(
      this.db.prepare(
        "INSERT INTO api_tokens (user_id, name, role, token_hash, created_at, expires_at, servers) VALUES (?, ?, ?, ?, ?, ?, ?)",
      ).run(
        user.id,
        name,
        role,
        hashToken(token),
        now,
        now + days * 24 * 3600_000,
        servers ? JSON.stringify(servers) : null,
      ).lastInsertRowid,
    );
    return { token, info: this.#public(this.#row(id)!) };
  }

  /** One user's tokens, or (null) everyone's with their owners' names, for admins. */
  list(userId: number | null): ApiToken[] {
    if (userId !== null) return this.#rows(userId).map((r) => this.#public(r));
    const rows = this.db.prepare(
      `SELECT ${
        COLUMNS.split(", ").map((c) => "t." + c).join(", ")
      }, u.username FROM api_tokens t JOIN users u ON u.id = t.user_id ORDER BY u.username COLLATE NOCASE, t.id`,
    ).all() as unknown as (Row & { username: string })[];
    return rows.map((r) => ({ ...this.#public(r), username: r.username }));
  }

  /**
   * Revokes every live token of a user (their password changed: a token made with the old password must
   * not outlive it). Answers the ids as sockets know them ("token:<id>").
   */
  revokeAll(userId: number): string[] {
    const live = this.db.prepare("SELECT id FROM api_tokens WHERE user_id = ? AND revoked_at IS NULL").all(
      userId,
    ) as { id: number }[];
    if (live.length > 0) {
      this.db.prepare("UPDATE api_tokens SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL").run(
        this.now(),
        userId,
      );
    }
    return live.map((t) => `token:${t.id}`);
  }

  /** Revokes one of the user's tokens (admins pass `anyUser`). Revoking twice is fine. */
  revoke(userId: number, id: number, anyUser = false): void {
    const row = this.#row(id);
    if (!row || (!anyUser && row.user_id !== userId)) throw new NotFound(ACCESS_MSG.tokenNotFound);
    if (row.revoked_at === null) {
      this.db.prepare("UPDATE api_tokens SET revoked_at = ? WHERE id = ?").run(this.now(), id);
    }
  }

  /** The live token behind a bearer secret, recording its use; null when unknown, expired or revoked. */
  use(
    secret: string,
    address: string,
  ): { id: number; userId: number; name: string; role: Role; servers: number[] | null } | null {
    if (!secret.startsWith(TOKEN_PREFIX) || secret.length > 200) return null;
    const row = this.db.prepare(`SELECT ${COLUMNS} FROM api_tokens WHERE token_hash = ?`).get(
      hashToken(secret),
    ) as
      | Row
      | undefined;
    const now = this.now();
    if (!row || row.revoked_at !== null || row.expires_at <= now) return null;
    this.db.prepare("UPDATE api_tokens SET last_used_at = ?, last_used_address = ? WHERE id = ?")
      .run(now, address.slice(0, 100), row.id);
    return { id: row.id, userId: row.user_id, name: row.name, role: row.role, servers: serversOf(row) };
  }

  /** Whether the token is still live (for sockets opened with it). */
  live(id: number): boolean {
    const row = this.#row(id);
    return !!row && row.revoked_at === null && row.expires_at > this.now();
  }

  /** A deleted server leaves the lists of the tokens limited to it (a token left with none acts on none). */
  forgetServer(serverId: number): void {
    const rows = this.db.prepare("SELECT id, servers FROM api_tokens WHERE servers IS NOT NULL").all() as {
      id: number;
      servers: string;
    }[];
    for (const r of rows) {
      const list = JSON.parse(r.servers) as number[];
      if (!list.includes(serverId)) continue;
      this.db.prepare("UPDATE api_tokens SET servers = ? WHERE id = ?").run(
        JSON.stringify(list.filter((id) => id !== serverId)),
        r.id,
      );
    }
  }

  /** Drops tokens that ended more than 30 days ago. */
  sweep(): void {
    const cutoff = this.now() - 30 * 24 * 3600_000;
    this.db.prepare("DELETE FROM api_tokens WHERE expires_at < ? OR revoked_at < ?").run(cutoff, cutoff);
  }

  #row(id: number): Row | undefined {
    return this.db.prepare(`SELECT ${COLUMNS} FROM api_tokens WHERE id = ?`).get(id) as Row | undefined;
  }

  #rows(userId: number): Row[] {
    return this.db.prepare(`SELECT ${COLUMNS} FROM api_tokens WHERE user_id = ? ORDER BY id`).all(
      userId,
    ) as unknown as Row[];
  }

  #public(r: Row): ApiToken {
    const iso = (t: number) => new Date(t).toISOString();
    return {
      id: r.id,
      name: r.name,
      role: r.role,
      created_at: iso(r.created_at),
      expires_at: iso(r.expires_at),
      last_used_at: r.last_used_at === null ? null : iso(r.last_used_at),
      last_used_address: r.last_used_address,
      servers: serversOf(r),
      state: r.revoked_at !== null ? "revoked" : r.expires_at <= this.now() ? "expired" : "active",
    };
  }
}

function serversOf(r: Row): number[] | null {
  return r.servers === null ? null : JSON.parse(r.servers) as number[];
}
