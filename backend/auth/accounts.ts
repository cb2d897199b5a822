// Users and sessions: the rules. Storage is in store/, HTTP in http/auth.ts and http/users.ts.

import { createHash, randomBytes } from "node:crypto";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "../store/db.ts";
import { transaction } from "../store/db.ts";
import { publicUser, type UserRow, UserStore } from "../store/users.ts";
import { SessionStore } from "../store/sessions.ts";
import type { EventBus } from "../events.ts";
import type { Logger } from "../log.ts";
import { Conflict, Invalid, NotFound, TooManyRequests, Unauthorized } from "../errors.ts";
import { decoyHash, hashPassword, hashWaiting, needsRehash, randomPassword, verifyPassword } from "./password.ts";

/** Sign-ins waiting for a password hash beyond which more are refused (429) instead of queued. */
const HASH_LINE_MAX = 16;
import { LoginLimiter } from "./ratelimit.ts";
import { writeSecretFile } from "../fsutil.ts";
import type { NewUser, PasswordChange, User } from "../../shared/api.ts";
import { MSG, PANEL_MSG } from "../../shared/messages.ts";
import {
  EMAIL_MAX,
  firstError,
  PASSWORD_MAX,
  UNSAFE_TEXT,
  USERNAME_MAX,
  validateLogin,
  validateNewUser,
  validatePasswordChange,
} from "../../shared/validation.ts";

export interface SessionInfo {
  /** The stored hash of the token: an id for the session that is safe to pass around. */
  id: string;
  user: UserRow;
}

export const INITIAL_PASSWORD_FILE = "initial-admin-password";

export class Accounts {
  readonly users: UserStore;
  readonly sessions: SessionStore;
  readonly limiter: LoginLimiter;
  readonly #sessionMs: number;
  /** User and address pairs that signed in since start (the sessions table remembers older ones). */
  readonly #goodAddresses = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly deps: { bus: EventBus; log: Logger; now: () => number; sessionDays: number; dataDir: string },
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
   * written to <data-dir>/initial-admin-password (owner-only) and returned so main.ts can print it once.
   */
  async bootstrap(envPassword: string | undefined): Promise<{ username: string; password: string | null } | null> {
    if (this.users.count() > 0) return null;
    const password = envPassword || randomPassword();
    const hash = await hashPassword(password);
    if (this.users.count() > 0) return null;
    this.users.insert({ username: "admin", passwordHash: hash, role: "admin", email: "" }, this.deps.now());
    if (!envPassword) writeSecretFile(join(this.deps.dataDir, INITIAL_PASSWORD_FILE), password + "\n");
    this.deps.log.info("Created the first user, admin");
    return { username: "admin", password: envPassword ? null : password };
  }

  async login(
    body: { username?: unknown; password?: unknown },
    client: { address: string; userAgent: string },
  ): Promise<{ token: string; user: User }> {
    const problem = firstError(validateLogin(body));
    if (problem) throw new Invalid(problem);
    const username = String(body.username).trim();
    const password = String(body.password);
    const row = username.length <= USERNAME_MAX ? this.users.byName(username) : undefined;
    const known = row !== undefined &&
      (this.#goodAddresses.has(`${row.id}\n${client.address}`) || this.sessions.hasAddress(row.id, client.address));
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
      this.deps.log.info("Stored the panel's own password hash for an imported user", { username: row.username });
    }
    const token = this.#openSession(row.id, client);
    this.deps.log.info("Signed in", { username: row.username, address: client.address });
    return { token, user: publicUser(row) };
  }

  /** The session a cookie token belongs to, or null when it is unknown or expired. */
  session(token: string | undefined): SessionInfo | null {
    if (!token || token.length > 200) return null;
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
    return { id, user };
  }

  logout(sessionId: string): void {
    this.sessions.delete(sessionId);
    this.deps.bus.emit("sessions.revoked", { sessionIds: [sessionId] });
  }

  list(): User[] {
    return this.users.list();
  }

  async add(body: Partial<Record<keyof NewUser, unknown>>): Promise<User> {
    const problem = firstError(validateNewUser(body));
    if (problem) throw new Invalid(problem);
    const username = String(body.username).trim();
    const email = String(body.email).trim();
    const password = String(body.password);
    const role = body.role ?? "admin";
    if (role !== "admin") throw new Invalid(`Role "${String(role)}" does not exist. The only role is admin.`);
    // The raw name: trim() would quietly drop a trailing U+2028 or newline.
    if (username.length > USERNAME_MAX || /[\p{Cc}\s]/u.test(username) || UNSAFE_TEXT.test(String(body.username))) {
      throw new Invalid(`Username must be at most ${USERNAME_MAX} characters, without spaces or control characters`);
    }
    if (email.length > EMAIL_MAX || !/^[^\s@]+@[^\s@]+$/.test(email)) {
      throw new Invalid("Email must be a valid email address");
    }
    if (password.length > PASSWORD_MAX) throw new Invalid(`Password must be at most ${PASSWORD_MAX} characters`);
    if (this.users.byName(username)) throw new Conflict(`User ${username} already exists`);
    const hash = await hashPassword(password);
    try {
      this.users.insert({ username, passwordHash: hash, role, email }, this.deps.now());
    } catch (e) {
      // Two concurrent adds of one name: the UNIQUE constraint decides.
      if (String(e).includes("UNIQUE")) throw new Conflict(`User ${username} already exists`);
      throw e;
    }
    this.deps.log.info("User added", { username });
    return { username, role, email };
  }

  remove(body: { username?: unknown }): string {
    if (typeof body.username !== "string" || body.username.trim() === "") throw new Invalid(MSG.usernameRequired);
    const username = body.username.trim();
    const revoked = transaction(this.db, () => {
      const row = this.users.byName(username);
      if (!row) throw new NotFound(`User ${username} does not exist`);
      if (row.role === "admin" && this.users.countByRole("admin") <= 1) {
        throw new Conflict(`User ${row.username} is the last admin and cannot be deleted`);
      }
      const ids = this.sessions.deleteForUser(row.id);
      this.users.delete(row.id);
      return { ids, name: row.username };
    });
    this.deps.bus.emit("sessions.revoked", { sessionIds: revoked.ids });
    this.deps.log.info("User removed", { username: revoked.name });
    return revoked.name;
  }

  /**
   * Checks the old password, sets the new one, revokes every session of the user and opens a fresh one
   * for the caller, whose new token is returned.
   */
  async changePassword(
    session: SessionInfo,
    body: Partial<Record<keyof PasswordChange, unknown>>,
    client: { address: string; userAgent: string },
  ): Promise<string> {
    const problem = firstError(validatePasswordChange(body));
    if (problem) throw new Invalid(problem);
    const { old_password: oldPw, new_password: newPw, new_password_confirmation: confirm } = body as PasswordChange;
    if (newPw !== confirm) throw new Invalid("New Password Confirmation must match the New Password");
    if (newPw.length > PASSWORD_MAX) throw new Invalid(`Password must be at most ${PASSWORD_MAX} characters`);
    if (oldPw.length > PASSWORD_MAX || !(await verifyPassword(oldPw, session.user.password_hash))) {
      // 400, not 401: a 401 would read as "signed out" to the PWA.
      throw new Invalid("Old Password is wrong");
    }
    const hash = await hashPassword(newPw);
    const revoked = transaction(this.db, () => {
      this.users.setPassword(session.user.id, hash, this.deps.now());
      return this.sessions.deleteForUser(session.user.id);
    });
    this.deps.bus.emit("sessions.revoked", { sessionIds: revoked });
    const initial = join(this.deps.dataDir, INITIAL_PASSWORD_FILE);
    if (session.user.username === "admin" && existsSync(initial)) rmSync(initial, { force: true });
    this.deps.log.info("Password changed", { username: session.user.username });
    return this.#openSession(session.user.id, client);
  }

  sweepExpired(): void {
    this.sessions.deleteExpired(this.deps.now());
  }

  #openSession(userId: number, client: { address: string; userAgent: string }): string {
    const token = randomBytes(32).toString("base64url");
    const now = this.deps.now();
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
