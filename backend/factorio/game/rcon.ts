// A Source RCON client for the game's console (https://developer.valvesoftware.com/wiki/Source_RCON_Protocol).
// One TCP connection, commands one at a time (the game answers them in order), sequential request ids
// starting at 1 (the game treats id 0 specially: it sends that connection its chat log). A reply may come
// in several packets of a full 4086-byte body; a shorter packet ends it, and after a full one the client
// waits briefly for a continuation, since the protocol has no end marker the game honours.

import { orTimeout } from "../../../shared/util.ts";

const TYPE_AUTH = 3;
const TYPE_EXEC = 2;
const TYPE_AUTH_RESPONSE = 2;
const TYPE_RESPONSE = 0;
/** The body size of a full packet: a reply this long may continue in the next packet. */
export const FULL_BODY = 4086;
/** Longest command the panel sends (the game's console lines are far shorter anyway). */
export const MAX_COMMAND_BYTES = 4000;
const MAX_PACKET = 16 * 1024 * 1024;
const CONTINUATION_WAIT_MS = 250;

export class RconError extends Error {}

export interface Packet {
  id: number;
  type: number;
  body: Uint8Array;
}

/** One packet: size (of what follows), id, type, the body and two NULs (the body's and an empty string's). */
export function encodePacket(id: number, type: number, body: string | Uint8Array): Uint8Array {
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const out = new Uint8Array(4 + 4 + 4 + bytes.length + 2);
  const view = new DataView(out.buffer);
  view.setInt32(0, out.length - 4, true);
  view.setInt32(4, id, true);
  view.setInt32(8, type, true);
  out.set(bytes, 12);
  return out;
}

/** Cuts a byte stream into packets; throws RconError on a size no RCON peer would send. */
export class PacketReader {
  #buf = new Uint8Array(0);

  constructor(private readonly maxSize = MAX_PACKET) {}

  push(chunk: Uint8Array): Packet[] {
    const grown = new Uint8Array(this.#buf.length + chunk.length);
    grown.set(this.#buf);
    grown.set(chunk, this.#buf.length);
    this.#buf = grown;
    const packets: Packet[] = [];
    while (this.#buf.length >= 4) {
      const view = new DataView(this.#buf.buffer, this.#buf.byteOffset, this.#buf.byteLength);
      const size = view.getInt32(0, true);
      if (size < 10 || size > this.maxSize) throw new RconError(`not an RCON packet (size ${size})`);
      if (this.#buf.length < 4 + size) break;
      packets.push({
        id: view.getInt32(4, true),
        type: view.getInt32(8, true),
        body: this.#buf.slice(12, 4 + size - 2),
      });
      this.#buf = this.#buf.slice(4 + size);
    }
    return packets;
  }
}

export interface RconOptions {
  host: string;
  port: number;
  password: string;
  /** For connecting and authenticating. */
  timeoutMs?: number;
}

export class RconClient {
  #conn: Deno.Conn;
  #nextId = 1;
  #queue: Promise<unknown> = Promise.resolve();
  #packets: Packet[] = [];
  #wake: (() => void) | null = null;
  #closed = false;
  #readError: Error | null = null;
  #done!: () => void;
  /** Settles when the connection is closed, by either side. */
  readonly done: Promise<void> = new Promise((r) => (this.#done = r));

  private constructor(conn: Deno.Conn) {
    this.#conn = conn;
    void this.#readLoop();
  }

  /** Connects and authenticates; throws RconError when the game refuses the password or is not there. */
  static async connect(opts: RconOptions): Promise<RconClient> {
    const timeoutMs = opts.timeoutMs ?? 5000;
    let conn: Deno.Conn;
    const connecting = Deno.connect({ hostname: opts.host, port: opts.port });
    try {
      conn = await withTimeout(connecting, timeoutMs, "connecting");
    } catch (e) {
      connecting.then((c) => c.close(), () => {}); // a connection that arrives after the timeout is not wanted
      throw new RconError(
        `Cannot reach the game's RCON port ${opts.host}:${opts.port}: ${(e as Error).message}`,
      );
    }
    const client = new RconClient(conn);
    try {
      const id = client.#nextId++;
      await client.#write(encodePacket(id, TYPE_AUTH, opts.password));
      const deadline = Date.now() + timeoutMs;
      while (true) {
        // Source servers may send an empty response value before the auth response; skip it.
        const p = await client.#nextPacket(deadline - Date.now());
        if (p.type !== TYPE_AUTH_RESPONSE) continue;
        if (p.id === -1) throw new RconError("The game refused the RCON password");
        if (p.id === id) break;
      }
    } catch (e) {
      client.close();
      throw e instanceof RconError ? e : new RconError(`RCON authentication failed: ${(e as Error).message}`);
    }
    return client;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Runs one command and returns the game's reply. Commands queue behind each other. */
  exec(command: string, timeoutMs = 15_000): Promise<string> {
    const run = this.#queue.then(() => this.#exec(command, timeoutMs));
    this.#queue = run.catch(() => {});
    return run;
  }

  async #exec(command: string, timeoutMs: number): Promise<string> {
    if (this.#closed) throw new RconError("The RCON connection is closed");
    if (new TextEncoder().encode(command).length > MAX_COMMAND_BYTES) {
      throw new RconError(`Commands are limited to ${MAX_COMMAND_BYTES} bytes`);
    }
    const id = this.#nextId++;
    await this.#write(encodePacket(id, TYPE_EXEC, command));
    const deadline = Date.now() + timeoutMs;
    const parts: Uint8Array[] = [];
    while (true) {
      const continuing = parts.length > 0;
      let p: Packet;
      try {
        p = await this.#nextPacket(continuing ? CONTINUATION_WAIT_MS : deadline - Date.now());
      } catch (e) {
        if (continuing && e instanceof TimeoutError) break;
        if (e instanceof TimeoutError) this.close(); // the connection's state is unknown now
        throw e instanceof RconError
          ? e
          : new RconError(`No answer to the RCON command: ${(e as Error).message}`);
      }
      if (p.id !== id || p.type !== TYPE_RESPONSE) continue; // stale answer of a timed-out command
      parts.push(p.body);
      if (p.body.length !== FULL_BODY) break;
    }
    const total = new Uint8Array(parts.reduce((n, b) => n + b.length, 0));
    let off = 0;
    for (const b of parts) (total.set(b, off), (off += b.length));
    return new TextDecoder().decode(total);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.#conn.close();
    } catch {
      // already closed
    }
    this.#wake?.();
    this.#done();
  }

  async #write(data: Uint8Array): Promise<void> {
    let off = 0;
    try {
      while (off < data.length) off += await this.#conn.write(data.subarray(off));
    } catch (e) {
      this.close();
      throw new RconError(`The RCON connection broke: ${(e as Error).message}`);
    }
  }

  async #nextPacket(timeoutMs: number): Promise<Packet> {
    const deadline = Date.now() + Math.max(0, timeoutMs);
    while (this.#packets.length === 0) {
      if (this.#closed) {
        throw new RconError(
          this.#readError
            ? `The RCON connection broke: ${this.#readError.message}`
            : "The game closed the RCON connection",
        );
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new TimeoutError("timed out");
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
      this.#wake = null;
    }
    return this.#packets.shift()!;
  }

  async #readLoop(): Promise<void> {
    const reader = new PacketReader();
    const chunk = new Uint8Array(64 * 1024);
    try {
      while (true) {
        const n = await this.#conn.read(chunk);
        if (n === null) break;
        const packets = reader.push(chunk.subarray(0, n));
        if (packets.length === 0) continue;
        this.#packets.push(...packets);
        this.#wake?.();
      }
    } catch (e) {
      if (!this.#closed) this.#readError = e as Error;
    }
    this.close();
  }
}

class TimeoutError extends Error {}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return orTimeout(p, ms, () => new TimeoutError(`timed out ${what}`));
}
