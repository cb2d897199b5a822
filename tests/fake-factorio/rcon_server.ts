// The simulator's Source RCON server (https://developer.valvesoftware.com/wiki/Source_RCON_Protocol):
// little-endian packets of size, id, type and a NUL-terminated body plus one more NUL. Auth (type 3) is
// answered with an auth response (type 2) carrying the request id, or -1 for a wrong password (then the
// connection is closed). Commands (type 2) get response values (type 0) with the command's id; a reply
// longer than one packet's body is split over several packets of MAX_BODY bytes, as Source servers do.
// The packet codec is the panel's own (backend/factorio/game/rcon.ts), which backend/factorio/game/rcon_test.ts checks byte by byte.

import { encodePacket as packet, FULL_BODY, PacketReader } from "../../backend/factorio/game/rcon.ts";

export const MAX_BODY = FULL_BODY;
const MAX_REQUEST = 64 * 1024;

const TYPE_AUTH = 3;
const TYPE_EXEC = 2;
const TYPE_AUTH_RESPONSE = 2;
const TYPE_RESPONSE = 0;

export interface RconServerOptions {
  hostname: string;
  port: number;
  password: string;
  /** Runs a command; the reply text goes back to the client. */
  execute(command: string): Promise<string> | string;
  onConnection?(remote: string): void;
}

export class RconServer {
  #listener: Deno.Listener;
  #conns = new Set<Deno.Conn>();

  constructor(private readonly opts: RconServerOptions) {
    this.#listener = Deno.listen({ hostname: opts.hostname, port: opts.port, transport: "tcp" });
    void this.#accept();
  }

  get port(): number {
    return (this.#listener.addr as Deno.NetAddr).port;
  }

  close(): void {
    try {
      this.#listener.close();
    } catch {
      // already closed
    }
    for (const c of this.#conns) {
      try {
        c.close();
      } catch {
        // already closed
      }
    }
  }

  async #accept(): Promise<void> {
    try {
      for await (const conn of this.#listener) {
        this.#conns.add(conn);
        const remote = conn.remoteAddr as Deno.NetAddr;
        this.opts.onConnection?.(`${remote.hostname}:${remote.port}`);
        void this.#serve(conn).finally(() => {
          this.#conns.delete(conn);
          try {
            conn.close();
          } catch {
            // already closed
          }
        });
      }
    } catch {
      // listener closed
    }
  }

  async #serve(conn: Deno.Conn): Promise<void> {
    let authed = false;
    const reader = new PacketReader(MAX_REQUEST);
    const chunk = new Uint8Array(8192);
    const decoder = new TextDecoder();
    while (true) {
      let n: number | null;
      try {
        n = await conn.read(chunk);
      } catch {
        return;
      }
      if (n === null) return;
      let packets;
      try {
        packets = reader.push(chunk.subarray(0, n));
      } catch {
        return; // not RCON: hang up
      }
      for (const { id, type, body: raw } of packets) {
        const body = decoder.decode(raw);
        if (type === TYPE_AUTH) {
          authed = body === this.opts.password;
          await this.#write(conn, packet(authed ? id : -1, TYPE_AUTH_RESPONSE, new Uint8Array(0)));
          if (!authed) return;
        } else if (type === TYPE_EXEC && authed) {
          const reply = new TextEncoder().encode(await this.opts.execute(body));
          if (reply.length === 0) await this.#write(conn, packet(id, TYPE_RESPONSE, reply));
          for (let off = 0; off < reply.length; off += MAX_BODY) {
            await this.#write(conn, packet(id, TYPE_RESPONSE, reply.subarray(off, off + MAX_BODY)));
          }
        } else {
          return; // a command before authenticating, or an unknown type
        }
      }
    }
  }

  async #write(conn: Deno.Conn, data: Uint8Array): Promise<void> {
    let off = 0;
    while (off < data.length) off += await conn.write(data.subarray(off));
  }
}
