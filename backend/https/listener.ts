// Serving the panel over HTTPS with the manager's certificate, and moving to a new certificate without
// dropping what is in use. Deno.serve takes its certificate once (no callback to change it in Deno 2.9),
// and two servers on one port need --unstable-net, which the panel does not run with. So a new certificate
// means a new Deno.serve on the same port once the old one has shut down, at a moment when no request is in
// flight and no WebSocket is open (looked for every few seconds), or at the latest when a tenth of the old
// certificate's remaining life or 24 hours is left (lifetime.ts): open WebSockets then get 1001 and the app
// reconnects. Shutting down also ends idle kept-alive connections, which browsers open again unseen, and
// sends HTTP/2 clients GOAWAY. New connections are refused for the few milliseconds between the two.
// Without a certificate yet it serves plain HTTP and moves to HTTPS as soon as one comes.

import type { EventBus } from "../lib/events.ts";
import type { Logger } from "../lib/log.ts";
import type { ServedCertificate } from "./manager.ts";
import { swapDeadline } from "./lifetime.ts";

export interface CertificateSource {
  /** The certificate to serve now, or null (plain HTTP). */
  current(): ServedCertificate | null;
  /** Told the port once listening: the plain-HTTP listener redirects there. */
  setHttpsPort?(port: number): void;
}

export interface ListenerOptions {
  handler: (req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => Response | Promise<Response>;
  /** The certificates (the manager); a new one comes as the bus event "https.certificate". */
  certificates: CertificateSource;
  bus: EventBus;
  port: number;
  hostname: string;
  /**
   * WebSockets open now (the /ws hub's count): Deno's server settles a request's `completed` at the upgrade,
   * and tells nothing when the socket closes, so only their owner can count them.
   */
  openWebSockets: () => number;
  log: Logger;
  onError?: (error: unknown) => Response | Promise<Response>;
  /** How often a waiting certificate looks for a quiet moment. */
  checkEveryMs?: number;
  now?: () => number;
}

export interface CertificateServer {
  readonly addr: Deno.NetAddr;
  /** The certificate served now (null: plain HTTP). */
  served(): ServedCertificate | null;
  /** A new certificate waits for a quiet moment or its deadline. */
  waiting(): boolean;
  /** Certificates swapped in since the start. */
  readonly swaps: number;
  /** Resolves once shut down; rejects when the server ends by itself (an accept error such as EMFILE). */
  readonly finished: Promise<void>;
  /** Stops answering: lets the requests in hand finish. */
  shutdown(): Promise<void>;
}

/** Whether Deno's TLS takes the pair: tried on a throwaway listener, so a bad pair never takes the port down. */
function pairProblem(c: ServedCertificate): string | null {
  try {
    Deno.listenTls({ port: 0, hostname: "127.0.0.1", cert: c.cert, key: c.key }).close();
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}

export function serveWithCertificates(o: ListenerOptions): CertificateServer {
  const now = o.now ?? Date.now;
  let inFlight = 0;
  const handler = (req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => {
    inFlight++;
    let done = false;
    const finish = () => {
      if (!done) inFlight--;
      done = true;
    };
    // Settled once the answer is sent (or the client left); for a WebSocket, at the upgrade.
    info.completed.then(finish, finish);
    return o.handler(req, info);
  };

  const { promise: finished, resolve: ended, reject: failed } = Promise.withResolvers<void>();
  let stopping = false;
  let served = o.certificates.current();
  let server: Deno.HttpServer<Deno.NetAddr>;
  let waiting: { cert: ServedCertificate; deadline: number } | null = null;
  let swapping: Promise<void> | null = null;
  let swaps = 0;
  /** Servers shut down for a swap: their end is expected. */
  const retired = new WeakSet<Deno.HttpServer<Deno.NetAddr>>();

  const listen = (cert: ServedCertificate | null, port: number) => {
    const s = Deno.serve({
      port,
      hostname: o.hostname,
      ...(cert ? { cert: cert.cert, key: cert.key } : {}),
      onListen: () => {},
      onError: o.onError,
    }, handler);
    // A server that ends while it is the one answering (not shut down for a swap) ends the panel's serving.
    s.finished.then(() => {
      if (!retired.has(s) && !stopping) failed(new Error("The server ended by itself"));
    }, (e) => {
      if (!retired.has(s) && !stopping) failed(e);
    });
    return s;
  };

  server = listen(served, o.port);
  const port = server.addr.port;
  o.certificates.setHttpsPort?.(port);

  /** Listens again on the port the old server just let go of (free a tick later; retried). */
  const listenAgain = async (cert: ServedCertificate): Promise<Deno.HttpServer<Deno.NetAddr>> => {
    let wait = 5;
    for (let attempt = 1;; attempt++) {
      try {
        return listen(cert, port);
      } catch (e) {
        if (stopping) throw e;
        if (attempt === 20) {
          o.log.error("Cannot listen again with the new certificate; trying on", { port, error: String(e) });
        }
        await new Promise<void>((r) => setTimeout(r, wait));
        wait = Math.min(wait * 2, 1000);
      }
    }
  };

  const swap = async () => {
    const next = waiting!;
    waiting = null;
    const quiet = inFlight === 0 && o.openWebSockets() === 0;
    // Waits for the requests in hand; WebSockets still open (only at the deadline) are closed with 1001.
    retired.add(server);
    await server.shutdown();
    if (stopping) return;
    server = await listenAgain(next.cert);
    served = next.cert;
    swaps++;
    o.log.info("Serving the new HTTPS certificate", {
      port,
      not_after: new Date(next.cert.notAfter).toISOString(),
      moment: quiet ? "quiet" : "deadline",
    });
  };

  const trySwap = () => {
    if (!waiting || swapping || stopping) return;
    const quiet = inFlight === 0 && o.openWebSockets() === 0;
    if (!quiet && now() < waiting.deadline) return;
    swapping = swap().catch((e) => {
      if (!stopping) failed(e);
    }).finally(() => (swapping = null));
  };

  const unsubscribe = o.bus.on("https.certificate", (cert) => {
    const problem = pairProblem(cert);
    if (problem) {
      o.log.error("A new certificate cannot be served; keeping the current one", { error: problem });
      return;
    }
    // A later certificate replaces one still waiting; from plain HTTP the move is at once.
    waiting = { cert, deadline: served ? swapDeadline(served.notAfter, now()) : now() };
    trySwap();
  });
  const timer = setInterval(trySwap, o.checkEveryMs ?? 2000);

  return {
    addr: server.addr,
    served: () => served,
    waiting: () => waiting !== null,
    get swaps() {
      return swaps;
    },
    finished,
    async shutdown() {
      stopping = true;
      clearInterval(timer);
      unsubscribe();
      await swapping;
      await server.shutdown();
      ended();
    },
  };
}
