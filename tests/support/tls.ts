// What a TLS client sees of a server: the certificate it is handed on a new connection and the protocol
// agreed by ALPN. For tests of the HTTPS listener and the certificate manager.

import http2 from "node:http2";
import tls from "node:tls";

export interface Handshake {
  /** Serial number of the server's certificate (hex, upper case as node:tls gives it). */
  serial: string;
  /** "h2", "http/1.1" or false when none was agreed. */
  alpn: string | false | null;
}

/** Opens a new TLS connection to 127.0.0.1:`port` as `servername`, trusting `ca`, and closes it after the handshake. */
export function handshake(port: number, ca: string, servername = "localhost"): Promise<Handshake> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({
      host: "127.0.0.1",
      port,
      ca: [ca],
      servername,
      ALPNProtocols: ["h2", "http/1.1"],
    });
    socket.once("secureConnect", () => {
      const result = {
        serial: socket.getPeerCertificate().serialNumber.toUpperCase(),
        alpn: socket.alpnProtocol,
      };
      socket.destroy();
      resolve(result);
    });
    socket.once("error", reject);
  });
}

/**
 * An HTTP CONNECT proxy to 127.0.0.1:`port`, whatever host a request names: a client given it
 * (Deno.createHttpClient's proxy) reaches a test name such as panel.test, which no DNS resolves, and checks
 * the certificate for that name.
 */
export function connectProxy(port: number): { url: string; close(): void } {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const open = new Set<Deno.Conn>();
  (async () => {
    for await (const conn of listener) {
      open.add(conn);
      (async () => {
        const head = new Uint8Array(4096);
        let n = 0;
        while (!new TextDecoder().decode(head.subarray(0, n)).includes("\r\n\r\n")) {
          const got = await conn.read(head.subarray(n));
          if (got === null) return;
          n += got;
        }
        const upstream = await Deno.connect({ hostname: "127.0.0.1", port });
        open.add(upstream);
        await conn.write(new TextEncoder().encode("HTTP/1.1 200 Connection established\r\n\r\n"));
        await Promise.all([conn.readable.pipeTo(upstream.writable), upstream.readable.pipeTo(conn.writable)]);
      })().catch(() => {});
    }
  })().catch(() => {});
  return {
    url: `http://127.0.0.1:${listener.addr.port}`,
    close: () => {
      listener.close();
      for (const c of open) {
        try {
          c.close();
        } catch {
          // closed by its other end
        }
      }
    },
  };
}

/**
 * The status of GET `path` over HTTP/2 to 127.0.0.1:`port`, the TLS name `servername` and `:authority` set
 * apart (HTTP/2 sends no Host header: a browser on a rebound name would send that name as :authority).
 */
export function h2Status(
  port: number,
  ca: string,
  servername: string,
  authority: string,
  path = "/",
): Promise<number> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`https://127.0.0.1:${port}`, { ca: [ca], servername });
    session.once("error", reject);
    const req = session.request({ ":path": path, ":authority": authority });
    req.once("response", (headers) => {
      resolve(Number(headers[":status"]));
      req.close();
      session.close();
    });
    req.once("error", reject);
    req.end();
  });
}
