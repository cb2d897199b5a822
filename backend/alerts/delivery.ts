// Sends channel messages: one first-in-first-out queue per channel with its own rate limit, retries with
// backoff that honour Retry-After (and Discord's 429 JSON body, whose retry_after is in seconds), and a
// timeout per request. Queues run independently, so a dead or slow endpoint only ever delays its own
// channel; enqueue() returns at once, so the panel never waits either.

import type { Logger } from "../lib/log.ts";
import { retryAfterMs } from "../../shared/util.ts";
import type { ChannelRow, ChannelStore } from "./store.ts";
import { type Message, type OutgoingRequest, requestFor } from "./formats.ts";
import { TargetQueues } from "./queues.ts";

export type ChannelResult =
  | { kind: "delivered"; status: number }
  /** No answer, 408, 429, 5xx: worth another try. */
  | { kind: "retry"; status: number | null; retryAfterMs: number | null; error: string }
  /** The endpoint refused the message (400, 401, 403, 404...): trying again will not help. */
  | { kind: "rejected"; status: number; error: string };

export const RETRY_DELAYS_MS = [2_000, 10_000, 30_000, 120_000, 600_000];
export const SEND_TIMEOUT_MS = 10_000;
export const MAX_QUEUED_PER_CHANNEL = 50;
/** Rate limit per channel: a burst of this many, then one per RATE_REFILL_MS (Discord allows 30 a minute). */
export const RATE_BURST = 5;
export const RATE_REFILL_MS = 2_000;

/** Longest wait a Retry-After may ask for before the message is given up instead. */
const MAX_RETRY_AFTER_MS = 3600_000;

/** Bytes of an answer read at most (a 429's JSON body is far smaller). */
export const ANSWER_READ_MAX = 4096;

/** The first `max` bytes of an answer as text; the rest is not read, and the connection is let go. */
async function readSome(res: Response, max: number): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.length;
    }
  } catch {
    // cut off: what arrived is enough
  } finally {
    await reader.cancel().catch(() => {});
  }
  return await new Blob(chunks as BlobPart[]).slice(0, max).text();
}

export async function post(
  req: OutgoingRequest,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<ChannelResult> {
  const timeout = AbortSignal.timeout(timeoutMs);
  let res: Response;
  try {
    res = await fetch(req.url, {
      method: "POST",
      headers: req.headers,
      body: req.body,
      // A webhook URL that redirects elsewhere would carry the message to somewhere not configured.
      redirect: "manual",
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (e) {
    const why = timeout.aborted
      ? `no answer within ${timeoutMs / 1000} s`
      : `unreachable: ${(e as Error).message}`;
    return { kind: "retry", status: null, retryAfterMs: null, error: why };
  }
  const status = res.status;
  // The answer's text is never shown (Send test reports the status only: a channel's URL may point into
  // the LAN, and its answer is not the caller's to read), and never read whole: 429's JSON is all we use.
  const text = status === 429
    ? await readSome(res, ANSWER_READ_MAX)
    : (await res.body?.cancel().catch(() => {}), "");
  if (status >= 200 && status < 300) return { kind: "delivered", status };
  const error = `HTTP ${status}`;
  if (status === 408 || status === 429 || status >= 500) {
    let wait = retryAfterMs(res.headers.get("retry-after"));
    // Discord answers 429 with {"retry_after": 1.5, "global": false} (seconds, fractional).
    try {
      const parsed = JSON.parse(text) as { retry_after?: unknown };
      if (typeof parsed.retry_after === "number" && parsed.retry_after >= 0) {
        wait = Math.max(wait ?? 0, Math.ceil(parsed.retry_after * 1000));
      }
    } catch {
      // not JSON
    }
    return { kind: "retry", status, retryAfterMs: wait, error };
  }
  return { kind: "rejected", status, error };
}

interface Job {
  message: Message;
  attempts: number;
}

interface Queue {
  jobs: Job[];
  busy: boolean;
  timer?: ReturnType<typeof setTimeout>;
  tokens: number;
  refilledAt: number;
}

export interface DeliveryDeps {
  store: ChannelStore;
  log: Logger;
  now: () => number;
}

export class ChannelDelivery extends TargetQueues<Queue> {
  /** Tests shorten these. */
  retryDelaysMs = RETRY_DELAYS_MS;
  timeoutMs = SEND_TIMEOUT_MS;
  rateRefillMs = RATE_REFILL_MS;

  constructor(private readonly deps: DeliveryDeps) {
    super(deps.log, "alerts");
  }

  enqueue(channelId: number, message: Message): void {
    if (this.abort.signal.aborted) return;
    let q = this.queues.get(channelId);
    if (!q) {
      this.queues.set(
        channelId,
        q = { jobs: [], busy: false, tokens: RATE_BURST, refilledAt: this.deps.now() },
      );
    }
    q.jobs.push({ message, attempts: 0 });
    if (q.jobs.length > MAX_QUEUED_PER_CHANNEL) {
      const dropped = q.jobs.splice(0, q.jobs.length - MAX_QUEUED_PER_CHANNEL).length;
      this.deps.log.warn("Dropped old alerts for a channel that is not taking them", {
        channel: channelId,
        dropped,
      });
    }
    if (!q.busy && !q.timer) void this.#drain(channelId, q);
  }

  /** Sends one message now and records the outcome on the channel (also "Send test"). */
  async send(row: ChannelRow, message: Message): Promise<ChannelResult> {
    const result = await post(requestFor(row, message, this.deps.now()), this.timeoutMs, this.abort.signal);
    const at = this.deps.now();
    const fields = { channel: row.id, type: row.type, kind: message.kind };
    if (result.kind === "delivered") {
      this.deps.store.recordResult(row.id, at, true, `HTTP ${result.status}`);
      this.deps.log.info("Alert delivered", { ...fields, status: result.status });
    } else {
      const retrying = result.kind === "retry" ? " (will retry)" : "";
      this.deps.store.recordResult(row.id, at, false, result.error + retrying);
      this.deps.log.warn("Alert delivery failed", { ...fields, error: result.error });
    }
    return result;
  }

  #takeToken(q: Queue): number {
    const now = this.deps.now();
    const earned = Math.floor((now - q.refilledAt) / this.rateRefillMs);
    if (earned > 0) {
      q.tokens = Math.min(RATE_BURST, q.tokens + earned);
      q.refilledAt = q.tokens === RATE_BURST ? now : q.refilledAt + earned * this.rateRefillMs;
    }
    if (q.tokens > 0) {
      q.tokens--;
      return 0;
    }
    return q.refilledAt + this.rateRefillMs - now;
  }

  #later(channelId: number, q: Queue, ms: number): void {
    q.timer = setTimeout(() => {
      q.timer = undefined;
      void this.#drain(channelId, q);
    }, ms);
  }

  async #drain(channelId: number, q: Queue): Promise<void> {
    q.busy = true;
    try {
      while (q.jobs.length > 0 && !this.abort.signal.aborted) {
        const row = this.deps.store.byId(channelId);
        if (!row || row.enabled !== 1) {
          q.jobs.length = 0; // deleted or disabled meanwhile
          break;
        }
        const wait = this.#takeToken(q);
        if (wait > 0) return this.#later(channelId, q, wait);
        const job = q.jobs[0];
        job.attempts++;
        const result = await this.send(row, job.message);
        if (result.kind !== "retry") {
          q.jobs.shift();
          continue;
        }
        const delay = this.retryDelaysMs[job.attempts - 1];
        if (delay === undefined || (result.retryAfterMs ?? 0) > MAX_RETRY_AFTER_MS) {
          q.jobs.shift();
          this.deps.log.error("Gave up on an alert", {
            channel: channelId,
            kind: job.message.kind,
            attempts: job.attempts,
          });
          continue;
        }
        const ms = Math.max(delay, result.retryAfterMs ?? 0);
        this.deps.log.info("Will retry an alert", { channel: channelId, attempt: job.attempts, in_ms: ms });
        return this.#later(channelId, q, ms);
      }
    } catch (e) {
      this.deps.log.error("Alert delivery failed unexpectedly", { channel: channelId, error: String(e) });
      q.jobs.length = 0;
    } finally {
      q.busy = false;
      if (q.jobs.length === 0 && !q.timer) this.queues.delete(channelId);
      this.checkIdle();
    }
  }

  /** Messages waiting (or being sent) for a channel. */
  pending(channelId: number): number {
    return this.queues.get(channelId)?.jobs.length ?? 0;
  }
}
