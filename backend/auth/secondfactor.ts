// Two-factor sign-in: TOTP (RFC 6238, 30 s steps, 6 digits, one step of clock skew either way), ten
// single-use recovery codes (stored hashed), and the pending sign-in between the password and the second
// step. The second step counts failures in the same limiter as the password, so guessing codes is as slow
// as guessing passwords. Passkeys are the other second factor (auth/passkeys.ts); they plug in here.

import { createHash, randomBytes } from "node:crypto";
import * as otp from "otpauth";
import type { Db } from "../store/db.ts";
import { transaction } from "../store/db.ts";
import type { Accounts, LoginResult } from "./accounts.ts";
import type { UserRow } from "../store/users.ts";
import type { Logger } from "../lib/log.ts";
import { Conflict, Invalid, TooManyRequests, Unauthorized } from "../lib/errors.ts";
import { verifyPassword } from "./password.ts";
import { PANEL_MSG } from "../../shared/messages.ts";
import {
  ACCESS_MSG,
  type SecondFactorRequired,
  type TotpSetup,
  type TwoFactorStatus,
} from "../../shared/access.ts";

export const TOTP_PERIOD = 30;
/** Steps accepted either side of the server's clock: a phone up to 30 s off still works. */
export const TOTP_WINDOW = 1;
export const RECOVERY_CODES = 10;
/** How long the password step stays good for the second step. */
export const PENDING_MS = 5 * 60_000;

const CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

function sha256(s: string): string {
  return createHash("sha256").update(s).digest("hex");
}

/** "abcde-fghjk": 10 characters of a 31-letter alphabet (about 50 bits), the dash only for reading. */
function newRecoveryCode(): string {
  const out: string[] = [];
  while (out.length < 10) {
    for (const b of randomBytes(16)) {
      if (b < 256 - (256 % CODE_ALPHABET.length) && out.length < 10) {
        out.push(CODE_ALPHABET[b % CODE_ALPHABET.length]);
      }
    }
  }
  return out.slice(0, 5).join("") + "-" + out.slice(5).join("");
}

function normaliseCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, "");
}

function totpOf(secret: string, label = "panel"): otp.TOTP {
  return new otp.TOTP({
    issuer: "Factorio Panel",
    label,
    algorithm: "SHA1",
    digits: 6,
    period: TOTP_PERIOD,
    secret: otp.Secret.fromBase32(secret),
  });
}

interface Pending {
  userId: number;
  expires: number;
}

export class SecondFactor {
  #pending = new Map<string, Pending>();
  /** Other second factors (passkeys) report whether a user has one. */
  readonly extraMethods: ((userId: number) => SecondFactorRequired["methods"])[] = [];

  constructor(
    private readonly db: Db,
    private readonly accounts: Accounts,
    private readonly deps: { now: () => number; log: Logger; requiredForAdmins: boolean },
  ) {
    accounts.secondStep = (user) => this.#begin(user);
    accounts.mustEnrol = (user) =>
      deps.requiredForAdmins && user.role === "admin" && this.methods(user.id).length === 0;
  }

  /** The second factors a user can sign in with. */
  methods(userId: number): SecondFactorRequired["methods"] {
    const out: SecondFactorRequired["methods"] = [];
    if (this.#totpRow(userId)?.confirmed_at) out.push("totp", "recovery");
    for (const extra of this.extraMethods) out.push(...extra(userId));
    return out;
  }

  status(userId: number, passkeys: number): TwoFactorStatus {
    return {
      totp: !!this.#totpRow(userId)?.confirmed_at,
      recovery_codes_left: this.#codesLeft(userId),
      passkeys,
      required_for_admins: this.deps.requiredForAdmins,
    };
  }

  // ---- Enrolment ----

  /** A new secret to scan; replaces an unconfirmed one. Refused while TOTP is on (turn it off first). */
  async startTotp(user: UserRow): Promise<TotpSetup> {
    if (this.#totpRow(user.id)?.confirmed_at) {
      throw new Conflict("Two-factor sign-in is already on: turn it off first.");
    }
    const secret = new otp.Secret({ size: 20 }).base32;
    this.db.prepare(
      `INSERT INTO totp (user_id, secret, confirmed_at, last_step) VALUES (?, ?, NULL, 0)
       ON CONFLICT(user_id) DO UPDATE SET secret = excluded.secret, confirmed_at = NULL, last_step = 0`,
    ).run(user.id, secret);
    return { secret, uri: totpOf(secret, user.username).toString() };
  }

  /** Turns TOTP on once a code from the app matches; answers the recovery codes, shown this once. */
  async confirmTotp(user: UserRow, body: { code?: unknown }): Promise<string[]> {
    const row = this.#totpRow(user.id);
    if (!row || row.confirmed_at) throw new Invalid(ACCESS_MSG.totpNotStarted);
    if (!this.#checkTotp(user.id, row.secret, row.last_step, body.code)) {
      throw new Invalid(ACCESS_MSG.codeWrong);
    }
    this.db.prepare("UPDATE totp SET confirmed_at = ? WHERE user_id = ?").run(this.deps.now(), user.id);
    this.deps.log.info("Two-factor sign-in turned on", { username: user.username });
    return this.#newRecoveryCodes(user.id);
  }

  async disableTotp(user: UserRow, body: { password?: unknown }): Promise<void> {
    await this.#checkPassword(user, body.password);
    transaction(this.db, () => {
      this.db.prepare("DELETE FROM totp WHERE user_id = ?").run(user.id);
      this.db.prepare("DELETE FROM recovery_codes WHERE user_id = ?").run(user.id);
    });
    this.deps.log.info("Two-factor sign-in turned off", { username: user.username });
  }

  async regenerateRecoveryCodes(user: UserRow, body: { password?: unknown }): Promise<string[]> {
    await this.#checkPassword(user, body.password);
    if (!this.#totpRow(user.id)?.confirmed_at) throw new Invalid(ACCESS_MSG.totpNotStarted);
    return this.#newRecoveryCodes(user.id);
  }

  // ---- Sign-in ----

  /** Whom a pending sign-in (the second-step cookie) belongs to, or null when it is unknown or stale. */
  pendingUser(pending: string | undefined): UserRow | null {
    if (!pending || pending.length > 100) return null;
    const key = sha256(pending);
    const p = this.#pending.get(key);
    if (!p) return null;
    if (p.expires <= this.deps.now()) {
      this.#pending.delete(key);
      return null;
    }
    return this.accounts.users.byId(p.userId) ?? null;
  }

  /** Ends a pending sign-in (used, or replaced). */
  endPending(pending: string): void {
    this.#pending.delete(sha256(pending));
  }

  /**
   * The second step with a TOTP code or a recovery code. Failures count in the sign-in limiter under the
   * user's name and the address; while over the limit every attempt is refused, right code or not.
   */
  async verify(
    pending: string | undefined,
    body: { code?: unknown; recovery_code?: unknown },
    address: string,
  ): Promise<UserRow> {
    // Nothing below waits, so the rate check, the code check and the failure count of one attempt cannot
    // interleave with those of another.
    const user = this.pendingUser(pending);
    if (!user) throw new Unauthorized(ACCESS_MSG.secondFactorExpired);
    this.guardRate(user, address);
    let ok = false;
    if (body.recovery_code !== undefined) ok = this.#useRecoveryCode(user.id, body.recovery_code);
    else {
      const row = this.#totpRow(user.id);
      ok = !!row?.confirmed_at && this.#checkTotp(user.id, row.secret, row.last_step, body.code);
    }
    if (!ok) {
      this.failed(user, address);
      throw new Unauthorized(ACCESS_MSG.codeWrong);
    }
    this.succeeded(user, pending!);
    return user;
  }

  guardRate(user: UserRow, address: string): void {
    // The password was right from this address: the hard limits (per user and address, per address), and
    // the user's own count of wrong codes from every address, which a correct password does not reset.
    const limiter = this.accounts.limiter;
    const wait = Math.max(
      limiter.retryAfterMs(user.username, address, true),
      limiter.secondSteps.retryAfterMs(user.username.toLowerCase()),
    );
    if (wait > 0) throw new TooManyRequests(PANEL_MSG.tooManyLogins(wait / 1000), wait / 1000);
  }

  failed(user: UserRow, address: string): void {
    // Counted like a wrong password (and never given back), and in the user's own count of wrong codes.
    this.accounts.limiter.reserve(user.username, address);
    this.accounts.limiter.secondSteps.reserve(user.username.toLowerCase());
    this.deps.log.warn("Failed second sign-in step", { username: user.username, address });
  }

  succeeded(_user: UserRow, pending: string): void {
    this.endPending(pending);
  }

  sweep(): void {
    const now = this.deps.now();
    for (const [k, p] of this.#pending) if (p.expires <= now) this.#pending.delete(k);
  }

  #begin(user: UserRow): LoginResult | null {
    const methods = this.methods(user.id);
    if (methods.length === 0) return null;
    const pending = randomBytes(32).toString("base64url");
    this.#pending.set(sha256(pending), { userId: user.id, expires: this.deps.now() + PENDING_MS });
    if (this.#pending.size > 10_000) this.sweep();
    return { kind: "secondFactor", pending, methods };
  }

  /**
   * A code is good for the step it was made in or one either side, and only once: the step it matched
   * must be later than the last one used, so a code seen over someone's shoulder cannot be replayed.
   */
  #checkTotp(userId: number, secret: string, lastStep: number, code: unknown): boolean {
    if (typeof code !== "string" || !/^\d{6}$/.test(code.trim())) return false;
    const now = this.deps.now();
    const delta = totpOf(secret).validate({ token: code.trim(), timestamp: now, window: TOTP_WINDOW });
    if (delta === null) return false;
    const step = Math.floor(now / 1000 / TOTP_PERIOD) + delta;
    if (step <= lastStep) return false;
    // Compare-and-set: two requests racing with one code cannot both win.
    const changed = this.db.prepare("UPDATE totp SET last_step = ? WHERE user_id = ? AND last_step < ?")
      .run(step, userId, step).changes;
    return Number(changed) === 1;
  }

  #useRecoveryCode(userId: number, code: unknown): boolean {
    if (typeof code !== "string" || code.length > 50) return false;
    const hash = sha256(normaliseCode(code));
    const changed = this.db.prepare(
      "UPDATE recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL",
    ).run(this.deps.now(), userId, hash).changes;
    return Number(changed) === 1;
  }

  #newRecoveryCodes(userId: number): string[] {
    const codes = Array.from({ length: RECOVERY_CODES }, newRecoveryCode);
    transaction(this.db, () => {
      this.db.prepare("DELETE FROM recovery_codes WHERE user_id = ?").run(userId);
      const insert = this.db.prepare("INSERT INTO recovery_codes (user_id, code_hash) VALUES (?, ?)");
      for (const c of codes) insert.run(userId, sha256(normaliseCode(c)));
    });
    return codes;
  }

  #codesLeft(userId: number): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM recovery_codes WHERE user_id = ? AND used_at IS NULL")
      .get(userId) as { n: number }).n;
  }

  async #checkPassword(user: UserRow, password: unknown): Promise<void> {
    if (
      typeof password !== "string" || password.length > 1000 ||
      !(await verifyPassword(password, user.password_hash))
    ) {
      throw new Invalid(ACCESS_MSG.passwordWrong);
    }
  }

  #totpRow(userId: number): { secret: string; confirmed_at: number | null; last_step: number } | undefined {
    return this.db.prepare("SELECT secret, confirmed_at, last_step FROM totp WHERE user_id = ?").get(
      userId,
    ) as
      | { secret: string; confirmed_at: number | null; last_step: number }
      | undefined;
  }
}
