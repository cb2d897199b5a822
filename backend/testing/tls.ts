// What a TLS client sees of a server: the certificate it is handed on a new connection and the protocol
// agreed by ALPN. For tests of the HTTPS listener and the certificate manager.

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
    const socket = tls.connect({ host: "127.0.0.1", port, ca: [ca], servername, ALPNProtocols: ["h2", "http/1.1"] });
    socket.once("secureConnect", () => {
      const result = { serial: socket.getPeerCertificate().serialNumber.toUpperCase(), alpn: socket.alpnProtocol };
      socket.destroy();
      resolve(result);
    });
    socket.once("error", reject);
  });
}
