// Where the panel listens: Deno's own HTTP server, with TLS when a certificate and key are given (Deno
// then offers HTTP/2 by ALPN). run.ts and the test harness both serve the app through here.

export interface Tls {
  /** PEM texts. */
  cert: string;
  key: string;
}

export function listen(
  opts: { hostname: string; port: number; tls?: Tls },
  handler: (req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr>) => Response | Promise<Response>,
): Deno.HttpServer<Deno.NetAddr> {
  // onListen: the panel says where it listens itself (startup.ts).
  return Deno.serve({ hostname: opts.hostname, port: opts.port, ...opts.tls, onListen() {} }, handler);
}
