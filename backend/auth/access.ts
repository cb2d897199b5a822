// Who a request is: a browser session (cookie) or a script (API token in Authorization: Bearer), never
// both. Also the list of signed-in devices and their revoke.

import type { Accounts, SessionInfo } from "./accounts.ts";
import type { ApiTokens } from "./tokens.ts";
import type { EventBus } from "../lib/events.ts";
import { NotFound } from "../lib/errors.ts";
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
        token: { id: token.id, name: token.name },
        // --require-2fa-admins: an admin without a second factor is held to enrolment with every credential,
        // tokens made before the rule (or before the factor was turned off) included.
        mustEnrol: this.accounts.mustEnrol(user),
      },
    };
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
