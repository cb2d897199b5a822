// The simulator's Source RCON server (https://developer.valvesoftware.com/wiki/Source_RCON_Protocol):
// little-endian packets of size, id, type and a NUL-terminated body plus one more NUL. Auth (type 3) is
// answered with an auth response (type 2) carrying the request id, or -1 for a wrong password (then the
// connection is closed). Commands (type 2) get response values (type 0) with the command's id; a reply
// longer than one packet's body is split over several packets of MAX_BODY bytes, as Source servers do.

export const MAX_BODY = 4086; // 4096 minus id, type and the two NULs
const MAX_REQUEST = 64 * 1024;

const TYPE_AUTH = 3;
const TYPE_EXEC = 2;
const TYPE_AUTH_RESPONSE = 2;
const TYPE_RESPONSE = 0;

function packet(id: number, type: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(14 + body.length);
  const view = new DataView(out.buffer);
  view.setInt32(0, 10 + body.length, true);
  view.setInt32(4, id, true);
  view.setInt32(8, type, true);
  out.set(body, 12);
  return out; // the last two bytes stay 0: the body's NUL and the empty string's NUL
}

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
    let buf = new Uint8Array(0);
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
      const grown = new Uint8Array(buf.length + n);
      grown.set(buf);
      grown.set(chunk.subarray(0, n), buf.length);
      buf = grown;
      while (buf.length >= 4) {
        const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
        const size = view.getInt32(0, true);
        if (size < 10 || size > MAX_REQUEST) return; // not RCON: hang up
        if (buf.length < 4 + size) break;
        const id = view.getInt32(4, true);
        const type = view.getInt32(8, true);
        const body = decoder.decode(buf.subarray(12, 4 + size - 2));
        buf = buf.slice(4 + size);
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
