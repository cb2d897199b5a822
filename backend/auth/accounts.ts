// Users and sessions: the rules. Storage is in store/, HTTP in http/auth.ts and http/users.ts.

import { createHash, randomBytes } from "node:crypto";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { pathExists } from "../lib/foldercache.ts";
import type { Db } from "../store/db.ts";
import { dataStamp, transaction } from "../store/db.ts";
import { publicUser, type UserRow, UserStore } from "../store/users.ts";
import { SessionStore } from "../store/sessions.ts";
import type { EventBus } from "../lib/events.ts";
import type { Logger } from "../lib/log.ts";
import { Conflict, Invalid, NotFound, TooManyRequests, Unauthorized } from "../lib/errors.ts";
import {
  decoyHash,
  hashPassword,
  hashWaiting,
  needsRehash,
  randomPassword,
  verifyPassword,
} from "./password.ts";

/** Sign-ins waiting for a password hash beyond which more are refused (429) instead of queued. */
const HASH_LINE_MAX = 16;
import { LoginLimiter } from "./ratelimit.ts";
import { writeSecretFile } from "../lib/fsutil.ts";
import { isRole, type NewUser, type PasswordChange, type Role, type User } from "../../shared/api.ts";
import { ACCESS_MSG, type SecondFactorRequired } from "../../shared/access.ts";
import { MSG, PANEL_MSG } from "../../shared/messages.ts";
import { SERVERS_MSG } from "../../shared/servers.ts";
import {
  EMAIL_MAX,
  firstError,
  PASSWORD_MAX,
  USERNAME_MAX,
  usernameProblem,
  validateLogin,
  validateNewUser,
  validatePasswordChange,
} from "../../shared/validation.ts";

export interface SessionInfo {
  /** The stored hash of the cookie token, or "token:<id>" for an API token: safe to pass around. */
  id: string;
  user: UserRow;
  /** What this request may do: the user's role, or less for an API token with a weaker role. */
  role: Role;
  via: "session" | "token";
  /**
   * Set for API tokens: its own role (which caps its user's role on each server) and the servers it is
   * limited to (null: every server of its user).
   */
  token?: { id: number; name: string; role: Role; servers: number[] | null };
  /** An admin without a second factor on a panel that requires one: only enrolment is open. */
  mustEnrol: boolean;
}

/** What a correct password leads to: a session, or a second step (see auth/secondfactor.ts). */
export type LoginResult =
  | { kind: "signedIn"; token: string; user: User }
  | { kind: "secondFactor"; pending: string; methods: SecondFactorRequired["methods"] };

export const INITIAL_PASSWORD_FILE = "initial-admin-password";

/** The first admin's generated password, to print at start-up; `created`: made by this start. */
export interface GeneratedAdmin {
  username: string;
  password: string;
  created: boolean;
}

export class Accounts {
  readonly users: UserStore;
  readonly sessions: SessionStore;
  readonly limiter: LoginLimiter;
  readonly #sessionMs: number;
  /**
   * Set by the second-factor module: after a correct password, whether a second step is needed (it
   * answers the pending sign-in), and whether a user must enrol before doing anything else.
   */
  secondStep: ((user: UserRow) => LoginResult | null) | undefined;
  mustEnrol: (user: UserRow) => boolean = () => false;
  /** Set by boot/context.ts: revokes a user's API tokens when their password changes; answers their socket ids. */
  revokeTokens: (userId: number) => string[] = () => [];
  /** User and address pairs that signed in since start (the sessions table remembers older ones). */
  readonly #goodAddresses = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly deps: {
      bus: EventBus;
      log: Logger;
      now: () => number;
      sessionDays: number;
      dataDir: string;
      /** Whether a server id exists (the servers registry); without it, only server 1 does. */
      serverExists?: (id: number) => boolean;
    },
  ) {
    this.users = new UserStore(db);
    this.sessions = new SessionStore(db);
    this.limiter = new LoginLimiter(deps.now);
    this.#sessionMs = deps.sessionDays * 24 * 3600_000;
  }

  get sessionSeconds(): number {
    return this.#sessionMs / 1000;
  }

  /**
   * First start: with no users, create "admin" with PANEL_ADMIN_PASSWORD or a random password, which is
   * written to <data-dir>/initial-admin-password (owner-only). Answers the generated password on this and
   * every later start while the admin still has it (the file is removed when it changes, or when admin
   * is deleted), so run.ts prints it again: a first start that failed after this point (the port was
   * taken) printed nothing, and the password would otherwise be in that file alone.
   */
  async bootstrap(envPassword: string | undefined): Promise<GeneratedAdmin | null> {
    if (this.users.count() > 0) return this.#stillGenerated();
    const password = envPassword || randomPassword();
    const hash = await hashPassword(password);
    if (this.users.count() > 0) return this.#stillGenerated();
    this.users.insert({ username: "admin", passwordHash: hash, role: "admin", email: "" }, this.deps.now());
    if (!envPassword) writeSecretFile(join(this.deps.dataDir, INITIAL_PASSWORD_FILE), password + "\n");
    this.deps.log.info("Created the first user, admin");
    return envPassword ? null : { username: "admin", password, created: true };
  }

  /** The generated password of a panel whose admin has not changed it yet (the file is still there). */
  #stillGenerated(): GeneratedAdmin | null {
    const admin = this.users.byName("admin");
    if (!admin || !this.usesGeneratedPassword(admin)) return null;
    let password: string;
    try {
      password = readFileSync(join(this.deps.dataDir, INITIAL_PASSWORD_FILE), "utf8").trim();
    } catch {
      return null;
    }
    return password ? { username: "admin", password, created: false } : null;
  }

  async login(
    body: { username?: unknown; password?: unknown },
    client: { address: string; userAgent: string },
  ): Promise<LoginResult> {
    const problem = firstError(validateLogin(body));
    if (problem) throw new Invalid(problem);
    const username = String(body.username).trim();
    const password = String(body.password);
    const row = username.length <= USERNAME_MAX ? this.users.byName(username) : undefined;
    const known = row !== undefined &&
      (this.#goodAddresses.has(`${row.id}\n${client.address}`) ||
        this.sessions.hasAddress(row.id, client.address));
    const wait = this.limiter.retryAfterMs(username, client.address, known);
    if (wait > 0) throw new TooManyRequests(PANEL_MSG.tooManyLogins(wait / 1000), wait / 1000);
    if (hashWaiting() >= HASH_LINE_MAX) throw new TooManyRequests(PANEL_MSG.signInBusy, 2);
    // Counted now, before the hash runs, so parallel attempts cannot all pass the check above.
    const giveBack = this.limiter.reserve(username, client.address);

    const ok = password.length <= PASSWORD_MAX &&
      await verifyPassword(password, row?.password_hash ?? await decoyHash()) && row !== undefined;
    if (!ok || !row) {
      this.deps.log.warn("Failed sign-in", { username, address: client.address });
      throw new Unauthorized(MSG.loginFailed);
    }
    giveBack();
    this.#goodAddresses.add(`${row.id}\n${client.address}`);
    // A hash imported from the old panel is replaced by the panel's own, now that the password is known.
    if (needsRehash(row.password_hash)) {
      this.users.setPassword(row.id, await hashPassword(password), this.deps.now());
      this.deps.log.info("Stored the panel's own password hash for an imported user", {
        username: row.username,
      });
    }
    const second = this.secondStep?.(row);
    if (second) return second;
    const token = this.openSession(row.id, client);
    this.deps.log.info("Signed in", { username: row.username, address: client.address });
    return { kind: "signedIn", token, user: this.sessionUser(row) };
  }

  /** The signed-in user as the sign-in and session answers show it. */
  sessionUser(row: UserRow): User {
    return this.usesGeneratedPassword(row)
      ? { ...publicUser(row), generated_password: true }
      : publicUser(row);
  }

  /**
   * Sessions already looked up, by cookie token, while nothing was written to the database (dataStamp):
   * every request asks, and the hash plus two queries were a quarter of a small request's cost. Any write
   * (logout, password change, user deleted, a session touched) empties it.
   */
  #known = new Map<string, { info: SessionInfo; expiresAt: number; lastSeen: number }>();
  #knownStamp = "";

  /** The session a cookie token belongs to, or null when it is unknown or expired. */
  session(token: string | undefined): SessionInfo | null {
    if (!token || token.length > 200) return null;
    const stamp = dataStamp(this.db);
    if (stamp !== this.#knownStamp || this.#known.size > 1000) {
      this.#known.clear();
      this.#knownStamp = stamp;
    }
    const known = this.#known.get(token);
    const at = this.deps.now();
    if (known && known.expiresAt > at && at - known.lastSeen <= 60_000) return known.info;
    const info = this.#lookupSession(token);
    // Stored under the stamp as it is now: a touch above was a write, so this entry starts a new stamp.
    if (info) {
      const row = this.sessions.get(info.id);
      const stampNow = dataStamp(this.db);
      if (row && stampNow !== this.#knownStamp) {
        this.#known.clear();
        this.#knownStamp = stampNow;
      }
      if (row) this.#known.set(token, { info, expiresAt: row.expires_at, lastSeen: row.last_seen_at });
    }
    return info;
  }

  #lookupSession(token: string): SessionInfo | null {
    const id = hashToken(token);
    const row = this.sessions.get(id);
    if (!row) return null;
    const now = this.deps.now();
    if (row.expires_at <= now) {
      this.sessions.delete(id);
      return null;
    }
    const user = this.users.byId(row.user_id);
    if (!user) return null;
    if (now - row.last_seen_at > 60_000) this.sessions.touch(id, now, row.expires_at);
    return { id, user, role: user.role, via: "session", mustEnrol: this.mustEnrol(user) };
  }

  logout(sessionId: string): void {
    this.sessions.delete(sessionId);
    this.deps.bus.emit("sessions.revoked", { sessionIds: [sessionId] });
  }

  /** The users; a viewer's or operator's roles per server under `servers` (an admin has every server). */
  list(): User[] {
    const roles = this.users.allServerRoles();
    return this.users.list().map(({ id, ...u }) =>
      u.role === "admin" ? u : { ...u, servers: Object.fromEntries(roles.get(id) ?? []) }
    );
  }

  /** Whether server `id` exists. */
  serverExists(id: number): boolean {
    return (this.deps.serverExists ?? ((n) => n === 1))(id);
  }

  /**
   * A request's `servers` (server id -> role, or null for none with `removals`) as a map, or a 400 that
   * says what is wrong: a malformed id, a server that does not exist, a role that is not one of a server's.
   */
  #serverRoles(raw: unknown, removals: boolean): Map<number, Role | null> {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      throw new Invalid(ACCESS_MSG.serverRolesShape);
    }
    const roles = new Map<number, Role | null>();
    for (const [key, role] of Object.entries(raw)) {
      const id = /^[1-9]\d{0,8}$/.test(key) ? Number(key) : NaN;
      if (!Number.isSafeInteger(id)) throw new Invalid(ACCESS_MSG.serverIdInvalid(key));
      if (role === null && removals) roles.set(id, null);
      else if (!isRole(role)) throw new Invalid(ACCESS_MSG.roleUnknown(String(role)));
      else if (role === "admin") throw new Invalid(ACCESS_MSG.serverRoleAdmin);
      else roles.set(id, role);
      // A role taken away from a deleted server is fine; a role given on one that does not exist is not.
      if (roles.get(id) !== null && !this.serverExists(id)) throw new Invalid(SERVERS_MSG.noSuchServer(id));
    }
    return roles;
  }

  async add(body: Partial<Record<keyof NewUser, unknown>>): Promise<User> {
    const problem = firstError(validateNewUser(body));
    if (problem) throw new Invalid(problem);
    const username = String(body.username).trim();
    const email = String(body.email).trim();
    const password = String(body.password);
    // No role is the old wire format, from when every user was an admin.
    const role = body.role ?? "admin";
    if (!isRole(role)) throw new Invalid(ACCESS_MSG.roleUnknown(String(role)));
    // Without servers, a viewer or operator has their role on server 1 (the old panel's meaning).
    let servers: Map<number, Role> | undefined;
    if (body.servers !== undefined) {
      if (role === "admin") throw new Invalid(ACCESS_MSG.serverRolesOfAdmin(String(body.username).trim()));
      servers = this.#serverRoles(body.servers, false) as Map<number, Role>;
    }
    const nameProblem = usernameProblem(String(body.username));
    if (nameProblem) throw new Invalid(nameProblem);
    if (email.length > EMAIL_MAX || !/^[^\s@]+@[^\s@]+$/.test(email)) {
      throw new Invalid("Email must be a valid email address");
    }
    if (password.length > PASSWORD_MAX) {
      throw new Invalid(`Password must be at most ${PASSWORD_MAX} characters`);
    }
    if (this.users.byName(username)) throw new Conflict(`User ${username} already exists`);
    const hash = await hashPassword(password);
    // A role given for server 1 is the user's role (what the old panel and POST /api/user/role call it).
    const userRole = servers?.get(1) ?? role;
    try {
      transaction(this.db, () => {
        this.users.insert({ username, passwordHash: hash, role: userRole, email }, this.deps.now(), servers);
      });
    } catch (e) {
      // Two concurrent adds of one name: the UNIQUE constraint decides.
      if (String(e).includes("UNIQUE")) throw new Conflict(`User ${username} already exists`);
      throw e;
    }
    this.deps.log.info("User added", { username, role: userRole });
    this.deps.bus.emit("users.changed", { action: "added", username });
    return { username, role: userRole, email };
  }

  /** True while `user` is the first-start admin and the generated password has not been changed. */
  usesGeneratedPassword(user: UserRow): boolean {
    // Asked by every session check (/api/user/status), and the file is usually gone: pathExists costs a
    // folder stat then, where existsSync built and threw an error (about 40 µs a request under load).
    return user.username === "admin" && pathExists(join(this.deps.dataDir, INITIAL_PASSWORD_FILE));
  }

  /** `me`: the signed-in user, who may not delete themselves (one tap would lock them out). */
  remove(body: { username?: unknown }, me: UserRow): string {
    if (typeof body.username !== "string" || body.username.trim() === "") {
      throw new Invalid(MSG.usernameRequired);
    }
    const username = body.username.trim();
    const revoked = transaction(this.db, () => {
      const row = this.users.byName(username);
      if (!row) throw new NotFound(`User ${username} does not exist`);
      if (row.role === "admin" && this.users.countByRole("admin") <= 1) {
        throw new Conflict(`User ${row.username} is the last admin and cannot be deleted`);
      }
      if (row.id === me.id) throw new Conflict(PANEL_MSG.cannotDeleteSelf);
      const ids = this.sessions.deleteForUser(row.id);
      this.users.delete(row.id);
      return { ids, name: row.username };
    });
    this.deps.bus.emit("sessions.revoked", { sessionIds: revoked.ids });
    // A later user named admin has a password of their own: the generated one is not printed for them.
    if (revoked.name.toLowerCase() === "admin") {
      rmSync(join(this.deps.dataDir, INITIAL_PASSWORD_FILE), { force: true });
    }
    this.deps.log.info("User removed", { username: revoked.name });
    this.deps.bus.emit("users.changed", { action: "removed", username: revoked.name });
    return revoked.name;
  }

  /** Changes a user's role; the last admin cannot be demoted. Takes effect on the user's next request. */
  setRole(body: { username?: unknown; role?: unknown }): { username: string; role: Role } {
    if (typeof body.username !== "string" || body.username.trim() === "") {
      throw new Invalid(MSG.usernameRequired);
    }
    const role = body.role;
    if (!isRole(role)) throw new Invalid(ACCESS_MSG.roleUnknown(String(role ?? "")));
    const username = body.username.trim();
    const name = transaction(this.db, () => {
      const row = this.users.byName(username);
      if (!row) throw new NotFound(`User ${username} does not exist`);
      if (row.role === "admin" && role !== "admin" && this.users.countByRole("admin") <= 1) {
        throw new Conflict(ACCESS_MSG.lastAdmin(row.username));
      }
      this.users.setRole(row.id, role, this.deps.now());
      return row.username;
    });
    this.deps.log.info("Role changed", { username: name, role });
    return { username: name, role };
  }

  /**
   * Sets a viewer's or operator's role on servers (null: takes the server away). Their role on server 1
   * is also their `role`. Nothing is closed: the next request reads the roles again.
   */
  setServers(body: { username?: unknown; servers?: unknown }): { username: string; detail: string } {
    if (typeof body.username !== "string" || body.username.trim() === "") {
      throw new Invalid(MSG.usernameRequired);
    }
    const username = body.username.trim();
    const roles = this.#serverRoles(body.servers, true);
    const name = transaction(this.db, () => {
      const row = this.users.byName(username);
      if (!row) throw new NotFound(`User ${username} does not exist`);
      if (row.role === "admin") throw new Invalid(ACCESS_MSG.serverRolesOfAdmin(row.username));
      for (const [server, role] of roles) {
        if (server === 1 && role !== null) this.users.setRole(row.id, role, this.deps.now());
        else this.users.setServerRole(row.id, server, role);
      }
      return row.username;
    });
    const detail = [...roles].map(([server, role]) => `server ${server}: ${role ?? "no access"}`).join(", ");
    this.deps.log.info("Server roles changed", { username: name, servers: detail });
    return { username: name, detail };
  }

  /**
   * Checks the old password, sets the new one, revokes every session and API token of the user and opens
   * a fresh session for the caller, whose new token is returned.
   */
  async changePassword(
    session: SessionInfo,
    body: Partial<Record<keyof PasswordChange, unknown>>,
    client: { address: string; userAgent: string },
  ): Promise<string> {
    const problem = firstError(validatePasswordChange(body));
    if (problem) throw new Invalid(problem);
    const { old_password: oldPw, new_password: newPw, new_password_confirmation: confirm } =
      body as PasswordChange;
    if (newPw !== confirm) throw new Invalid("New Password Confirmation must match the New Password");
    if (newPw.length > PASSWORD_MAX) throw new Invalid(`Password must be at most ${PASSWORD_MAX} characters`);
    if (oldPw.length > PASSWORD_MAX || !(await verifyPassword(oldPw, session.user.password_hash))) {
      // 400, not 401: a 401 would read as "signed out" to the PWA.
      throw new Invalid("Old Password is wrong");
    }
    const hash = await hashPassword(newPw);
    const revoked = transaction(this.db, () => {
      this.users.setPassword(session.user.id, hash, this.deps.now());
      return [...this.sessions.deleteForUser(session.user.id), ...this.revokeTokens(session.user.id)];
    });
    this.deps.bus.emit("sessions.revoked", { sessionIds: revoked });
    const initial = join(this.deps.dataDir, INITIAL_PASSWORD_FILE);
    if (session.user.username === "admin" && existsSync(initial)) rmSync(initial, { force: true });
    this.deps.log.info("Password changed", { username: session.user.username });
    return this.openSession(session.user.id, client);
  }

  sweepExpired(): void {
    this.sessions.deleteExpired(this.deps.now());
  }

  /** A new signed-in session (after the password, after a second factor, or after a passkey). */
  openSession(userId: number, client: { address: string; userAgent: string }): string {
    const token = randomBytes(32).toString("base64url");
    const now = this.deps.now();
    const user = this.users.byId(userId);
    // Every way of signing in ends here, so the "new sign-in" alert hears of each.
    if (user) {
      this.deps.bus.emit("auth.signed-in", {
        userId,
        username: user.username,
        address: client.address,
        userAgent: client.userAgent,
      });
    }
    this.sessions.insert({
      tokenHash: hashToken(token),
      userId,
      now,
      expiresAt: now + this.#sessionMs,
      ip: client.address,
      userAgent: client.userAgent,
    });
    return token;
  }
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
