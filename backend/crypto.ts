// Random bytes, small hashes and encodings, without node:crypto or node:buffer (see backend/fs.ts for
// why the modules loaded at start avoid `node:` imports). Hashing a few dozen bytes (a session token,
// a recovery code, a webhook signature) is done synchronously by @noble/hashes, an audited, dependency-
// free package the panel already had through otpauth. Hashing whole files (backups, downloads) wants
// node:crypto's native speed: `fileHasher` loads it when such work first runs.

import { sha256 } from "@noble/hashes/sha2.js";
import { hmac } from "@noble/hashes/hmac.js";
import { bytesToHex } from "@noble/hashes/utils.js";

export function randomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

export function toHex(bytes: Uint8Array): string {
  return bytesToHex(bytes);
}

/** base64url without padding, as node:buffer writes it. */
export function toBase64url(bytes: Uint8Array): string {
  return bytes.toBase64({ alphabet: "base64url", omitPadding: true });
}

/** Decodes base64url (padding allowed); null when the text is not base64url. */
export function fromBase64url(text: string): Uint8Array | null {
  try {
    return Uint8Array.fromBase64(text, { alphabet: "base64url", lastChunkHandling: "loose" });
  } catch {
    return null;
  }
}

/** Decodes standard base64; null when the text is not base64. */
export function fromBase64(text: string): Uint8Array | null {
  try {
    return Uint8Array.fromBase64(text, { lastChunkHandling: "loose" });
  } catch {
    return null;
  }
}

export function randomHex(n: number): string {
  return toHex(randomBytes(n));
}

export function randomBase64url(n: number): string {
  return toBase64url(randomBytes(n));
}

/** SHA-256 of a UTF-8 text, in hex. */
export function sha256Hex(text: string): string {
  return toHex(sha256(new TextEncoder().encode(text)));
}

/** SHA-256 of a UTF-8 text, in standard base64 (as a Content-Security-Policy hash source wants it). */
export function sha256Base64(text: string): string {
  return sha256(new TextEncoder().encode(text)).toBase64();
}

/** HMAC-SHA256 of a UTF-8 text, in hex. */
export function hmacSha256Hex(key: string, text: string): string {
  const enc = new TextEncoder();
  return toHex(hmac(sha256, enc.encode(key), enc.encode(text)));
}

/** Whether two byte strings are equal, in a time that does not depend on where they differ. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

export interface Hasher {
  update(data: Uint8Array | string): Hasher;
  digest(encoding: "hex"): string;
}

/** An incremental SHA-256 or SHA-1 of a whole file, at native speed (node:crypto, loaded on first use). */
export async function fileHasher(algorithm: "sha256" | "sha1"): Promise<Hasher> {
  const { createHash } = await import("node:crypto");
  return createHash(algorithm);
}
