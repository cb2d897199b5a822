// Local doubles of the services alert channels post to, on one real HTTP server:
//
//   Discord   POST /api/webhooks/<id>/<token>   JSON with embeds (or content); 204 like Discord without ?wait
//   Slack     POST /services/<a>/<b>/<c>         JSON with text; answers "ok" like Slack
//   ntfy      POST /                             JSON publish {topic, title, message, priority, tags}; a topic
//                                                given a token with requireToken() needs "Authorization: Bearer"
//   webhook   POST /hook/<anything>              verifies the HMAC (X-Factorio-Panel-Signature over
//                                                "<timestamp>.<body>") with the secret given by setSecret()
//
// Per path, mode() makes the next requests answer 429 (with Retry-After and Discord's JSON body), fail
// with a status, never answer (a dead endpoint: the connection stays open until close()), or answer a
// huge body (`bytes` long, starting with `text`; bodyBytesSent() says how much the reader took). Every
// request is recorded with what the double made of it; waitFor() resolves when one matches.
// Plain JavaScript on node:http so Deno tests, Playwright specs and bench scripts (Node) all use it.

import { createServer } from "node:http";
import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * @typedef {{ seq: number, at: number, service: "discord" | "slack" | "ntfy" | "webhook" | "unknown",
 *   path: string, status: number, headers: Record<string, string>, body: string, json: any,
 *   verified: boolean | null, problem: string | null }} Received
 * @typedef {{ kind: "429", times: number, retryAfterS: number, header?: boolean }
 *   | { kind: "status", status: number, times: number } | { kind: "dead" }
 *   | { kind: "huge", status: number, bytes: number, text: string }} Mode
 */

function serviceOf(path) {
  if (path.startsWith("/api/webhooks/")) return "discord";
  if (path.startsWith("/services/")) return "slack";
  if (path.startsWith("/hook/")) return "webhook";
  if (path === "/") return "ntfy";
  return "unknown";
}

function signatureOk(secret, timestamp, body, given) {
  const want = "sha256=" + createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
  const a = Buffer.from(want);
  const b = Buffer.from(String(given ?? ""));
  return a.length === b.length && timingSafeEqual(a, b);
}

/** @returns {Promise<FakeAlerts>} */
export async function startFakeAlerts(port = 0) {
  const fake = new FakeAlerts();
  await fake.listen(port);
  return fake;
}

export class FakeAlerts {
  /** @type {Received[]} */
  #received = [];
  /** @type {Map<string, Mode>} */
  #modes = new Map();
  /** @type {Map<string, string>} */
  #secrets = new Map();
  /** @type {Map<string, string>} ntfy topic -> token */
  #tokens = new Map();
  /** @type {{ match: (r: Received) => boolean, resolve: (r: Received) => void }[]} */
  #waiters = [];
  #seq = 0;
  /** @type {import("node:http").Server} */
  #server;
  origin = "";

  constructor() {
    this.#server = createServer((req, res) => {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => this.#handle(req, res, Buffer.concat(chunks).toString("utf8")));
    });
  }

  listen(port) {
    return new Promise((resolve) => {
      this.#server.listen(port, "127.0.0.1", () => {
        const addr = this.#server.address();
        this.origin = `http://127.0.0.1:${addr.port}`;
        resolve(undefined);
      });
    });
  }

  /** URLs of each service on this double. @param {string} [name] */
  discordUrl(name = "1") {
    return `${this.origin}/api/webhooks/${name}/tok-${name}-abcdefghijklmnopqrstuvwxyz`;
  }
  /** @param {string} [name] */
  slackUrl(name = "a") {
    return `${this.origin}/services/T000/B000/${name}xxxxxxxxxxxxxxxxxxxx`;
  }
  /** @param {string} [name] */
  webhookUrl(name = "a") {
    return `${this.origin}/hook/${name}`;
  }

  /** @param {string} path @param {Mode | null} mode */
  mode(path, mode) {
    if (mode) this.#modes.set(path, mode);
    else this.#modes.delete(path);
  }

  /** @param {string} path @param {string} secret */
  setSecret(path, secret) {
    this.#secrets.set(path, secret);
  }

  /** @param {string} topic @param {string} token */
  requireToken(topic, token) {
    this.#tokens.set(topic, token);
  }

  /** @param {(r: Received) => boolean} [filter] @returns {Received[]} */
  received(filter = (_r) => true) {
    return this.#received.filter(filter);
  }

  /** @param {string} path @returns {Received[]} accepted (2xx) requests to `path` */
  delivered(path) {
    return this.#received.filter((r) => r.path === path && r.status >= 200 && r.status < 300);
  }

  /** @param {(r: Received) => boolean} match @param {number} [timeoutMs] @returns {Promise<Received>} */
  waitFor(match, timeoutMs = 60_000) {
    const seen = this.#received.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error("fake alerts: no matching request in time")),
        timeoutMs,
      );
      this.#waiters.push({ match, resolve: (r) => (clearTimeout(timer), resolve(r)) });
    });
  }

  #record(r) {
    this.#received.push(r);
    for (const w of [...this.#waiters]) {
      if (w.match(r)) {
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        w.resolve(r);
      }
    }
  }

  #handle(req, res, body) {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const service = serviceOf(path);
    const headers = {};
    for (const [k, v] of Object.entries(req.headers)) {
      headers[k] = Array.isArray(v) ? v.join(", ") : String(v);
    }
    let json = null;
    try {
      json = JSON.parse(body);
    } catch {
      // recorded as a problem below
    }
    const rec = {
      seq: ++this.#seq,
      at: Date.now(),
      service,
      path,
      status: 0,
      headers,
      body,
      json,
      verified: null,
      problem: null,
    };
    const answer = (status, text = "", extra = {}) => {
      rec.status = status;
      this.#record(rec);
      res.writeHead(status, {
        "Content-Type": text.startsWith("{") ? "application/json" : "text/plain",
        ...extra,
      });
      res.end(text);
    };

    const mode = this.#modes.get(path);
    if (mode?.kind === "dead") {
      rec.status = -1; // never answered
      this.#record(rec);
      return; // the connection stays open until close()
    }
    if (mode?.kind === "429" && mode.times > 0) {
      mode.times--;
      const retryBody = JSON.stringify({
        message: "You are being rate limited.",
        retry_after: mode.retryAfterS,
        global: false,
      });
      return answer(
        429,
        retryBody,
        mode.header === false ? {} : { "Retry-After": String(Math.ceil(mode.retryAfterS)) },
      );
    }
    if (mode?.kind === "huge") {
      rec.status = mode.status;
      this.#record(rec);
      res.writeHead(mode.status, { "Content-Type": "text/plain", "Content-Length": String(mode.bytes) });
      this.#sendHuge(path, res, mode);
      return;
    }
    if (mode?.kind === "status" && mode.times > 0) {
      mode.times--;
      return answer(mode.status, "failure on request");
    }

    if (req.method !== "POST") return answer(405, "POST only");
    if (json === null || typeof json !== "object") {
      rec.problem = "body is not JSON";
      return answer(400, '{"message": "Cannot send an empty message", "code": 50006}');
    }
    switch (service) {
      case "discord": {
        const ok = Array.isArray(json.embeds) && json.embeds.length > 0 &&
          json.embeds.every((e) => typeof e.title === "string");
        if (!ok && typeof json.content !== "string") {
          rec.problem = "no embeds or content";
          return answer(400, '{"message": "Cannot send an empty message", "code": 50006}');
        }
        return answer(204);
      }
      case "slack":
        if (typeof json.text !== "string" || json.text === "") {
          rec.problem = "no text";
          return answer(400, "no_text");
        }
        return answer(200, "ok");
      case "ntfy": {
        if (typeof json.topic !== "string" || json.topic === "") {
          rec.problem = "no topic";
          return answer(400, '{"code":40001,"http":400,"error":"invalid request: topic invalid"}');
        }
        const token = this.#tokens.get(json.topic);
        if (token && headers["authorization"] !== `Bearer ${token}`) {
          rec.problem = "unauthorized";
          return answer(403, '{"code":40301,"http":403,"error":"forbidden"}');
        }
        return answer(200, JSON.stringify({ id: String(rec.seq), event: "message", topic: json.topic }));
      }
      case "webhook": {
        const secret = this.#secrets.get(path);
        if (secret) {
          rec.verified = signatureOk(
            secret,
            headers["x-factorio-panel-timestamp"],
            body,
            headers["x-factorio-panel-signature"],
          );
          if (!rec.verified) {
            rec.problem = "bad signature";
            return answer(401, "bad signature");
          }
        }
        return answer(200, "{}");
      }
      default:
        return answer(404, "not found");
    }
  }

  /** @type {Map<string, number>} */
  #hugeSent = new Map();

  /** Bytes of huge bodies to `path` the socket took so far (with backpressure: what the reader read, plus buffers). @param {string} path */
  bodyBytesSent(path) {
    return this.#hugeSent.get(path) ?? 0;
  }

  /** @param {string} path @param {import("node:http").ServerResponse} res @param {{ bytes: number, text: string }} mode */
  #sendHuge(path, res, mode) {
    const chunk = Buffer.alloc(64 * 1024, "x");
    let left = mode.bytes;
    let closed = false;
    res.on("close", () => (closed = true));
    const first = Buffer.from(mode.text);
    const write = () => {
      while (!closed && left > 0) {
        const part = left === mode.bytes
          ? Buffer.concat([first, chunk]).subarray(0, Math.min(left, chunk.length))
          : chunk.subarray(0, Math.min(left, chunk.length));
        left -= part.length;
        this.#hugeSent.set(path, this.bodyBytesSent(path) + part.length);
        if (!res.write(part)) return void res.once("drain", write);
      }
      if (!closed) res.end();
    };
    write();
  }

  close() {
    for (const w of this.#waiters.splice(0)) w.resolve(/** @type {Received} */ ({ seq: -1 }));
    return new Promise((resolve) => {
      this.#server.closeAllConnections();
      this.#server.close(() => resolve(undefined));
    });
  }
}
