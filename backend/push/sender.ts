// Sends one Web Push message: web-push builds the request (aes128gcm encryption for the browser's keys,
// the VAPID JWT signed with our private key), and the panel delivers it itself over one TLS connection:
//
// - to an address it has checked (target.ts): the endpoint comes from a browser, so from any user, and a
//   name that resolves to this machine or the LAN is refused. fetch resolves the name again on its own
//   (a second answer could differ) and cannot say where it connected; here the socket is opened to the
//   checked address, and its remote address is checked once more before anything is sent;
// - with Deno's TLS (its roots, DENO_CERT, and --push-ca-file for a push service behind a private CA);
// - reading no more than the answer's status line and headers (at most 8 KiB): the status and
//   Retry-After are all the panel uses, and what a push service writes back is never shown to anyone.
//
// One HTTP/1.1 request per connection, which every push service accepts (web-push itself speaks no more).

import type { VapidKeys } from "./vapid.ts";
import type { PushPayload } from "../../shared/api.ts";
import { retryAfterMs } from "../../shared/util.ts";
import { type PushTarget as CheckedTarget, pushTarget, PushTargetRefused, sameAddress } from "./target.ts";

export interface PushTarget {
  endpoint: string;
  p256dh: string;
  auth: string;
}

export interface DeliveryOptions {
  /** Seconds the push service keeps the message for an unreachable device. */
  ttl: number;
  urgency: "very-low" | "low" | "normal" | "high";
  /** Push services replace an undelivered message with the same topic. */
  topic?: string;
}

export type SendResult =
  | { kind: "delivered"; status: number }
  /** 404/410: the browser dropped the subscription; it will never work again. */
  | { kind: "gone"; status: number; error: string }
  /** Worth another try later: no answer, 408, 429, 5xx. */
  | { kind: "retry"; status: number | null; retryAfterMs: number | null; error: string }
  /** The service refused the message itself (400, 401, 403, 413...): trying again will not help. */
  | { kind: "rejected"; status: number; error: string };

export const SEND_TIMEOUT_MS = 10_000;
/** The most of an answer read: its status line and headers. */
export const ANSWER_HEAD_MAX = 8192;

export class PushSender {
  readonly #caCerts: string[] | undefined;
  readonly #privateHosts: readonly string[];

  constructor(
    private readonly keys: VapidKeys,
    private readonly subject: string,
    opts: { caCerts?: string[]; privateHosts?: readonly string[]; timeoutMs?: number } = {},
  ) {
    this.#caCerts = opts.caCerts?.length ? opts.caCerts : undefined;
    this.#privateHosts = opts.privateHosts ?? [];
    this.timeoutMs = opts.timeoutMs ?? SEND_TIMEOUT_MS;
  }

  readonly timeoutMs: number;

  async send(target: PushTarget, payload: PushPayload, opts: DeliveryOptions, signal?: AbortSignal): Promise<SendResult> {
    let details: { endpoint: string; method: string; headers: Record<string, string | number>; body: Uint8Array | null };
    // Loaded on the first push, not at start: web-push and its CommonJS dependencies cost start-up time
    // and memory on every panel, most of which never send a notification (bench/startup.mjs).
    const { default: webpush } = await import("web-push");
    try {
      details = webpush.generateRequestDetails(
        { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
        JSON.stringify(payload),
        {
          vapidDetails: { subject: this.subject, publicKey: this.keys.publicKey, privateKey: this.keys.privateKey },
          TTL: opts.ttl,
          urgency: opts.urgency,
          topic: opts.topic,
          contentEncoding: "aes128gcm",
        },
      ) as typeof details;
    } catch (e) {
      // Keys the browser gave that cannot be encrypted to: as good as gone.
      return { kind: "rejected", status: 0, error: `cannot build the message: ${(e as Error).message}` };
    }
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const abort = signal ? AbortSignal.any([signal, timeout]) : timeout;
    let head: { status: number; retryAfter: string | null };
    try {
      const to = await pushTarget(details.endpoint, this.#privateHosts);
      head = await postOnce(to, details.headers, details.body ?? new Uint8Array(), this.#caCerts, abort);
    } catch (e) {
      if (e instanceof PushTargetRefused) return { kind: "rejected", status: 0, error: `not sent: ${e.message}` };
      const why = timeout.aborted ? `no answer within ${this.timeoutMs / 1000} s` : (e as Error).message;
      return { kind: "retry", status: null, retryAfterMs: null, error: `push service unreachable: ${why}` };
    }
    const status = head.status;
    if (status >= 200 && status < 300) return { kind: "delivered", status };
    const error = `push service answered ${status}`;
    if (status === 404 || status === 410) return { kind: "gone", status, error };
    if (status === 408 || status === 429 || status >= 500) {
      return { kind: "retry", status, retryAfterMs: retryAfterMs(head.retryAfter), error };
    }
    return { kind: "rejected", status, error };
  }
}

/** POSTs `body` to the checked target over a new TLS connection; answers the status and Retry-After. */
async function postOnce(
  to: CheckedTarget,
  headers: Record<string, string | number>,
  body: Uint8Array,
  caCerts: string[] | undefined,
  signal: AbortSignal,
): Promise<{ status: number; retryAfter: string | null }> {
  signal.throwIfAborted();
  let tcp: Deno.TcpConn | null = null;
  let lastError: unknown = null;
  for (const address of to.addresses) {
    try {
      tcp = await Deno.connect({ hostname: address, port: to.port, signal });
      break;
    } catch (e) {
      lastError = e;
    }
  }
  if (!tcp) throw lastError instanceof Error ? lastError : new Error("cannot connect");
  let conn: Deno.Conn = tcp;
  const close = () => {
    try {
      conn.close();
    } catch {
      // closed already
    }
  };
  signal.addEventListener("abort", close, { once: true });
  try {
    // Where the socket really went, before a byte is sent.
    const remote = tcp.remoteAddr.hostname;
    if (!to.addresses.some((a) => sameAddress(a, remote))) throw new PushTargetRefused("the connection went to an address that was not checked");
    conn = await Deno.startTls(tcp, { hostname: to.host, caCerts, alpnProtocols: ["http/1.1"] });
    const lines = [`POST ${to.url.pathname}${to.url.search} HTTP/1.1`, `Host: ${to.url.host}`, "Connection: close"];
    for (const [k, v] of Object.entries(headers)) {
      if (!/^(host|connection|content-length)$/i.test(k)) lines.push(`${k}: ${v}`);
    }
    lines.push(`Content-Length: ${body.length}`, "", "");
    const request = new Uint8Array([...new TextEncoder().encode(lines.join("\r\n")), ...body]);
    for (let sent = 0; sent < request.length;) sent += await conn.write(request.subarray(sent));
    return parseHead(await readHead(conn));
  } catch (e) {
    signal.throwIfAborted();
    throw e;
  } finally {
    signal.removeEventListener("abort", close);
    close();
  }
}

/** Interim answers (103 Early Hints...) that may come before the real one. */
const INTERIM = /^(?:HTTP\/1\.[01] 1\d\d[^\r]*\r\n(?:[^\r]+\r\n)*\r\n)+/;

/** The answer's head, read up to the end of its headers or ANSWER_HEAD_MAX bytes, whichever comes first. */
async function readHead(conn: Deno.Conn): Promise<string> {
  const buf = new Uint8Array(ANSWER_HEAD_MAX);
  let size = 0;
  const head = () => new TextDecoder().decode(buf.subarray(0, size)).replace(INTERIM, "");
  while (size < buf.length && !head().includes("\r\n\r\n")) {
    const n = await conn.read(buf.subarray(size));
    if (n === null) break;
    size += n;
  }
  return head();
}

function parseHead(head: string): { status: number; retryAfter: string | null } {
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(head);
  if (!status) throw new Error("the answer is not HTTP");
  const retryAfter = /\r\nretry-after:[ \t]*([^\r]*)/i.exec(head);
  return { status: Number(status[1]), retryAfter: retryAfter ? retryAfter[1].trim() : null };
}

/** The push service's host, for logs: the full endpoint is a capability and stays out of them. */
export function serviceHost(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return "?";
  }
}
