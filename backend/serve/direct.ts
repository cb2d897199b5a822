// A connection's first request answered by the gate itself, for requests with a large body (uploads).
// Relayed, every byte of an upload was read by the gate, written to the inner server over loopback, and
// read again by Deno's HTTP server before the handler saw it; here the handler reads it from the client's
// socket. The answer (a short JSON message for every upload route) is written back as HTTP/1.1, after
// which the connection is handed to Deno's HTTP server as after a relayed first request.
//
// Only a plain head is taken: "METHOD /path HTTP/1.1", token header names, no folded lines, one
// Content-Length and no Transfer-Encoding, nor a Connection that asks to close or upgrade (the gate has
// checked those with firstRequestBody first). Anything else stays relayed, where Deno's own parser
// answers it.

import { writeAll } from "./bytes.ts";

export interface RequestHead {
  method: string;
  /** The origin-form target: path and query. */
  target: string;
  headers: [string, string][];
  /** The client waits for "100 Continue" before it sends the body (curl does for large uploads). */
  expectContinue: boolean;
  host: string | null;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Field values: visible ASCII, obs-text, space and tab (RFC 9110 5.5); no CR, LF or NUL.
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const HOST = /^([A-Za-z0-9.\-]+|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/;
const latin1 = new TextDecoder("latin1");

/** The head of a request the gate can answer itself, or null when it must go to Deno's parser. */
export function parseRequestHead(head: Uint8Array): RequestHead | null {
  const text = latin1.decode(head);
  if (!text.endsWith("\r\n\r\n")) return null;
  const lines = text.slice(0, -4).split("\r\n");
  const parts = lines[0].split(" ");
  if (parts.length !== 3 || parts[2] !== "HTTP/1.1" || !TOKEN.test(parts[0]) || !parts[1].startsWith("/")) return null;
  if (!/^[\x21-\x7e]+$/.test(parts[1])) return null;
  const headers: [string, string][] = [];
  let expectContinue = false;
  let host: string | null = null;
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) return null;
    const name = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    if (!TOKEN.test(name) || !FIELD_VALUE.test(value)) return null;
    const lower = name.toLowerCase();
    if (lower === "expect") {
      if (value.toLowerCase() !== "100-continue") return null;
      expectContinue = true;
    }
    if (lower === "host") {
      // It becomes part of the request's URL: anything but a plain host and port would change its path.
      if (host !== null || !HOST.test(value)) return null;
      host = value;
    }
    headers.push([name, value]);
  }
  return { method: parts[0], target: parts[1], headers, expectContinue, host };
}

/**
 * The request body, read from the client's connection as the handler asks for it: first the bytes that
 * came with the head, then exactly `length` in all. A byte stream, so a BYOB reader (multipart.ts) reads
 * straight into its own buffer. Errors when the client leaves before the end.
 */
export function bodyStream(
  conn: Deno.Conn,
  already: Uint8Array,
  length: number,
  hooks: { beforeFirstRead: () => Promise<void>; onBytes: (n: number) => void; reading: (on: boolean) => void },
): { stream: ReadableStream<Uint8Array>; left: () => number; started: () => boolean; settled: () => Promise<unknown> } {
  let pending = already;
  let left = length;
  let started = false;
  // The read in flight, if any: nothing else may read the connection until it is over.
  let reading: Promise<unknown> = Promise.resolve();
  const stream: ReadableStream<Uint8Array> = new ReadableStream({
    type: "bytes",
    autoAllocateChunkSize: 256 * 1024,
    async pull(controller: ReadableByteStreamController) {
      const request = controller.byobRequest!;
      const view = request.view as Uint8Array;
      if (left === 0) {
        controller.close();
        request.respond(0);
        return;
      }
      if (pending.length > 0) {
        const n = Math.min(pending.length, view.length, left);
        view.set(pending.subarray(0, n));
        pending = pending.subarray(n);
        left -= n;
        request.respond(n);
        return;
      }
      if (!started) {
        started = true;
        await hooks.beforeFirstRead();
      }
      const read = conn.read(view.subarray(0, Math.min(view.length, left)));
      reading = read.catch(() => null);
      hooks.reading(true);
      let n: number | null;
      try {
        n = await read;
      } finally {
        hooks.reading(false);
      }
      if (n === null) {
        controller.error(new Error("The connection closed before the whole request body came"));
        return;
      }
      left -= n;
      hooks.onBytes(n);
      request.respond(n);
    },
  });
  return { stream, left: () => left, started: () => started, settled: () => reading };
}

/** Reads and drops what is left of a request body (after an early answer), so the next request starts where it should. */
export async function drain(conn: Deno.Conn, left: number, onBytes: (n: number) => void): Promise<boolean> {
  const buf = new Uint8Array(Math.min(left, 256 * 1024));
  while (left > 0) {
    const n = await conn.read(buf.subarray(0, Math.min(buf.length, left)));
    if (n === null) return false;
    left -= n;
    onBytes(n);
  }
  return true;
}

const encoder = new TextEncoder();
/** Answers up to this size are sent with a Content-Length; a longer one is sent chunked as it comes. */
const WHOLE_ANSWER = 256 * 1024;

/** Writes `res` as HTTP/1.1 to `conn`; `close` adds "Connection: close". */
export async function writeResponse(
  conn: Deno.Conn,
  res: Response,
  opts: { close: boolean; head: boolean; writing: (on: boolean) => void },
): Promise<void> {
  let head = `HTTP/1.1 ${res.status} ${res.statusText}\r\n`;
  for (const [name, value] of res.headers) {
    // Framing is this function's: whatever the handler set about it is replaced.
    if (name === "content-length" || name === "transfer-encoding" || name === "connection") continue;
    head += `${name}: ${value}\r\n`;
  }
  head += `date: ${new Date().toUTCString()}\r\n`;
  if (opts.close) head += "connection: close\r\n";
  const reader = res.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let ended = !reader;
  while (reader && size <= WHOLE_ANSWER) {
    const { value, done } = await reader.read();
    if (done) {
      ended = true;
      break;
    }
    chunks.push(value);
    size += value.length;
  }
  opts.writing(true);
  try {
    if (res.status === 204 || res.status === 304) {
      // No body and no length on these (RFC 9110 8.6).
      await writeAll(conn, encoder.encode(head + "\r\n"));
      return;
    }
    if (ended) {
      head += `content-length: ${size}\r\n\r\n`;
      await writeAll(conn, encoder.encode(head));
      if (!opts.head) for (const c of chunks) await writeAll(conn, c);
      return;
    }
    head += "transfer-encoding: chunked\r\n\r\n";
    await writeAll(conn, encoder.encode(head));
    const send = async (c: Uint8Array) => {
      if (c.length === 0) return;
      await writeAll(conn, encoder.encode(c.length.toString(16) + "\r\n"));
      await writeAll(conn, c);
      await writeAll(conn, encoder.encode("\r\n"));
    };
    for (const c of chunks) await send(c);
    for (;;) {
      const { value, done } = await reader!.read();
      if (done) break;
      await send(value);
    }
    await writeAll(conn, encoder.encode("0\r\n\r\n"));
  } finally {
    opts.writing(false);
  }
}
