// The panel's VAPID key pair (RFC 8292): made on first start, kept in <data-dir>/vapid-keys.json readable
// only by the panel's user. The public key goes to browsers (they bind their subscription to it); the
// private key signs every push and never leaves this file.

import { chmodSync, existsSync, readFileSync, renameSync, statSync } from "node:fs";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { writeSecretFile } from "../lib/fsutil.ts";
import type { Logger } from "../lib/log.ts";

export const VAPID_FILE = "vapid-keys.json";

export interface VapidKeys {
  /** base64url of the uncompressed P-256 point (65 bytes), as PushManager.subscribe wants it. */
  publicKey: string;
  /** base64url of the 32-byte private scalar. */
  privateKey: string;
}

export interface LoadedKeys {
  keys: VapidKeys;
  /** True when new keys were made (first start, or the old file was unusable). */
  created: boolean;
}

function valid(k: unknown): k is VapidKeys {
  if (typeof k !== "object" || k === null) return false;
  const { publicKey, privateKey } = k as Record<string, unknown>;
  if (typeof publicKey !== "string" || typeof privateKey !== "string") return false;
  if (!/^[A-Za-z0-9_-]+$/.test(publicKey) || !/^[A-Za-z0-9_-]+$/.test(privateKey)) return false;
  const pub = Buffer.from(publicKey, "base64url");
  return pub.length === 65 && pub[0] === 4 && Buffer.from(privateKey, "base64url").length === 32;
}

/**
 * Reads the key pair, or makes one. A file that cannot be used is kept aside (never silently
 * overwritten) and replaced; the caller must then drop existing subscriptions, which were bound to
 * the old public key and can no longer be sent to.
 */
export async function loadOrCreateVapidKeys(dataDir: string, log: Logger): Promise<LoadedKeys> {
  const file = join(dataDir, VAPID_FILE);
  if (existsSync(file)) {
    // Only what was read and found wrong is replaced: a file that could not be read at all (out of open
    // files, an I/O error, a folder in its place) may hold good keys, and new ones would cut off every device.
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      throw new Error(`${file} could not be read (${(e as Error).message}); it was left as it is`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (valid(parsed)) {
      if ((statSync(file).mode & 0o077) !== 0) {
        chmodSync(file, 0o600);
        log.warn(`${VAPID_FILE} was readable by others; made it owner-only`);
      }
      return { keys: { publicKey: parsed.publicKey, privateKey: parsed.privateKey }, created: false };
    }
    const aside = `${file}.unusable-${Date.now()}`;
    renameSync(file, aside);
    log.error(
      `${VAPID_FILE} is not a valid key pair; kept it as ${aside} and made new keys. Devices must enable notifications again.`,
    );
  }
  // A P-256 key pair as VAPID wants it (what web-push's generateVAPIDKeys makes), without loading
  // web-push at start: the uncompressed public point (0x04, x, y) and the 32-byte private scalar.
  const pair = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
    "sign",
    "verify",
  ]);
  const jwk = await crypto.subtle.exportKey("jwk", pair.privateKey);
  const [x, y, d] = [jwk.x, jwk.y, jwk.d].map((v) => Buffer.from(v ?? "", "base64url"));
  if (x.length !== 32 || y.length !== 32 || d.length !== 32) {
    throw new Error("could not make a P-256 key pair");
  }
  const point = Buffer.concat([Buffer.from([4]), x, y]);
  const keys = { publicKey: point.toString("base64url"), privateKey: d.toString("base64url") };
  writeSecretFile(file, JSON.stringify({ ...keys, created_at: new Date().toISOString() }, null, 2) + "\n");
  log.info("Made the VAPID key pair for push notifications", { file: VAPID_FILE });
  return { keys, created: true };
}
