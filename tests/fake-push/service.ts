// A local stand-in for a browser's push service (FCM, Mozilla autopush, Apple...): it hands out
// subscriptions the way a browser's PushManager would get them, and accepts Web Push messages for them
// over HTTPS the way a real service does. It checks what a real service checks (the VAPID ES256 JWT and
// its audience, expiry and subject; the VAPID key the subscription was made for; TTL; aes128gcm), then
// decrypts the payload with the subscription's private key, so tests can read what the panel sent.
// Per subscription it can answer 404/410 (gone), 429 or 5xx on demand, to test cleanup and retries.

import { createECDH, randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Buffer } from "node:buffer";
// @ts-types="./http_ece.d.ts"
import ece from "http_ece";

export const TLS_DIR = join(dirname(fileURLToPath(import.meta.url)), "tls");
/** The CA that signed the service's certificate: give it to the panel with --push-ca-file. */
export const CA_FILE = join(TLS_DIR, "ca.pem");

/** What PushSubscription.toJSON() gives a page, plus the id the service knows it by. */
export interface FakeSubscription {
  id: string;
  endpoint: string;
  expirationTime: null;
  keys: { p256dh: string; auth: string };
}

/** One delivery attempt as the service saw it. */
export interface ReceivedPush {
  seq: number;
  subscriptionId: string;
  /** Wall-clock time (ms since the epoch) the request arrived. */
  receivedAt: number;
  /** What the service answered. */
  status: number;
  /** Why it refused, when it did. */
  problem: string | null;
  ttl: number | null;
  urgency: string | null;
  topic: string | null;
  /** Claims of the verified VAPID JWT. */
  claims: { aud: string; exp: number; sub: string } | null;
  /** The decrypted payload (null when refused before decrypting). */
  payload: string | null;
}

interface Entry {
  sub: FakeSubscription;
  ecdh: ReturnType<typeof createECDH>;
  auth: Buffer;
  applicationServerKey: string;
  /** Answers to give instead of accepting, in order; each is used `times` times. */
  scripted: { status: number; times: number; headers: Record<string, string>; body?: ScriptedBody }[];
}

const MAX_PAYLOAD = 4096;

/** A scripted answer's body: a text, or `bytes` bytes starting with `text` (sent as they are read). */
export type ScriptedBody = string | { bytes: number; text: string };

export class FakePushService {
  readonly origin: string;
  #server: Deno.HttpServer;
  #subs = new Map<string, Entry>();
  #received: ReceivedPush[] = [];
  #waiters = new Set<() => void>();
  #seq = 0;

  private constructor(server: Deno.HttpServer, origin: string) {
    this.#server = server;
    this.origin = origin;
  }

  static start(): Promise<FakePushService> {
    const cert = Deno.readTextFileSync(join(TLS_DIR, "cert.pem"));
    const key = Deno.readTextFileSync(join(TLS_DIR, "key.pem"));
    const box: { service?: FakePushService } = {};
    const server = Deno.serve(
      { port: 0, hostname: "127.0.0.1", cert, key, onListen: () => {} },
      (req) => box.service!.#handle(req),
    );
    box.service = new FakePushService(server, `https://127.0.0.1:${server.addr.port}`);
    return Promise.resolve(box.service);
  }

  /**
   * A new subscription for a browser whose page called pushManager.subscribe({applicationServerKey}).
   * Only messages signed with that VAPID key are accepted, as real services do.
   */
  subscribe(applicationServerKey: string): FakeSubscription {
    const id = randomBytes(9).toString("base64url");
    const ecdh = createECDH("prime256v1");
    ecdh.generateKeys();
    const auth = randomBytes(16);
    const sub: FakeSubscription = {
      id,
      endpoint: `${this.origin}/push/${id}`,
      expirationTime: null,
      keys: { p256dh: ecdh.getPublicKey().toString("base64url"), auth: auth.toString("base64url") },
    };
    this.#subs.set(id, { sub, ecdh, auth, applicationServerKey, scripted: [] });
    return sub;
  }

  /** Answers the next `times` messages for `id` with `status` (and `body`) instead of accepting them. */
  respondWith(
    id: string,
    status: number,
    times = Infinity,
    headers: Record<string, string> = {},
    body?: ScriptedBody,
  ): void {
    const entry = this.#subs.get(id);
    if (!entry) throw new Error(`no subscription ${id}`);
    entry.scripted.push({ status, times, headers, body });
  }

  /** Bytes of scripted bodies the readers took so far (a stream is pulled as the socket drains). */
  bodyBytesSent = 0;

  /** Forgets a subscription: later messages for it get 410 Gone, as when a user revokes permission. */
  expire(id: string): void {
    this.respondWith(id, 410);
  }

  /** Every attempt so far, oldest first. */
  received(): ReceivedPush[] {
    return [...this.#received];
  }

  /** Accepted (201) messages, decrypted. */
  delivered(subscriptionId?: string): ReceivedPush[] {
    return this.#received.filter((r) =>
      r.status === 201 && (!subscriptionId || r.subscriptionId === subscriptionId)
    );
  }

  /** Resolves with the first attempt (after `afterSeq`) that matches; rejects after `timeoutMs`. */
  waitFor(
    match: (r: ReceivedPush) => boolean,
    { afterSeq = 0, timeoutMs = 30_000 }: { afterSeq?: number; timeoutMs?: number } = {},
  ): Promise<ReceivedPush> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = this.#received.find((r) => r.seq > afterSeq && match(r));
        if (!hit) return false;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(hit);
        return true;
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`no matching push within ${timeoutMs} ms; got ${JSON.stringify(this.#received)}`));
      }, timeoutMs);
      if (!check()) this.#waiters.add(check);
    });
  }

  get lastSeq(): number {
    return this.#seq;
  }

  async close(): Promise<void> {
    await this.#server.shutdown();
  }

  #record(r: Omit<ReceivedPush, "seq" | "receivedAt">, receivedAt: number): void {
    this.#received.push({ seq: ++this.#seq, receivedAt, ...r });
    for (const w of [...this.#waiters]) (w as () => boolean)();
  }

  #stream({ bytes, text }: { bytes: number; text: string }): ReadableStream<Uint8Array> {
    const chunk = new Uint8Array(64 * 1024).fill(120);
    chunk.set(new TextEncoder().encode(text));
    let left = bytes;
    return new ReadableStream({
      pull: (c) => {
        if (left <= 0) return c.close();
        const part = chunk.subarray(0, Math.min(left, chunk.length));
        left -= part.length;
        this.bodyBytesSent += part.length;
        c.enqueue(part.slice());
        chunk.fill(120, 0, text.length); // only the first chunk starts with the text
      },
    });
  }

  async #handle(req: Request): Promise<Response> {
    const receivedAt = Date.now();
    const url = new URL(req.url);
    const m = /^\/push\/([\w-]+)$/.exec(url.pathname);
    if (req.method !== "POST" || !m) return new Response("not found", { status: 404 });
    const entry = this.#subs.get(m[1]);
    const body = new Uint8Array(await req.arrayBuffer());
    const base = { subscriptionId: m[1], ttl: null, urgency: null, topic: null, claims: null, payload: null };
    const refuse = (status: number, problem: string, headers: Record<string, string> = {}) => {
      this.#record({ ...base, status, problem }, receivedAt);
      return new Response(problem, { status, headers });
    };
    if (!entry) return refuse(404, "no such subscription");

    const script = entry.scripted[0];
    if (script) {
      if (--script.times <= 0) entry.scripted.shift();
      if (typeof script.body === "object") {
        this.#record({ ...base, status: script.status, problem: "scripted huge answer" }, receivedAt);
        return new Response(this.#stream(script.body), { status: script.status, headers: script.headers });
      }
      return refuse(script.status, script.body ?? `scripted answer ${script.status}`, script.headers);
    }

    const ttlHeader = req.headers.get("ttl");
    if (ttlHeader === null || !/^\d+$/.test(ttlHeader)) return refuse(400, "missing or bad TTL header");
    const urgency = req.headers.get("urgency");
    if (urgency !== null && !["very-low", "low", "normal", "high"].includes(urgency)) {
      return refuse(400, `bad Urgency ${urgency}`);
    }
    const topic = req.headers.get("topic");
    if (topic !== null && !/^[A-Za-z0-9_-]{1,32}$/.test(topic)) return refuse(400, `bad Topic ${topic}`);

    const vapid = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(req.headers.get("authorization") ?? "");
    if (!vapid) return refuse(401, "missing VAPID authorization");
    if (vapid[2] !== entry.applicationServerKey) {
      return refuse(403, "VAPID key differs from the one the subscription was made with");
    }
    const claims = await verifyJwt(vapid[1], vapid[2]);
    if (typeof claims === "string") return refuse(401, claims);
    const now = Math.floor(Date.now() / 1000);
    if (claims.aud !== this.origin) return refuse(401, `JWT audience ${claims.aud} is not ${this.origin}`);
    if (!(claims.exp > now && claims.exp <= now + 24 * 3600)) {
      return refuse(401, "JWT expiry not within 24 hours");
    }
    if (!/^(mailto:|https:)/.test(claims.sub ?? "")) {
      return refuse(401, `JWT subject ${claims.sub} is no mailto: or https: URL`);
    }

    if (req.headers.get("content-encoding") !== "aes128gcm") {
      return refuse(415, "Content-Encoding must be aes128gcm");
    }
    if (body.length > MAX_PAYLOAD) return refuse(413, "payload too large");
    let payload: string;
    try {
      payload = Buffer.from(
        ece.decrypt(Buffer.from(body), {
          version: "aes128gcm",
          privateKey: entry.ecdh,
          authSecret: entry.auth,
        }),
      ).toString("utf8");
    } catch (e) {
      return refuse(400, `cannot decrypt: ${(e as Error).message}`);
    }
    this.#record(
      { ...base, status: 201, problem: null, ttl: Number(ttlHeader), urgency, topic, claims, payload },
      receivedAt,
    );
    return new Response(null, { status: 201, headers: { Location: `${this.origin}/message/${this.#seq}` } });
  }
}

/** Verifies an ES256 JWT against the raw P-256 public key `k`; the claims, or why it is refused. */
async function verifyJwt(
  token: string,
  k: string,
): Promise<{ aud: string; exp: number; sub: string } | string> {
  const parts = token.split(".");
  if (parts.length !== 3) return "JWT is not three parts";
  let header: { alg?: string; typ?: string };
  let claims: { aud: string; exp: number; sub: string };
  try {
    header = JSON.parse(Buffer.from(parts[0], "base64url").toString());
    claims = JSON.parse(Buffer.from(parts[1], "base64url").toString());
  } catch {
    return "JWT is not JSON";
  }
  if (header.alg !== "ES256") return `JWT alg ${header.alg} is not ES256`;
  try {
    const key = await crypto.subtle.importKey(
      "raw",
      Buffer.from(k, "base64url"),
      { name: "ECDSA", namedCurve: "P-256" },
      false,
      ["verify"],
    );
    const ok = await crypto.subtle.verify(
      { name: "ECDSA", hash: "SHA-256" },
      key,
      Buffer.from(parts[2], "base64url"),
      new TextEncoder().encode(`${parts[0]}.${parts[1]}`),
    );
    return ok ? claims : "JWT signature does not verify";
  } catch (e) {
    return `JWT cannot be checked: ${(e as Error).message}`;
  }
}
