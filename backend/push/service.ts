// Web Push for the panel: the VAPID keys, each user's devices (subscriptions) and the rules for them,
// the notifier (one consumer of the alert dispatcher), quiet hours, and the test notification.

import { readFileSync } from "node:fs";
import { Buffer } from "node:buffer";
import type { Config } from "../boot/config.ts";
import type { Logger } from "../lib/log.ts";
import type { Db } from "../store/db.ts";
import { deviceOf, PushSubscriptionStore } from "../store/push.ts";
import { Conflict, Invalid, NotFound } from "../lib/errors.ts";
import { type LoadedKeys, loadOrCreateVapidKeys, type VapidKeys } from "./vapid.ts";
import { PushSender } from "./sender.ts";
import { pushTarget, PushTargetRefused } from "./target.ts";
import { deliveryFor, Notifier, tagOf } from "./notifier.ts";
import { parseQuietHours } from "./quiet.ts";
import type { QuietHours } from "../../shared/alerts.ts";
import {
  DEFAULT_PUSH_EVENTS,
  isPushEvent,
  type PushDevice,
  type PushEvent,
  type PushTestResult,
} from "../../shared/api.ts";
import { PUSH_MSG } from "../../shared/messages.ts";
import { checkServers, type ServerLookup, serverLookup } from "../alerts/alert.ts";
import { unsafeTextError } from "../../shared/validation.ts";

export const DEVICE_NAME_MAX = 60;
export const MAX_DEVICES_PER_USER = 20;
const ENDPOINT_MAX = 2048;

export interface PushDeps {
  config: Config;
  db: Db;
  log: Logger;
  now: () => number;
  /** Whether a server id exists (a device may only choose existing servers). Default: server 1 only. */
  serverExists?: (id: number) => boolean;
  /** Whether a user has a role on a server: their devices get its alerts and may choose it. Default: server 1. */
  canSee?: (userId: number, serverId: number) => boolean;
}

export class PushService {
  readonly store: PushSubscriptionStore;
  readonly notifier: Notifier;
  /** The servers as push knows them (read at each use: tests and a later registry may replace members). */
  readonly servers: Pick<ServerLookup, "serverExists" | "canSee">;
  readonly #keys: VapidKeys;
  readonly #sender: PushSender;

  /** Reads the VAPID keys (or makes them, on first start) and builds the service. */
  static async open(deps: PushDeps): Promise<PushService> {
    return new PushService(deps, await loadOrCreateVapidKeys(deps.config.dataDir, deps.log));
  }

  private constructor(private readonly deps: PushDeps, { keys, created }: LoadedKeys) {
    this.store = new PushSubscriptionStore(deps.db);
    const servers = this.servers = serverLookup(deps);
    this.#keys = keys;
    if (created) {
      // Subscriptions are bound to the public key they were made with; with a new key they are dead.
      const dropped = this.store.deleteAll();
      if (dropped > 0) deps.log.warn("New VAPID keys: removed the old push subscriptions", { dropped });
    }
    const caCerts = deps.config.pushCaFile ? [readFileSync(deps.config.pushCaFile, "utf8")] : undefined;
    this.#sender = new PushSender(keys, deps.config.pushSubject, {
      caCerts,
      privateHosts: deps.config.pushPrivateHosts,
    });
    this.notifier = new Notifier({
      store: this.store,
      sender: this.#sender,
      log: deps.log,
      now: deps.now,
      canSee: (userId, serverId) => servers.canSee(userId, serverId),
    });
  }

  get publicKey(): string {
    return this.#keys.publicKey;
  }

  devices(userId: number): PushDevice[] {
    return this.store.forUser(userId).map(deviceOf);
  }

  async subscribe(userId: number, body: Record<string, unknown>, userAgent: string): Promise<PushDevice> {
    const sub = body.subscription;
    if (typeof sub !== "object" || sub === null) throw new Invalid(PUSH_MSG.subscriptionRequired);
    const { endpoint, keys } = sub as Record<string, unknown>;
    if (typeof endpoint !== "string" || !isPushEndpoint(endpoint)) {
      throw new Invalid(PUSH_MSG.endpointInvalid);
    }
    const { p256dh, auth } = (typeof keys === "object" && keys !== null ? keys : {}) as Record<
      string,
      unknown
    >;
    if (!isP256PublicKey(p256dh) || !isAuthSecret(auth)) throw new Invalid(PUSH_MSG.keysInvalid);
    const name = body.name === undefined ? deviceName(userAgent) : checkName(body.name);
    const events = body.events === undefined ? [...DEFAULT_PUSH_EVENTS] : checkEvents(body.events);
    try {
      await pushTarget(endpoint, this.deps.config.pushPrivateHosts);
    } catch (e) {
      if (e instanceof PushTargetRefused) throw new Invalid(PUSH_MSG.endpointPrivate);
      // A name that does not resolve now may later: every message is checked again before it is sent.
    }

    const existing = this.store.byEndpoint(endpoint);
    if (existing?.user_id !== userId && this.store.countForUser(userId) >= MAX_DEVICES_PER_USER) {
      throw new Conflict(PUSH_MSG.tooManyDevices(MAX_DEVICES_PER_USER));
    }
    const row = this.store.upsert({
      userId,
      endpoint,
      p256dh: (p256dh as string).replace(/=+$/, ""),
      auth: (auth as string).replace(/=+$/, ""),
      name,
      userAgent,
      events,
      now: this.deps.now(),
    });
    this.deps.log.info(existing ? "Push subscription renewed" : "Push subscription added", {
      device: row.id,
      user: userId,
      ...(existing && existing.user_id !== userId ? { taken_over_from_user: existing.user_id } : {}),
    });
    return deviceOf(row);
  }

  /** Removes one of the user's devices, named by id or by endpoint. */
  unsubscribe(userId: number, body: Record<string, unknown>): void {
    const row = typeof body.id === "number"
      ? this.store.byId(body.id)
      : typeof body.endpoint === "string"
      ? this.store.byEndpoint(body.endpoint)
      : undefined;
    if (!row || row.user_id !== userId) throw new NotFound(PUSH_MSG.deviceNotFound);
    this.store.delete(row.id);
    this.deps.log.info("Push subscription removed", { device: row.id, user: userId });
  }

  update(userId: number, id: number, body: Record<string, unknown>): PushDevice {
    const row = this.store.byId(id);
    if (!row || row.user_id !== userId) throw new NotFound(PUSH_MSG.deviceNotFound);
    const change: {
      name?: string;
      events?: PushEvent[];
      servers?: number[] | null;
      quiet?: QuietHours | null;
    } = {};
    if (body.name !== undefined) change.name = checkName(body.name);
    if (body.events !== undefined) change.events = checkEvents(body.events);
    if (body.servers !== undefined) {
      // Only servers the user sees: another id is "no such server", whether it exists or not.
      change.servers = checkServers(
        body.servers,
        (sid) => this.servers.serverExists(sid) && this.servers.canSee(userId, sid),
      );
    }
    if (body.quiet_hours !== undefined) {
      const quiet = body.quiet_hours === null ? null : parseQuietHours(body.quiet_hours);
      if (quiet === null && body.quiet_hours !== null) throw new Invalid(PUSH_MSG.quietHoursInvalid);
      change.quiet = quiet;
    }
    this.store.update(id, change);
    return deviceOf(this.store.byId(id)!);
  }

  /** Sends the test notification now to one device (or all of the user's) and says how each went. */
  async test(userId: number, body: Record<string, unknown>): Promise<PushTestResult[]> {
    let rows = this.store.forUser(userId);
    if (body.id !== undefined) {
      rows = rows.filter((r) => r.id === body.id);
      if (rows.length === 0) throw new NotFound(PUSH_MSG.deviceNotFound);
    }
    if (rows.length === 0) throw new Invalid(PUSH_MSG.noDevices);
    const at = new Date(this.deps.now()).toISOString();
    return await Promise.all(rows.map(async (row): Promise<PushTestResult> => {
      const result = await this.notifier.send(
        row.id,
        {
          kind: "test",
          title: PUSH_MSG.titleTest,
          body: PUSH_MSG.bodyTest,
          tag: tagOf("test"),
          url: "/notifications",
          at,
        },
        deliveryFor("test"),
      );
      if (result === null) {
        return { id: row.id, name: row.name, ok: false, status: null, message: PUSH_MSG.deviceNotFound };
      }
      if (result.kind === "delivered") {
        return {
          id: row.id,
          name: row.name,
          ok: true,
          status: result.status,
          message: `Sent to ${row.name} (push service answered ${result.status}).`,
        };
      }
      const removed = result.kind === "gone"
        ? " The device was removed: enable notifications on it again."
        : "";
      return {
        id: row.id,
        name: row.name,
        ok: false,
        status: result.status,
        message: `${row.name}: ${result.error}.${removed}`,
      };
    }));
  }

  /** A server was deleted: devices limited to chosen servers no longer list it. */
  forgetServer(id: number): void {
    this.store.forgetServer(id);
  }

  close(): void {
    this.notifier.close();
  }
}

/** Push services are reached over https only; the endpoint must be an absolute https URL, no credentials. */
export function isPushEndpoint(endpoint: string): boolean {
  if (endpoint.length > ENDPOINT_MAX) return false;
  try {
    const u = new URL(endpoint);
    return u.protocol === "https:" && u.username === "" && u.password === "" && u.hostname !== "";
  } catch {
    return false;
  }
}

function base64url(value: unknown): Buffer | null {
  if (typeof value !== "string" || !/^[A-Za-z0-9_-]+={0,2}$/.test(value)) return null;
  return Buffer.from(value, "base64url");
}

// P-256 (SEC 2, section 2.4.2): y^2 = x^3 - 3x + b over the prime field p.
const P256_P = 2n ** 256n - 2n ** 224n + 2n ** 192n + 2n ** 96n - 1n;
const P256_B = 0x5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604bn;

/**
 * An uncompressed P-256 point that is actually on the curve, which is what an ECDH with it needs (the
 * curve's cofactor is 1, so every point on it other than infinity is a valid public key).
 */
export function isP256PublicKey(value: unknown): boolean {
  const bytes = base64url(value);
  if (!bytes || bytes.length !== 65 || bytes[0] !== 4) return false;
  const x = BigInt("0x" + bytes.subarray(1, 33).toString("hex"));
  const y = BigInt("0x" + bytes.subarray(33).toString("hex"));
  if (x >= P256_P || y >= P256_P) return false;
  const mod = (v: bigint) => ((v % P256_P) + P256_P) % P256_P;
  return mod(y * y) === mod(x * x * x - 3n * x + P256_B);
}

function isAuthSecret(value: unknown): boolean {
  return base64url(value)?.length === 16;
}

function checkName(value: unknown): string {
  const name = typeof value === "string" ? value.trim() : "";
  if (name.length < 1 || name.length > DEVICE_NAME_MAX) {
    throw new Invalid(PUSH_MSG.nameInvalid(DEVICE_NAME_MAX));
  }
  const unsafe = unsafeTextError(value as string, "A device name");
  if (unsafe) throw new Invalid(`${unsafe}.`);
  return name;
}

function checkEvents(value: unknown): PushEvent[] {
  if (!Array.isArray(value) || !value.every(isPushEvent)) throw new Invalid(PUSH_MSG.eventsInvalid);
  return [...new Set(value)];
}

/** "Firefox on Android", "Safari on iPhone", ... from a User-Agent; what the device list shows until renamed. */
export function deviceName(userAgent: string): string {
  const ua = userAgent;
  const browser = /Edg(e|A|iOS)?\//.test(ua)
    ? "Edge"
    : /OPR\/|Opera/.test(ua)
    ? "Opera"
    : /SamsungBrowser\//.test(ua)
    ? "Samsung Internet"
    : /Firefox\/|FxiOS\//.test(ua)
    ? "Firefox"
    : /Chrome\/|CriOS\/|Chromium\//.test(ua)
    ? "Chrome"
    : /Safari\//.test(ua)
    ? "Safari"
    : "Browser";
  const os = /iPhone/.test(ua)
    ? "iPhone"
    : /iPad/.test(ua)
    ? "iPad"
    : /Android/.test(ua)
    ? "Android"
    : /CrOS/.test(ua)
    ? "ChromeOS"
    : /Windows/.test(ua)
    ? "Windows"
    : /Mac OS X|Macintosh/.test(ua)
    ? "macOS"
    : /Linux/.test(ua)
    ? "Linux"
    : "";
  return os ? `${browser} on ${os}` : browser;
}
