// Who a request is: a browser session (cookie) or a script (API token in Authorization: Bearer), never
// both. Also the list of signed-in devices and their revoke.

import type { Accounts, SessionInfo } from "./accounts.ts";
import type { ApiTokens } from "./tokens.ts";
import type { EventBus } from "../lib/events.ts";
import { Invalid, NotFound } from "../lib/errors.ts";
import { SERVERS_MSG } from "../../shared/servers.ts";
import { type Role, roleAtLeast } from "../../shared/api.ts";
import { ACCESS_MSG, type SessionEntry } from "../../shared/access.ts";

export type Resolved = { session: SessionInfo | null } | { refuse: { status: 400 | 401; message: string } };

function weaker(a: Role, b: Role): Role {
  return roleAtLeast(a, b) ? b : a;
}

export class Access {
  constructor(
    private readonly accounts: Accounts,
    private readonly tokens: ApiTokens,
    private readonly bus: EventBus,
    private readonly now: () => number,
  ) {}

  /**
   * `authorization` is the Authorization header. A bearer token with a cookie is refused: a script has no
   * reason to send both, and a browser page that adds a token would otherwise mix two identities.
   */
  resolve(cookie: string | undefined, authorization: string | undefined, address: string): Resolved {
    if (authorization === undefined) return { session: this.accounts.session(cookie) };
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!m) return { refuse: { status: 401, message: ACCESS_MSG.badToken } };
    if (cookie) return { refuse: { status: 400, message: ACCESS_MSG.cookieAndToken } };
    const token = this.tokens.use(m[1], address);
    const user = token ? this.accounts.users.byId(token.userId) : undefined;
    if (!token || !user) return { refuse: { status: 401, message: ACCESS_MSG.badToken } };
    return {
      session: {
        id: `token:${token.id}`,
        user,
        // The user may have been demoted since the token was made: the weaker of the two holds.
        role: weaker(token.role, user.role),
        via: "token",
        token: { id: token.id, name: token.name, role: token.role, servers: token.servers },
        // --require-2fa-admins: an admin without a second factor is held to enrolment with every credential,
        // tokens made before the rule (or before the factor was turned off) included.
        mustEnrol: this.accounts.mustEnrol(user),
      },
    };
  }

  /**
   * What the caller may do on server `serverId`, or null when they may not see it. An admin has every
   * server; a viewer or operator has the role of their row for it. An API token limited to servers has
   * none outside them, and its own role caps its user's. Asked on every per-server request: no read for an
   * admin, at most one per session object for anyone else (#rolesOf).
   */
  roleOn(s: SessionInfo, serverId: number): Role | null {
    if (s.token?.servers && !s.token.servers.includes(serverId)) return null;
    // s.role is already the weaker of the token's role and the user's.
    if (s.user.role === "admin") return s.role;
    const own = this.#rolesOf(s).get(serverId);
    if (!own) return null;
    return s.token ? weaker(s.token.role, own) : own;
  }

  /** The servers the caller may see: "all" for an admin (not limited by a token), else their ids. */
  serversOf(s: SessionInfo): number[] | "all" {
    const limit = s.token?.servers ?? null;
    if (s.user.role === "admin") return limit ? [...limit] : "all";
    const own = [...this.#rolesOf(s).keys()];
    return limit ? own.filter((id) => limit.includes(id)) : own;
  }

  /**
   * A viewer's or operator's roles, read once per session object. A browser session's object is reused
   * only while nothing was written to the database (Accounts.session drops it on any write), and a token's
   * is made per request, so a role changed a moment ago is read again on the next request. A read per
   * request cost about as much as the session lookup the cache saves.
   */
  #roles = new WeakMap<SessionInfo, Map<number, Role>>();
  #rolesOf(s: SessionInfo): Map<number, Role> {
    let roles = this.#roles.get(s);
    if (!roles) this.#roles.set(s, roles = this.accounts.users.serverRoles(s.user.id));
    return roles;
  }

  /**
   * Makes an API token for the signed-in user, limited to `body.servers` when given: each must exist and be
   * one the user has a role on. Its role may be up to the strongest the user has on the servers it covers.
   */
  createToken(s: SessionInfo, body: Record<string, unknown>): ReturnType<ApiTokens["create"]> {
    let servers: number[] | null = null;
    if (body.servers !== undefined && body.servers !== null) {
      const raw = body.servers;
      if (!Array.isArray(raw) || raw.some((id) => !Number.isSafeInteger(id) || id < 1)) {
        throw new Invalid(ACCESS_MSG.tokenServersShape);
      }
      if (raw.length === 0) throw new Invalid(ACCESS_MSG.tokenServersEmpty);
      servers = [...new Set(raw as number[])].sort((a, b) => a - b);
      for (const id of servers) {
        if (!this.accounts.serverExists(id)) throw new Invalid(SERVERS_MSG.noSuchServer(id));
        if (this.roleOn(s, id) === null) throw new Invalid(ACCESS_MSG.tokenServerNotYours(id));
      }
    }
    const covered = servers ?? this.serversOf(s);
    const roles = covered === "all" ? [s.role] : covered.map((id) => this.roleOn(s, id) ?? "viewer");
    const ceiling = roles.reduce((a, b) => roleAtLeast(a, b) ? a : b, roles.length ? "viewer" : s.role);
    return this.tokens.create({ id: s.user.id, role: ceiling }, body, servers);
  }

  /** A deleted server: nobody keeps a role on it, and tokens limited to it no longer list it. */
  forgetServer(serverId: number): void {
    this.accounts.users.clearServerRoles({ serverId });
    this.tokens.forgetServer(serverId);
  }

  /** The same identity re-read now (a socket checks before each command: role changed, revoked...). */
  refresh(s: SessionInfo): SessionInfo | null {
    if (s.via === "token") {
      if (!s.token || !this.tokens.live(s.token.id)) return null;
      const user = this.accounts.users.byId(s.user.id);
      return user
        ? { ...s, user, role: weaker(s.role, user.role), mustEnrol: this.accounts.mustEnrol(user) }
        : null;
    }
    const row = this.accounts.sessions.get(s.id);
    if (!row || row.expires_at <= this.now()) return null;
    const user = this.accounts.users.byId(row.user_id);
    return user ? { ...s, user, role: user.role, mustEnrol: this.accounts.mustEnrol(user) } : null;
  }

  /** Signed-in browsers: the caller's own, or everyone's for `all` (admins). */
  sessions(me: SessionInfo, all: boolean): SessionEntry[] {
    const iso = (t: number) => new Date(t).toISOString();
    return this.accounts.sessions.list(all ? null : me.user.id, this.now()).map((r) => ({
      id: r.id,
      username: r.username,
      address: r.ip,
      user_agent: r.user_agent,
      created_at: iso(r.created_at),
      last_seen_at: iso(r.last_seen_at),
      current: r.token_hash === me.id,
    }));
  }

  /** Ends a session: the caller's own, or anyone's for admins. Its sockets close at once. */
  revokeSession(me: SessionInfo, id: number): void {
    const row = this.accounts.sessions.byRowId(id);
    if (!row || (row.user_id !== me.user.id && me.role !== "admin")) {
      throw new NotFound(ACCESS_MSG.sessionNotFound);
    }
    this.accounts.sessions.delete(row.token_hash);
    this.bus.emit("sessions.revoked", { sessionIds: [row.token_hash] });
  }
}
