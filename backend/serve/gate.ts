// The connection gate: the panel's public listener. Deno.serve has no connection limit and no idle or
// header timeout, and a failed accept (EMFILE under a flood) ends its server for good. So the panel
// accepts connections itself, here, and relays each one to a Deno.serve bound to 127.0.0.1 on a port of
// its own. The gate
//   - survives accept errors (logged, at most once a minute), and sheds a waiting connection to free a file;
//   - caps connections in total: at the cap the longest-waiting connection that has not sent a request yet
//     (or else the longest-idle kept-alive one) makes room, so a flood of idle sockets cannot keep a real
//     browser out; with none to spare, newcomers wait in the kernel's queue;
//   - serves at most `maxPerAddress` connections of one client address at once; more from it wait their turn;
//   - closes a connection that has sent no whole request within `headerTimeoutMs` of opening, one where
//     the panel has nothing in hand and sent nothing for `idleTimeoutMs`, and one that stopped reading
//     what the panel sends for as long;
//   - reads the frame headers of WebSocket connections and cuts one that sends a message over the limit;
//   - terminates TLS itself (so it can read those frames), and tells the handler the client's real address.
// Relaying costs JavaScript work for every byte, so an ordinary connection is relayed only until its first
// request has been answered, then handed to Deno's own HTTP server (handover.ts); the gate keeps counting
// it, timing it and can still close it. A first request with a large body (an upload) is not relayed at
// all: the gate answers it itself (direct.ts), then hands the connection over the same way.
// Each relayed connection uses three file descriptors (client, gate to server, server side), so the
// default cap (250) stays inside the usual soft limit of 1024 open files.

import type { Logger } from "../log.ts";
import { FrameLimiter } from "./wsframes.ts";
import { AddressTurns } from "./turns.ts";
import { closeQuietly, concat, headEnd, isWebSocketRequest, writeAll } from "./bytes.ts";
import { AnswerFramer, closeHandedOver, connectionServer, type ConnectionServer, firstRequestBody } from "./handover.ts";
import { bodyStream, drain, parseRequestHead, type RequestHead, writeResponse } from "./direct.ts";

export interface GateLimits {
  maxConnections: number;
  /** null: no per-address cap (behind a reverse proxy every connection comes from the proxy). */
  maxPerAddress: number | null;
  headerTimeoutMs: number;
  idleTimeoutMs: number;
  maxWsMessageBytes: number;
}

export const DEFAULT_LIMITS: GateLimits = {
  maxConnections: 250,
  maxPerAddress: 64,
  headerTimeoutMs: 15_000,
  idleTimeoutMs: 60_000,
  maxWsMessageBytes: 64 * 1024,
};

/** The limits from the panel's options: behind a reverse proxy every connection has the proxy's address. */
export function gateLimits(config: { maxConnections: number; trustProxy: boolean }): Partial<GateLimits> {
  return { maxConnections: config.maxConnections, ...(config.trustProxy ? { maxPerAddress: null } : {}) };
}

/** What the handler learns about the connection a request came on. */
export interface GateInfo {
  remoteAddr: Deno.NetAddr;
  /** The first request on its connection asked for a WebSocket: the gate reads its frames. */
  webSocketGuarded: boolean;
}

export type GateHandler = (req: Request, info: GateInfo) => Response | Promise<Response>;

export interface GateOptions {
  hostname: string;
  port: number;
  tls?: { cert: string; key: string };
  limits?: Partial<GateLimits>;
  log: Logger;
  handler: GateHandler;
  onError?: (error: unknown) => Response | Promise<Response>;
  now?: () => number;
}

export interface GateStats {
  open: number;
  refused: number;
  shed: number;
  timedOut: number;
  acceptErrors: number;
  /** Connections given to Deno's HTTP server after their first answer. */
  handedOver: number;
  /** First requests with a large body answered by the gate itself (direct.ts). */
  answeredHere: number;
}

const BUFFER = 32 * 1024;
/** For a large first request body (an upload): fewer, larger reads; allocated only for such a body. */
const BODY_BUFFER = 256 * 1024;
const MAX_FIRST_HEAD = 16 * 1024;
/** A first request with a body this large (an upload) is answered by the gate itself (direct.ts). */
const DIRECT_BODY = 1024 * 1024;
const CONTINUE = new TextEncoder().encode("HTTP/1.1 100 Continue\r\n\r\n");
const SWEEP_MS = 1000;
/** A silent connection is shed only after this long (its request may be on the way on a busy machine). */
const SHED_GRACE_MS = 2000;
/** A kept-alive connection is shed only after this long idle (the browser may be reusing it right now). */
const SHED_IDLE_MS = 5000;
const ERROR_LOG_MS = 60_000;

interface Link {
  client: Deno.Conn;
  inner: Deno.Conn | null;
  address: string;
  port: number;
  opened: number;
  requests: number;
  inFlight: number;
  /** Last byte to the client, or last request start or end. */
  lastServed: number;
  lastByte: number;
  ws: boolean;
  /** A whole request head came: the client is doing something, so it is not shed for newcomers. */
  headSeen: boolean;
  /** Since when a write to the client has been waiting (a client that stopped reading). */
  writingSince: number | null;
  /** Since when the handler has been waiting for more of a body the gate reads itself (a client that stopped sending). */
  readingSince: number | null;
  /** Relaying: one of the `maxPerAddress` connections its address may have served at once. */
  turn: boolean;
  /** Set while it waits for a turn. */
  go: (() => void) | null;
  closed: boolean;
  /** Set once the connection is served by Deno's HTTP server directly: aborting it closes the connection. */
  handedOver: AbortController | null;
}

export class Gate {
  readonly addr: Deno.NetAddr;
  readonly stats: GateStats = { open: 0, refused: 0, shed: 0, timedOut: 0, acceptErrors: 0, handedOver: 0, answeredHere: 0 };
  readonly finished: Promise<void>;
  #opts: GateOptions;
  #limits: GateLimits;
  #now: () => number;
  #listener: Deno.Listener;
  #links = new Set<Link>();
  #byInnerPort = new Map<number, Link>();
  #perAddress = new Map<string, number>();
  #turns!: AddressTurns<Link>;
  #inner: Deno.HttpServer<Deno.NetAddr> | null = null;
  #innerPort = 0;
  #closing = false;
  #slotFreed: (() => void) | null = null;
  #sweeper: ReturnType<typeof setInterval>;
  #lastErrorLog = new Map<string, number>();
  /** The connection cap: the configured one, or lower once the process ran out of files. */
  #cap: number;
  /** A lower cap while the panel is still starting (holdUntil), or null. */
  #startingCap: number | null = null;
  /** Deno's per-connection HTTP server (null: relay every connection). */
  #serveConnection: ConnectionServer | null;

  constructor(opts: GateOptions) {
    this.#opts = opts;
    this.#limits = { ...DEFAULT_LIMITS };
    for (const [k, v] of Object.entries(opts.limits ?? {})) {
      if (v !== undefined) (this.#limits as unknown as Record<string, unknown>)[k] = v;
    }
    this.#now = opts.now ?? Date.now;
    this.#cap = this.#limits.maxConnections;
    this.#turns = new AddressTurns(this.#limits.maxPerAddress, this.#now);
    // Over TLS the connection's decrypted bytes are the gate's; such connections stay relayed.
    this.#serveConnection = opts.tls ? null : connectionServer();
    this.#startInner();
    this.#listener = opts.tls
      ? Deno.listenTls({ hostname: opts.hostname, port: opts.port, ...opts.tls, alpnProtocols: ["http/1.1"] })
      : Deno.listen({ hostname: opts.hostname, port: opts.port });
    this.addr = this.#listener.addr as Deno.NetAddr;
    this.#sweeper = setInterval(() => this.#sweep(), SWEEP_MS);
    this.finished = this.#acceptLoop();
  }

  /**
   * Holds at most `max` connections until `ready` settles: the panel is still building what its first
   * answers do not need, and the files that takes must not be held by a flood of connections (a cap set
   * above the open-file limit is otherwise only learned at the first EMFILE). Newcomers wait in the
   * kernel's queue as at the cap.
   */
  holdUntil(ready: Promise<unknown>, max: number): void {
    this.#startingCap = max;
    const lift = () => {
      this.#startingCap = null;
      this.#slotFreed?.();
    };
    ready.then(lift, lift);
  }

  /** Connections held at most now. */
  #limit(): number {
    return this.#startingCap === null ? this.#cap : Math.min(this.#cap, this.#startingCap);
  }

  /** Stops accepting, closes every connection and the inner server. */
  async shutdown(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    clearInterval(this.#sweeper);
    try {
      this.#listener.close();
    } catch {
      // already closed
    }
    for (const link of [...this.#links]) this.#close(link);
    this.#slotFreed?.();
    await this.#inner?.shutdown();
    await this.finished;
  }

  #startInner(): void {
    let server: Deno.HttpServer<Deno.NetAddr>;
    try {
      server = this.#serveInner();
    } catch (e) {
      // Out of files right now: try again shortly (the relays shed connections meanwhile).
      this.#logError("inner", "Could not start the panel's internal server; trying again", e);
      setTimeout(() => {
        if (!this.#closing) this.#startInner();
      }, 200);
      return;
    }
    this.#inner = server;
    this.#innerPort = server.addr.port;
    // Deno.serve ends for good on an accept error; a new one on a new port takes over.
    server.finished.catch((e) => {
      if (this.#closing) return;
      this.#outOfFiles(e);
      this.#logError("inner", "The panel's internal server stopped; starting it again", e);
      setTimeout(() => {
        if (!this.#closing) this.#startInner();
      }, 200);
    });
  }

  #serveInner(): Deno.HttpServer<Deno.NetAddr> {
    return Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {}, onError: this.#opts.onError },
      (req, info) => this.#handle(req, info),
    );
  }

  /**
   * On EMFILE/ENFILE the process is out of files at the current number of connections: the cap drops
   * below it for the rest of the run, so later floods stop at the cap instead of at the system's limit.
   */
  #outOfFiles(e: unknown): void {
    const text = String((e as Error)?.message ?? e);
    if (!/too many open files|os error 2[34]\b/i.test(text)) return;
    const learned = Math.max(10, this.#links.size - 8);
    if (learned >= this.#cap) return;
    this.#cap = learned;
    this.#opts.log.warn(
      `Out of open files at ${this.#links.size} connections; holding at most ${learned} from now on ` +
        "(raise the open-file limit, e.g. LimitNOFILE in the systemd unit, to allow more)",
    );
  }

  /** What the handler learns of a request's connection: the client's own address, not the relay's. */
  #infoOf(link: Link, webSocketGuarded: boolean): GateInfo {
    return { remoteAddr: { transport: "tcp", hostname: link.address, port: link.port }, webSocketGuarded };
  }

  #onError(error: unknown): Response | Promise<Response> {
    return this.#opts.onError ? this.#opts.onError(error) : new Response("Internal Server Error", { status: 500 });
  }

  async #handle(req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>): Promise<Response> {
    const link = this.#byInnerPort.get(info.remoteAddr.port);
    // Only the gate connects to the inner port; anyone else on this machine is sent to the real one.
    if (!link) return new Response(JSON.stringify("Connect to the panel's own address"), { status: 421 });
    link.requests++;
    link.inFlight++;
    link.lastServed = this.#now();
    try {
      return await this.#opts.handler(req, this.#infoOf(link, link.ws && link.requests === 1));
    } finally {
      link.inFlight--;
      link.lastServed = this.#now();
    }
  }

  async #acceptLoop(): Promise<void> {
    while (!this.#closing) {
      // At the cap: make room from a waiting or idle connection, or leave newcomers in the kernel's queue
      // until one closes (they wait there instead of being turned away).
      while (this.#links.size >= this.#limit() && !this.#closing) {
        if (this.#shedOne()) continue;
        this.#logError("cap", "At the connection cap; new connections wait until one closes", null, { max: this.#limit() });
        // Until one closes, or a just-accepted silent one is old enough to be shed.
        await new Promise<void>((r) => {
          this.#slotFreed = r;
          setTimeout(r, 250);
        });
      }
      let conn: Deno.Conn;
      try {
        conn = await this.#listener.accept();
      } catch (e) {
        if (this.#closing || e instanceof Deno.errors.BadResource) return;
        this.stats.acceptErrors++;
        this.#outOfFiles(e);
        this.#logError("accept", "Could not accept a connection", e);
        // Out of files: let go of the longest-waiting idle connection, then try again.
        this.#shedOne();
        await new Promise<void>((r) => setTimeout(r, 100));
        continue;
      }
      this.#admit(conn);
    }
  }

  #admit(client: Deno.Conn): void {
    const remote = client.remoteAddr as Deno.NetAddr;
    const address = remote.hostname;
    const now = this.#now();
    const link: Link = {
      client, inner: null, address, port: remote.port, opened: now, requests: 0, inFlight: 0,
      lastServed: now, lastByte: now, ws: false, headSeen: false, writingSince: null, readingSince: null, turn: false, go: null,
      closed: false, handedOver: null,
    };
    this.#links.add(link);
    this.#perAddress.set(address, (this.#perAddress.get(address) ?? 0) + 1);
    this.stats.open = this.#links.size;
    void this.#relay(link);
  }

  async #relay(link: Link): Promise<void> {
    try {
      if ("setNoDelay" in link.client) (link.client as Deno.TcpConn).setNoDelay(true);
      // The server is reached only once a whole request head has come: an idle socket costs one file.
      const first = await this.#readFirstHead(link);
      if (!first || link.closed) return;
      await this.#takeTurn(link);
      if (link.closed) return;
      const plan = this.#handoverPlan(first);
      const direct = plan && plan.bodyLength >= DIRECT_BODY ? parseRequestHead(first.bytes.subarray(0, first.end)) : null;
      if (plan && direct) {
        if (await this.#answerHere(link, first, plan.bodyLength, direct)) this.#handOver(link);
        return;
      }
      const inner = await Deno.connect({ hostname: "127.0.0.1", port: this.#innerPort });
      if (link.closed) return closeQuietly(inner);
      inner.setNoDelay(true);
      link.inner = inner;
      this.#byInnerPort.set((inner.localAddr as Deno.NetAddr).port, link);
      if (plan) {
        if (await this.#answerFirst(link, inner, first, plan)) this.#handOver(link);
        return;
      }
      await Promise.all([this.#toServer(link, inner, first), this.#toClient(link, inner)]);
    } catch (e) {
      if (!link.closed) {
        this.#outOfFiles(e);
        this.#logError("relay", "Could not relay a connection", e);
      }
    } finally {
      if (!link.handedOver) this.#close(link);
    }
  }

  /**
   * Whether the connection can be handed over after its first answer: a plain HTTP/1.1 request that is
   * not a WebSocket, whose body length is known, and with nothing sent after it yet.
   */
  #handoverPlan(first: { bytes: Uint8Array; end: number }): { bodyLength: number; method: string } | null {
    if (!this.#serveConnection || first.end === -1) return null;
    const head = first.bytes.subarray(0, first.end);
    if (isWebSocketRequest(head)) return null;
    const plan = firstRequestBody(head);
    return plan && first.bytes.length - first.end <= plan.bodyLength ? plan : null;
  }

  /**
   * Relays the first request and its answer, and tells whether the connection now stands between two
   * requests (the answer ended where the framer says, the request's body went whole). Otherwise the
   * connection is relayed to its end and closed.
   */
  async #answerFirst(
    link: Link,
    inner: Deno.Conn,
    first: { bytes: Uint8Array; end: number },
    plan: { bodyLength: number; method: string },
  ): Promise<boolean> {
    const sending = this.#sendFirst(link, inner, first.bytes, plan.bodyLength - (first.bytes.length - first.end));
    const framer = new AnswerFramer(plan.method);
    // Relays the answer and stops at its end; without one (the framer gave up) the connection is relayed
    // to its end and closed.
    await this.#toClient(link, inner, framer);
    if (!framer.done || link.closed) {
      this.#close(link);
      await sending;
      return false;
    }
    // An answer that came before the whole body (a refusal) waits for the rest, so the next request
    // starts where Deno's server will read it.
    const sent = await sending;
    this.#byInnerPort.delete((inner.localAddr as Deno.NetAddr).port);
    closeQuietly(inner);
    link.inner = null;
    return sent && !link.closed;
  }

  /**
   * Answers a first request with a large body here (direct.ts): the handler reads the body from the
   * client's socket, the answer is written back, and whatever the handler left of the body is read and
   * dropped. True when the connection now stands between two requests.
   */
  async #answerHere(link: Link, first: { bytes: Uint8Array; end: number }, length: number, head: RequestHead): Promise<boolean> {
    const body = bodyStream(link.client, first.bytes.subarray(first.end), length, {
      // The client waits for this before it sends the body; sent only once the handler reads it.
      beforeFirstRead: () => (head.expectContinue ? writeAll(link.client, CONTINUE) : Promise.resolve()),
      onBytes: () => (link.lastByte = this.#now()),
      reading: (on) => (link.readingSince = on ? this.#now() : null),
    });
    const host = head.host ?? `${this.#opts.hostname}:${this.addr.port}`;
    let req: Request;
    try {
      req = new Request(`${this.#opts.tls ? "https" : "http"}://${host}${head.target}`, {
        method: head.method,
        headers: head.headers,
        body: body.stream,
        duplex: "half",
      } as RequestInit);
    } catch {
      return false;
    }
    link.requests++;
    link.inFlight++;
    link.lastServed = this.#now();
    this.stats.answeredHere++;
    let close = true;
    try {
      let res: Response;
      try {
        res = await this.#opts.handler(req, this.#infoOf(link, false));
      } catch (e) {
        res = await this.#onError(e);
      }
      // A read the handler left in flight ends before anything else touches the connection.
      await body.settled();
      // Refused before the client sent its body (it waits for 100 Continue): the body never comes.
      close = head.expectContinue && !body.started() && body.left() > 0;
      await writeResponse(link.client, res, {
        close,
        head: head.method === "HEAD",
        writing: (on) => (link.writingSince = on ? this.#now() : null),
      });
    } catch {
      close = true;
    } finally {
      link.inFlight--;
      link.lastServed = this.#now();
    }
    if (close || link.closed) return false;
    // The rest of a body the handler did not want: read and dropped with nothing in hand, so an idle
    // client is closed as on any connection (the answer has gone).
    return body.left() === 0 || await drain(link.client, body.left(), () => (link.lastByte = this.#now())).catch(() => false);
  }

  /** Writes the first request to the server, then exactly `bodyLeft` more bytes from the client. */
  async #sendFirst(link: Link, inner: Deno.Conn, bytes: Uint8Array, bodyLeft: number): Promise<boolean> {
    try {
      await writeAll(inner, bytes);
      const buf = new Uint8Array(bodyLeft > 4 * BODY_BUFFER ? BODY_BUFFER : BUFFER);
      while (bodyLeft > 0 && !link.closed) {
        const n = await link.client.read(buf.subarray(0, Math.min(buf.length, bodyLeft)));
        if (n === null) {
          // The client left mid-body: the server must see the request cut, not wait for the rest.
          this.#close(link);
          return false;
        }
        link.lastByte = this.#now();
        bodyLeft -= n;
        await writeAll(inner, buf.subarray(0, n));
      }
      return bodyLeft === 0;
    } catch {
      this.#close(link);
      return false;
    }
  }

  /** From now on Deno's server reads and answers the connection; the gate still times and closes it. */
  #handOver(link: Link): void {
    const abort = new AbortController();
    link.handedOver = abort;
    this.stats.handedOver++;
    const onError = (e: unknown) => this.#onError(e);
    try {
      const server = this.#serveConnection!(link.client, abort.signal, (req, info) => this.#handleDirect(link, req, info), onError, () => {});
      // Ended on its own (the client left): nothing left to abort.
      const ended = () => {
        link.handedOver = null;
        this.#close(link);
      };
      server.finished.then(ended, ended);
    } catch (e) {
      this.#logError("handover", "Could not hand a connection to the HTTP server", e);
      link.handedOver = null;
      this.#close(link);
    }
  }

  /**
   * A request on a handed-over connection. Not an async function: Deno's server takes a Response on a
   * faster path than a promise of one, so a synchronous answer (the status, a kept list) stays one
   * (78k -> 83k req/s for the status, bench/status.mjs).
   */
  #handleDirect(
    link: Link,
    req: Request,
    info: { completed?: Promise<void> },
  ): Response | Promise<Response> {
    link.requests++;
    link.inFlight++;
    link.lastServed = this.#now();
    const done = () => {
      link.inFlight--;
      link.lastServed = this.#now();
    };
    // Busy until the answer has been sent.
    const sent = (res: Response) => {
      const completed = info.completed;
      if (completed) completed.then(done, done);
      else done();
      return res;
    };
    const failed = (e: unknown): Promise<never> => {
      done();
      return Promise.reject(e);
    };
    let res: Response | Promise<Response>;
    try {
      // A WebSocket is only ever a relayed connection's first request.
      res = this.#opts.handler(req, this.#infoOf(link, false));
    } catch (e) {
      return failed(e);
    }
    return res instanceof Promise ? res.then(sent, failed) : sent(res);
  }

  /**
   * Reads the first request's head whole (up to 16 KiB) to learn whether it opens a WebSocket; null when
   * the client leaves first.
   */
  async #readFirstHead(link: Link): Promise<{ bytes: Uint8Array; end: number } | null> {
    const buf = new Uint8Array(4096);
    let bytes: Uint8Array = new Uint8Array(0);
    while (!link.closed) {
      const n = await link.client.read(buf);
      if (n === null) return null;
      link.lastByte = this.#now();
      bytes = concat(bytes, buf.subarray(0, n));
      const end = headEnd(bytes);
      if (end !== -1 || bytes.length >= MAX_FIRST_HEAD) {
        link.headSeen = true;
        return { bytes, end };
      }
    }
    return null;
  }

  async #takeTurn(link: Link): Promise<void> {
    if (this.#turns.take(link)) return;
    this.#logError("per-address", "Connections from one address wait their turn", null, {
      address: link.address,
      max: this.#limits.maxPerAddress,
    });
    await this.#turns.wait(link);
  }

  /** Client to server; on a WebSocket connection every frame header is checked before it passes. */
  async #toServer(link: Link, inner: Deno.Conn, first: { bytes: Uint8Array; end: number }): Promise<void> {
    let limiter: FrameLimiter | null = null;
    try {
      let chunk = first.bytes;
      if (first.end !== -1 && isWebSocketRequest(first.bytes.subarray(0, first.end))) {
        link.ws = true;
        limiter = new FrameLimiter(this.#limits.maxWsMessageBytes);
        await writeAll(inner, first.bytes.subarray(0, first.end));
        chunk = first.bytes.subarray(first.end);
      }
      const buf = new Uint8Array(BUFFER);
      while (!link.closed) {
        if (limiter && !limiter.feed(chunk)) {
          this.#logError("ws", "Closed a WebSocket that sent " + limiter.refused, null, { address: link.address });
          this.#close(link);
          return;
        }
        if (chunk.length > 0) await writeAll(inner, chunk);
        const n = await link.client.read(buf);
        if (n === null) break;
        link.lastByte = this.#now();
        chunk = buf.subarray(0, n);
      }
      // The client finished sending; the answer may still be on its way.
      await inner.closeWrite().catch(() => {});
    } catch {
      this.#close(link);
    }
  }

  /** Server to client, to the end of the connection, or with `framer` to the end of the first answer (left open). */
  async #toClient(link: Link, inner: Deno.Conn, framer?: AnswerFramer): Promise<void> {
    const buf = new Uint8Array(BUFFER);
    try {
      while (!link.closed) {
        const n = await inner.read(buf);
        if (n === null) break;
        link.lastServed = link.lastByte = this.#now();
        link.writingSince = link.lastServed;
        const chunk = buf.subarray(0, n);
        framer?.feed(chunk);
        await writeAll(link.client, chunk);
        link.writingSince = null;
        if (framer?.done) return;
      }
    } catch {
      // the client or the server went away
    }
    this.#close(link);
  }

  #sweep(): void {
    const now = this.#now();
    const { headerTimeoutMs, idleTimeoutMs } = this.#limits;
    for (const link of this.#links) {
      // Waiting for its address's turn is not the client's delay; the clock starts at its turn.
      const queued = link.headSeen && !link.turn;
      const waited = link.requests === 0 && !queued && now - link.opened > headerTimeoutMs;
      // A WebSocket is idle only when neither side sent anything (Deno pings every 30 s).
      const idle = link.inFlight === 0 &&
        (link.ws ? now - link.lastByte > 2 * idleTimeoutMs : now - link.lastServed > idleTimeoutMs);
      // A client that stopped reading what the panel sends, or stopped sending a body the handler waits for.
      const stalled = (link.writingSince !== null && now - link.writingSince > idleTimeoutMs) ||
        (link.readingSince !== null && now - link.readingSince > idleTimeoutMs);
      // A kept-alive connection that is done gives its turn to one of its address waiting for it.
      const makeWay = this.#turns.waiting(link.address) && link.turn && link.requests > 0 && link.inFlight === 0 &&
        !link.ws && link.writingSince === null && now - link.lastServed > SWEEP_MS;
      if (waited || stalled || (link.requests > 0 && idle) || makeWay) {
        this.stats.timedOut++;
        this.#close(link);
      }
    }
  }

  /**
   * Closes one connection to make room: the one that has waited longest without sending a request, else
   * the kept-alive one idle the longest; false when there is neither.
   */
  #shedOne(): boolean {
    const now = this.#now();
    let oldest: Link | null = null;
    let idlest: Link | null = null;
    for (const link of this.#links) {
      if (!link.headSeen) {
        // A connection just accepted may have its request on the way: not shed in its first moment.
        if (now - link.opened < SHED_GRACE_MS) continue;
        if (!oldest || link.opened < oldest.opened) oldest = link;
      } else if (
        link.inFlight === 0 && !link.ws && link.writingSince === null && link.requests > 0 &&
        now - link.lastServed > SHED_IDLE_MS
      ) {
        if (!idlest || link.lastServed < idlest.lastServed) idlest = link;
      }
    }
    oldest ??= idlest;
    if (!oldest) return false;
    this.stats.shed++;
    this.#close(oldest);
    return true;
  }

  #close(link: Link): void {
    if (link.closed) return;
    link.closed = true;
    if (link.handedOver) closeHandedOver(link.handedOver);
    else closeQuietly(link.client);
    if (link.inner) {
      this.#byInnerPort.delete((link.inner.localAddr as Deno.NetAddr).port);
      closeQuietly(link.inner);
    }
    this.#links.delete(link);
    this.#turns.release(link);
    this.#slotFreed?.();
    this.#slotFreed = null;
    const left = (this.#perAddress.get(link.address) ?? 1) - 1;
    if (left > 0) this.#perAddress.set(link.address, left);
    else this.#perAddress.delete(link.address);
    this.stats.open = this.#links.size;
  }

  /** Logs a kind of trouble at most once a minute, so a flood cannot fill the log. */
  #logError(kind: string, message: string, error: unknown, fields: Record<string, unknown> = {}): void {
    const now = this.#now();
    if (now - (this.#lastErrorLog.get(kind) ?? -Infinity) < ERROR_LOG_MS) return;
    this.#lastErrorLog.set(kind, now);
    this.#opts.log.warn(message, {
      ...fields,
      ...(error ? { error: String((error as Error)?.message ?? error) } : {}),
      ...this.stats,
    });
  }
}
