// Passkeys (WebAuthn, with @simplewebauthn/server): registered by a signed-in user, then used either as
// the second step after the password or alone (passwordless: the authenticator checks the person, so it
// must report user verification). Challenges live in memory for two minutes and are single-use.

import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server";
import type { Db } from "../store/db.ts";
import type { UserRow } from "../store/users.ts";
import { Invalid, NotFound, Unauthorized } from "../lib/errors.ts";
import { ACCESS_MSG, type Passkey } from "../../shared/access.ts";

/**
 * Loaded on first use, not at start: @simplewebauthn/server and what it pulls in cost about 150 ms of
 * start-up and 20 MiB of memory, for a page most panels never open.
 */
let webauthn: Promise<typeof import("@simplewebauthn/server")> | null = null;
function simpleWebAuthn(): Promise<typeof import("@simplewebauthn/server")> {
  return webauthn ??= import("@simplewebauthn/server");
}

const CHALLENGE_MS = 2 * 60_000;
const NAME_MAX = 100;
const PASSKEYS_PER_USER_MAX = 20;

/** Who the ceremony is for: the relying party (the panel's host name) and the origins it may run on. */
export interface RelyingParty {
  id: string;
  origins: string[];
}

interface Row {
  id: string;
  user_id: number;
  name: string;
  public_key: Uint8Array;
  counter: number;
  transports: string;
  created_at: number;
  last_used_at: number | null;
}

interface Challenge {
  /** Registration: the user registering. Sign-in: the pending user of a second step, or null (passwordless). */
  userId: number | null;
  purpose: "register" | "login";
  expires: number;
}

function cleanName(raw: unknown): string {
  const name = typeof raw === "string" ? raw.trim() : "";
  if (name === "" || name.length > NAME_MAX || /\p{Cc}/u.test(name)) {
    throw new Invalid(`A passkey name is required, at most ${NAME_MAX} characters`);
  }
  return name;
}

export class Passkeys {
  #challenges = new Map<string, Challenge>();

  constructor(private readonly db: Db, private readonly now: () => number) {}

  count(userId: number): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM passkeys WHERE user_id = ?").get(userId) as {
      n: number;
    }).n;
  }

  list(userId: number): Passkey[] {
    return this.#rows(userId).map((r) => ({
      id: r.id,
      name: r.name,
      created_at: new Date(r.created_at).toISOString(),
      last_used_at: r.last_used_at === null ? null : new Date(r.last_used_at).toISOString(),
    }));
  }

  rename(userId: number, id: string, name: unknown): void {
    const changed = this.db.prepare("UPDATE passkeys SET name = ? WHERE id = ? AND user_id = ?").run(
      cleanName(name),
      id,
      userId,
    );
    if (Number(changed.changes) === 0) throw new NotFound(ACCESS_MSG.passkeyNotFound);
  }

  remove(userId: number, id: string): void {
    const changed = this.db.prepare("DELETE FROM passkeys WHERE id = ? AND user_id = ?").run(id, userId);
    if (Number(changed.changes) === 0) throw new NotFound(ACCESS_MSG.passkeyNotFound);
  }

  // ---- Registration ----

  async registrationOptions(user: UserRow, rp: RelyingParty) {
    if (this.count(user.id) >= PASSKEYS_PER_USER_MAX) {
      throw new Invalid(`At most ${PASSKEYS_PER_USER_MAX} passkeys per user`);
    }
    const options = await (await simpleWebAuthn()).generateRegistrationOptions({
      rpName: "Factorio Panel",
      rpID: rp.id,
      userName: user.username,
      // A stable, opaque handle: the authenticator keeps it and hands it back on passwordless sign-in.
      userID: new TextEncoder().encode(`panel-user-${user.id}`),
      attestationType: "none",
      excludeCredentials: this.#rows(user.id).map((r) => ({ id: r.id })),
      authenticatorSelection: { residentKey: "preferred", userVerification: "preferred" },
    });
    this.#remember(options.challenge, { userId: user.id, purpose: "register" });
    return options;
  }

  async register(
    user: UserRow,
    body: { name?: unknown; response?: unknown },
    rp: RelyingParty,
  ): Promise<Passkey> {
    const name = cleanName(body.name);
    const response = body.response as RegistrationResponseJSON;
    if (typeof response !== "object" || response === null) throw new Invalid(ACCESS_MSG.passkeyFailed);
    let verified;
    try {
      verified = await (await simpleWebAuthn()).verifyRegistrationResponse({
        response,
        expectedChallenge: (c) => this.#take(c, "register", user.id),
        expectedOrigin: rp.origins,
        expectedRPID: rp.id,
        requireUserVerification: false,
      });
    } catch {
      throw new Invalid(ACCESS_MSG.passkeyFailed);
    }
    if (!verified.verified) throw new Invalid(ACCESS_MSG.passkeyFailed);
    const { credential } = verified.registrationInfo;
    this.db.prepare(
      "INSERT INTO passkeys (id, user_id, name, public_key, counter, transports, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ).run(
      credential.id,
      user.id,
      name,
      credential.publicKey,
      credential.counter,
      (credential.transports ?? []).join(","),
      this.now(),
    );
    return this.list(user.id).find((p) => p.id === credential.id)!;
  }

  // ---- Sign-in ----

  /** Options for a sign-in: for the pending user's passkeys (second step), or any (passwordless). */
  async loginOptions(pendingUser: UserRow | null, rp: RelyingParty) {
    const options = await (await simpleWebAuthn()).generateAuthenticationOptions({
      rpID: rp.id,
      allowCredentials: pendingUser ? this.#rows(pendingUser.id).map((r) => ({ id: r.id })) : [],
      userVerification: pendingUser ? "discouraged" : "required",
    });
    this.#remember(options.challenge, { userId: pendingUser?.id ?? null, purpose: "login" });
    return options;
  }

  /** Verifies a sign-in assertion; answers the user id it proves. */
  async authenticate(
    pendingUser: UserRow | null,
    body: { response?: unknown },
    rp: RelyingParty,
  ): Promise<number> {
    const response = body.response as AuthenticationResponseJSON;
    if (typeof response !== "object" || response === null || typeof response.id !== "string") {
      throw new Unauthorized(ACCESS_MSG.passkeyFailed);
    }
    const row = this.db.prepare("SELECT * FROM passkeys WHERE id = ?").get(response.id) as Row | undefined;
    if (!row || (pendingUser && row.user_id !== pendingUser.id)) {
      throw new Unauthorized(ACCESS_MSG.passkeyFailed);
    }
    let verified;
    try {
      verified = await (await simpleWebAuthn()).verifyAuthenticationResponse({
        response,
        expectedChallenge: (c) => this.#take(c, "login", pendingUser?.id ?? null),
        expectedOrigin: rp.origins,
        expectedRPID: rp.id,
        credential: { id: row.id, publicKey: new Uint8Array(row.public_key), counter: row.counter },
        // Alone, the passkey is both factors: the authenticator must have checked the person.
        requireUserVerification: !pendingUser,
      });
    } catch {
      throw new Unauthorized(ACCESS_MSG.passkeyFailed);
    }
    if (!verified.verified) throw new Unauthorized(ACCESS_MSG.passkeyFailed);
    this.db.prepare("UPDATE passkeys SET counter = ?, last_used_at = ? WHERE id = ?")
      .run(verified.authenticationInfo.newCounter, this.now(), row.id);
    return row.user_id;
  }

  #remember(challenge: string, c: Omit<Challenge, "expires">): void {
    const now = this.now();
    for (const [k, v] of this.#challenges) if (v.expires <= now) this.#challenges.delete(k);
    if (this.#challenges.size > 10_000) this.#challenges.clear();
    this.#challenges.set(challenge, { ...c, expires: now + CHALLENGE_MS });
  }

  /** A challenge is good once, for the purpose and user it was made for. */
  #take(challenge: string, purpose: Challenge["purpose"], userId: number | null): boolean {
    const c = this.#challenges.get(challenge);
    this.#challenges.delete(challenge);
    return !!c && c.purpose === purpose && c.userId === userId && c.expires > this.now();
  }

  #rows(userId: number): Row[] {
    return this.db.prepare("SELECT * FROM passkeys WHERE user_id = ? ORDER BY created_at").all(
      userId,
    ) as unknown as Row[];
  }
}
