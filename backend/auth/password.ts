// Password hashing with scrypt (memory-hard), from node:crypto. Stored as
// "scrypt$N$r$p$salt$hash" so the cost can be raised later without breaking old hashes.

import { randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import bcrypt from "bcryptjs";

/** Prefix of a password hash imported from the old panel (bcrypt); see migrate/fsm.ts. */
export const FSM_HASH_PREFIX = "fsm-bcrypt$";

const N = 1 << 15; // 32 MiB per hash with r = 8
const R = 8;
const P = 1;
const KEY_LEN = 32;

/**
 * Each hash takes 32 MiB and a core for a moment (a bcrypt check of the old panel's hashes a core too):
 * at most two run at once and the rest wait their turn, so a burst of sign-ins costs time, not memory.
 * `hashWaiting()` lets the sign-in refuse when the line is long.
 */
const HASHES_AT_ONCE = 2;
let running = 0;
const line: (() => void)[] = [];
export const hashStats = { peak: 0, total: 0 };

export function hashWaiting(): number {
  return line.length;
}

/** Runs one hash (scrypt or bcrypt) in its turn. */
async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (running >= HASHES_AT_ONCE) await new Promise<void>((go) => line.push(go));
  running++;
  hashStats.total++;
  hashStats.peak = Math.max(hashStats.peak, running);
  try {
    return await work();
  } finally {
    running--;
    line.shift()?.();
  }
}

function derive(password: string, salt: Uint8Array, n: number, r: number, p: number): Promise<Uint8Array> {
  return inTurn(() => deriveNow(password, salt, n, r, p));
}

function deriveNow(password: string, salt: Uint8Array, n: number, r: number, p: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize("NFC"),
      salt,
      KEY_LEN,
      { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 },
      (err, key) => err ? reject(err) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, N, R, P);
  return ["scrypt", N, R, P, salt.toBase64(), key.toBase64()].join("$");
}

/**
 * Hashes are stored by the panel and brought in by imports (the old panel's bcrypt, another panel's
 * export). Each is checked with the cost it names, so an imported one could ask for any: scrypt with
 * N = 2^20 took 1 GiB and 6 s per wrong sign-in, bcrypt of cost 31 days. Imports take only these (see
 * importedHashProblem), and a check refuses anything above them.
 */
export const BCRYPT_COST_MAX = 12;
const SALT_BYTES = 16;

/** scrypt parameters no dearer than the panel's own (a later panel may raise N; older hashes keep working). */
function affordableScrypt(n: number, r: number, p: number): boolean {
  return Number.isSafeInteger(n) && n >= 2 && n <= N && (n & (n - 1)) === 0 && r === R && p === P;
}

/** The cost of a bcrypt hash ("$2b$10$..."), or NaN. */
function bcryptCost(hash: string): number {
  const m = /^\$2[aby]\$(\d{2})\$[./A-Za-z0-9]{53}$/.exec(hash);
  return m ? Number(m[1]) : NaN;
}

/** Why a bcrypt hash of the old panel is not taken, or null. */
export function bcryptHashProblem(hash: string): string | null {
  const cost = bcryptCost(hash);
  if (Number.isNaN(cost)) return "is not a bcrypt hash as the old panel stores it";
  if (cost > BCRYPT_COST_MAX) {
    return `is a bcrypt hash of cost ${cost}; the panel takes at most ${BCRYPT_COST_MAX}`;
  }
  return null;
}

/**
 * Why a stored hash from an import is not taken, or null: only the panel's own form (scrypt with its
 * parameters, a 16-byte salt and a 32-byte key) and the old panel's bcrypt kept until the next sign-in.
 */
export function importedHashProblem(stored: string): string | null {
  if (stored.startsWith(FSM_HASH_PREFIX)) return bcryptHashProblem(stored.slice(FSM_HASH_PREFIX.length));
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return "is not a password hash of this panel";
  const [n, r, p] = parts.slice(1, 4).map(Number);
  if (n !== N || r !== R || p !== P) {
    return `is a scrypt hash with N=${parts[1]}, r=${parts[2]}, p=${
      parts[3]
    }; the panel takes only N=${N}, r=${R}, p=${P}`;
  }
  if (fromBase64(parts[4])?.length !== SALT_BYTES || fromBase64(parts[5])?.length !== KEY_LEN) {
    return "is a damaged password hash";
  }
  return null;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  // Imported from the old panel (migrate/fsm.ts): its bcrypt hash, until the user's next sign-in.
  if (stored.startsWith(FSM_HASH_PREFIX)) {
    const hash = stored.slice(FSM_HASH_PREFIX.length);
    if (bcryptHashProblem(hash)) return false;
    return await inTurn(() => bcrypt.compare(password, hash));
  }
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [n, r, p] = parts.slice(1, 4).map(Number);
  if (!affordableScrypt(n, r, p)) return false;
  const salt = fromBase64(parts[4]);
  const expected = fromBase64(parts[5]);
  if (!salt || !expected) return false;
  const key = await derive(password, salt, n, r, p);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** Standard base64 decoded; null when the text is not base64 (a damaged stored hash). */
function fromBase64(text: string): Uint8Array | null {
  try {
    return Uint8Array.fromBase64(text);
  } catch {
    return null;
  }
}

/** Whether a stored hash should be replaced by the panel's own at the next successful sign-in. */
export function needsRehash(stored: string): boolean {
  return !stored.startsWith("scrypt$");
}

/** A hash of nothing in particular, verified against for unknown users so timing does not reveal them. */
let decoy: Promise<string> | undefined;
export function decoyHash(): Promise<string> {
  return (decoy ??= hashPassword(randomBytes(16).toString("hex")));
}

const ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";

/** A random password for people to type: 20 characters without look-alikes (about 116 bits). */
export function randomPassword(length = 20): string {
  const out: string[] = [];
  while (out.length < length) {
    for (const b of randomBytes(length * 2)) {
      // Rejection sampling keeps every character equally likely.
      if (b < 256 - (256 % ALPHABET.length) && out.length < length) out.push(ALPHABET[b % ALPHABET.length]);
    }
  }
  return out.join("");
}
