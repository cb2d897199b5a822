// The plain-HTTP listener on --acme-http-port (80 by default) while HTTPS is automatic: it answers the CA's
// HTTP-01 check (/.well-known/acme-challenge/<token> -> the key authorization), the local CA's certificate
// (/ca.crt: a phone downloads it here before it trusts the panel, with no warning to click through; the
// page shows its fingerprint to compare), and sends everything else to the same host over HTTPS with a
// 308, so http://panel.example.org on a phone lands on the app. The CA's check follows redirects too, so a
// token the panel does not know is a 404, not a redirect to an https port that may not answer yet.

import type { Logger } from "../lib/log.ts";
import { CA_DOWNLOAD_PATH, CA_HEADERS } from "../../shared/https.ts";

const CHALLENGE = /^\/\.well-known\/acme-challenge\/([A-Za-z0-9_-]{1,256})$/;
/** A Host header the redirect may name: a DNS name or an address, with an optional port. */
const HOST = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]{1,253})(:\d{1,5})?$/;

export class ChallengeResponder {
  #tokens = new Map<string, string>();
  #server: Deno.HttpServer<Deno.NetAddr> | null = null;

  constructor(
    private readonly opts: {
      port: number;
      hostname: string;
      /** The port HTTPS is served on (443 is left out of the address). */
      httpsPort: () => number;
      /** The local CA's certificate (PEM), or null without one. */
      caCertificate: () => string | null;
      log: Logger;
    },
  ) {}

  /** Listens; throws (AddrInUse, PermissionDenied) when the port cannot be had. */
  start(): void {
    if (this.#server) return;
    this.#server = Deno.serve({
      port: this.opts.port,
      hostname: this.opts.hostname,
      onListen: () => {},
      onError: (e) => {
        this.opts.log.warn("The plain-HTTP listener failed to answer", { error: String(e) });
        return new Response("Internal error", { status: 500 });
      },
    }, (req) => this.#answer(req));
  }

  get listening(): boolean {
    return this.#server !== null;
  }

  /** The port it listens on (when started with 0: the one it got). */
  get port(): number {
    return this.#server?.addr.port ?? this.opts.port;
  }

  /** Answers `token` with `keyAuthorization` until removed. */
  set(token: string, keyAuthorization: string): void {
    this.#tokens.set(token, keyAuthorization);
  }

  remove(token: string): void {
    this.#tokens.delete(token);
  }

  #answer(req: Request): Response {
    const url = new URL(req.url);
    const challenge = CHALLENGE.exec(url.pathname);
    if (challenge) {
      const answer = this.#tokens.get(challenge[1]);
      return answer === undefined
        ? new Response("Unknown challenge token", { status: 404 })
        : new Response(answer, { headers: { "Content-Type": "text/plain" } });
    }
    const ca = url.pathname === CA_DOWNLOAD_PATH ? this.opts.caCertificate() : null;
    if (ca) return new Response(ca, { headers: CA_HEADERS });
    const host = req.headers.get("host") ?? "";
    const m = HOST.exec(host);
    if (!m) return new Response("Open the panel over HTTPS", { status: 400 });
    const port = this.opts.httpsPort();
    const target = `https://${m[1]}${port === 443 ? "" : `:${port}`}${url.pathname}${url.search}`;
    return new Response(null, { status: 308, headers: { Location: target } });
  }

  async stop(): Promise<void> {
    const server = this.#server;
    this.#server = null;
    await server?.shutdown();
  }
}
