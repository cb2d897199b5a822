// Handing a connection from the gate to Deno's own HTTP server. Relaying every byte through JavaScript
// (gate.ts) cost more than half the requests per second a bare Deno.serve reaches, so once the first
// request of an ordinary connection has been answered, the gate gives the connection itself to Deno's
// HTTP server (`serveHttpOnConnection`, the per-connection form of Deno.serve) and keeps only an abort
// signal to close it. WebSocket connections, TLS, pipelined or chunked requests and anything this file
// cannot frame stay relayed, as before.
//
// `serveHttpOnConnection` is Deno's internal function (Deno[Deno.internal]); Deno is pinned in
// package.json, and without it the gate relays everything (slower, the same behaviour).

export type ConnectionServer = (
  conn: Deno.Conn,
  signal: AbortSignal,
  handler: (req: Request, info: Deno.ServeHandlerInfo<Deno.NetAddr> & { completed?: Promise<void> }) => Response | Promise<Response>,
  onError: (error: unknown) => Response | Promise<Response>,
  onListen: (scheme: unknown) => void,
) => { finished: Promise<void> };

/** Deno's per-connection HTTP server, or null when this Deno does not offer it. */
export function connectionServer(): ConnectionServer | null {
  const internal = (Deno as unknown as { internal?: symbol }).internal;
  if (!internal) return null;
  const fn = (Deno as unknown as Record<symbol, Record<string, unknown> | undefined>)[internal]?.serveHttpOnConnection;
  return typeof fn === "function" ? fn as ConnectionServer : null;
}

let aborting = false;
let guardInstalled = false;

/**
 * Closes a handed-over connection. Deno's server closes its connection from an abort listener that
 * throws BadResource when the connection had just ended on its own (a race the gate cannot see), and an
 * exception from a listener is reported as uncaught, which would end the panel; that one error, raised
 * during this call, is kept from doing so.
 */
export function closeHandedOver(abort: AbortController): void {
  if (!guardInstalled) {
    guardInstalled = true;
    globalThis.addEventListener("error", (e) => {
      if (aborting && e.error instanceof Deno.errors.BadResource) e.preventDefault();
    });
  }
  aborting = true;
  try {
    abort.abort();
  } finally {
    aborting = false;
  }
}

const latin1 = new TextDecoder("latin1");

/** The header fields of a head's lines (the first is the request or status line), names and values lower-cased. */
function* headerFields(lines: string[]): Generator<[string, string]> {
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) yield [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim().toLowerCase()];
  }
}

/**
 * What the gate needs of a connection's first request head: the length of its body, or null when the
 * connection must stay relayed (a chunked body, an unclear length, a request asking to close or upgrade).
 */
export function firstRequestBody(head: Uint8Array): { bodyLength: number; method: string } | null {
  const text = latin1.decode(head);
  const lines = text.split("\r\n");
  const [method, , version] = lines[0].split(" ");
  if (version !== "HTTP/1.1") return null;
  let bodyLength = 0;
  let lengths = 0;
  for (const [name, value] of headerFields(lines)) {
    if (name === "transfer-encoding") return null;
    if (name === "connection" && /\b(close|upgrade)\b/.test(value)) return null;
    if (name === "upgrade") return null;
    if (name === "content-length") {
      if (!/^\d{1,15}$/.test(value)) return null;
      bodyLength = Number(value);
      lengths++;
    }
  }
  return lengths > 1 ? null : { bodyLength, method };
}

type FramerState = "head" | "length" | "chunk-size" | "chunk-data" | "chunk-end" | "trailer" | "done" | "unframed";

const MAX_LINE = 16 * 1024;

/**
 * Follows the server's answer to one request, byte by byte as it passes, to tell where it ends: after
 * its head when it has no body, after Content-Length bytes, or after the last chunk and its trailers.
 * `unframed`: the answer ends only when the connection does (or is not one this file reads), so the
 * connection cannot be handed over.
 */
export class AnswerFramer {
  state: FramerState = "head";
  #line = "";
  #head: string[] = [];
  #left = 0;
  readonly #headRequest: boolean;

  constructor(method: string) {
    this.#headRequest = method === "HEAD";
  }

  get done(): boolean {
    return this.state === "done";
  }

  /** Consumes `bytes`; a connection is handed over only when an answer ended exactly at their end. */
  feed(bytes: Uint8Array): void {
    let i = 0;
    while (i < bytes.length && this.state !== "unframed") {
      switch (this.state) {
        case "done":
          // More than one answer to one request: not a connection this file understands.
          this.state = "unframed";
          return;
        case "length":
        case "chunk-data": {
          // A counted run of body bytes: the whole body, or one chunk (a CRLF follows it).
          const n = Math.min(this.#left, bytes.length - i);
          this.#left -= n;
          i += n;
          if (this.#left === 0) this.state = this.state === "length" ? "done" : "chunk-end";
          break;
        }
        default: {
          // Line-based states: the head, chunk sizes, the CRLF after a chunk, trailers.
          const b = bytes[i++];
          if (b !== 10) {
            if (this.#line.length >= MAX_LINE) this.state = "unframed";
            else this.#line += String.fromCharCode(b);
            break;
          }
          const line = this.#line.endsWith("\r") ? this.#line.slice(0, -1) : this.#line;
          this.#line = "";
          this.#onLine(line);
        }
      }
    }
  }

  #onLine(line: string): void {
    switch (this.state) {
      case "head":
        if (line !== "") {
          if (this.#head.length > 200) this.state = "unframed";
          else this.#head.push(line);
          return;
        }
        return this.#onHead(this.#head.splice(0));
      case "chunk-size": {
        const size = /^([0-9a-fA-F]{1,12})[ \t]*(;.*)?$/.exec(line);
        if (!size) return void (this.state = "unframed");
        this.#left = parseInt(size[1], 16);
        this.state = this.#left === 0 ? "trailer" : "chunk-data";
        return;
      }
      case "chunk-end":
        this.state = line === "" ? "chunk-size" : "unframed";
        return;
      case "trailer":
        if (line === "") this.state = "done";
        return;
    }
  }

  #onHead(lines: string[]): void {
    const status = /^HTTP\/1\.1 (\d{3})(?: |$)/.exec(lines[0] ?? "");
    if (!status) return void (this.state = "unframed");
    const code = Number(status[1]);
    // 100 Continue and other interim answers: the final one follows.
    if (code >= 100 && code < 200) {
      if (code === 101) this.state = "unframed";
      return;
    }
    let length: number | null = null;
    let chunked = false;
    for (const [name, value] of headerFields(lines)) {
      if (name === "connection" && /\bclose\b/.test(value)) return void (this.state = "unframed");
      if (name === "transfer-encoding") {
        if (value !== "chunked") return void (this.state = "unframed");
        chunked = true;
      }
      if (name === "content-length") {
        if (!/^\d{1,15}$/.test(value) || length !== null) return void (this.state = "unframed");
        length = Number(value);
      }
    }
    if (this.#headRequest || code === 204 || code === 304) this.state = "done";
    else if (chunked) this.state = "chunk-size";
    else if (length !== null) {
      this.#left = length;
      this.state = length === 0 ? "done" : "length";
    } else this.state = "unframed";
  }
}
