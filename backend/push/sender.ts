// Sends one Web Push message: web-push builds the request (aes128gcm encryption for the browser's keys,
// the VAPID JWT signed with our private key) and fetch delivers it. web-push's own sendNotification
// always goes through node:https, which cannot use Deno's TLS settings; fetch can, and it lets an extra
// CA (--push-ca-file) be trusted for push services behind a private CA, as the tests' fake service is.

import webpush from "web-push";
import type { VapidKeys } from "./vapid.ts";
import type { PushPayload } from "../../shared/api.ts";
import { retryAfterMs } from "../../shared/util.ts";

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
  #client: Deno.HttpClient | undefined;

  constructor(
    private readonly keys: VapidKeys,
    private readonly subject: string,
    opts: { caCerts?: string[]; timeoutMs?: number } = {},
  ) {
    if (opts.caCerts?.length) this.#client = Deno.createHttpClient({ caCerts: opts.caCerts });
    this.timeoutMs = opts.timeoutMs ?? SEND_TIMEOUT_MS;
  }

  readonly timeoutMs: number;

  async send(target: PushTarget, payload: PushPayload, opts: DeliveryOptions, signal?: AbortSignal): Promise<SendResult> {
    let details: { endpoint: string; method: string; headers: Record<string, string | number>; body: Uint8Array | null };
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
    const headers = new Headers();
    for (const [k, v] of Object.entries(details.headers)) headers.set(k, String(v));
    const timeout = AbortSignal.timeout(this.timeoutMs);
    let res: Response;
    try {
      res = await fetch(details.endpoint, {
        method: "POST",
        headers,
        body: details.body as BodyInit | null,
        redirect: "error",
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        client: this.#client,
      });
    } catch (e) {
      const why = timeout.aborted ? `no answer within ${this.timeoutMs / 1000} s` : (e as Error).message;
      return { kind: "retry", status: null, retryAfterMs: null, error: `push service unreachable: ${why}` };
    }
    const text = (await res.text().catch(() => "")).slice(0, 200).trim();
    const status = res.status;
    if (status >= 200 && status < 300) return { kind: "delivered", status };
    const error = `push service answered ${status}${text ? `: ${text}` : ""}`;
    if (status === 404 || status === 410) return { kind: "gone", status, error };
    if (status === 408 || status === 429 || status >= 500) {
      return { kind: "retry", status, retryAfterMs: retryAfterMs(res.headers.get("retry-after")), error };
    }
    return { kind: "rejected", status, error };
  }

  close(): void {
    this.#client?.close();
  }
}


/** The push service's host, for logs: the full endpoint is a capability and stays out of them. */
export function serviceHost(endpoint: string): string {
  try {
    return new URL(endpoint).host;
  } catch {
    return "?";
  }
}
