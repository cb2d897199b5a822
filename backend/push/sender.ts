// Sends one Web Push message: web-push builds the request (aes128gcm encryption for the browser's keys,
// the VAPID JWT signed with our private key), and node:https delivers it:
//
// - to an address the panel has checked (target.ts): the endpoint comes from a browser, so from any user,
//   and a name that resolves to this machine or the LAN is refused. The request's `lookup` answers the
//   checked addresses, so the name is not resolved a second time (a second answer could differ);
// - with the usual roots, and those of --push-ca-file for a push service behind a private CA;
// - reading no more than the answer's status line and headers: the status and Retry-After are all the
//   panel uses, and what a push service writes back is never shown to anyone, so the connection is closed
//   before its body.

import { request } from "node:https";
import { rootCertificates } from "node:tls";
import webpush from "web-push";
import type { VapidKeys } from "./vapid.ts";
import type { PushPayload } from "../../shared/api.ts";
import { retryAfterMs } from "../../shared/util.ts";
import { type PushTarget as CheckedTarget, pushTarget, PushTargetRefused } from "./target.ts";

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

export class PushSender {
  readonly #caCerts: string[] | undefined;
  readonly #privateHosts: readonly string[];

  constructor(
    private readonly keys: VapidKeys,
    private readonly subject: string,
    opts: { caCerts?: string[]; privateHosts?: readonly string[]; timeoutMs?: number } = {},
  ) {
    // node:https takes `ca` in place of the usual roots: the real push services must still verify.
    this.#caCerts = opts.caCerts?.length ? [...rootCertificates, ...opts.caCerts] : undefined;
    this.#privateHosts = opts.privateHosts ?? [];
    this.timeoutMs = opts.timeoutMs ?? SEND_TIMEOUT_MS;
  }

  readonly timeoutMs: number;

  async send(
    target: PushTarget,
    payload: PushPayload,
    opts: DeliveryOptions,
    signal?: AbortSignal,
  ): Promise<SendResult> {
    let details: {
      endpoint: string;
      method: string;
      headers: Record<string, string | number>;
      body: Uint8Array | null;
    };
    try {
      details = webpush.generateRequestDetails(
        { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
        JSON.stringify(payload),
        {
          vapidDetails: {
            subject: this.subject,
            publicKey: this.keys.publicKey,
            privateKey: this.keys.privateKey,
          },
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
      if (e instanceof PushTargetRefused) {
        return { kind: "rejected", status: 0, error: `not sent: ${e.message}` };
      }
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

/** POSTs `body` to the checked target on a connection of its own; answers the status and Retry-After. */
function postOnce(
  to: CheckedTarget,
  headers: Record<string, string | number>,
  body: Uint8Array,
  ca: string[] | undefined,
  signal: AbortSignal,
): Promise<{ status: number; retryAfter: string | null }> {
  return new Promise((resolve, reject) => {
    const req = request(to.url, {
      method: "POST",
      headers: { ...headers, "Content-Length": body.length },
      ca,
      agent: false,
      signal,
      // The addresses pushTarget checked (an IP address in the URL is used as it is, also checked).
      lookup: (_host, _opts, answer) =>
        answer(null, to.addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }))),
    }, (res) => {
      resolve({ status: res.statusCode ?? 0, retryAfter: [res.headers["retry-after"]].flat()[0] ?? null });
      res.destroy();
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The push service's host, for logs: the full endpoint is a capability and stays out of them. */
export function serviceHost(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return "?";
  }
}
