// A streaming reader of multipart/form-data bodies (RFC 7578) that hands the parts' bytes out of one
// reusable buffer. The body is read with a BYOB reader into that buffer, so a 1 GiB upload makes no new
// buffer per chunk: with a general-purpose parser, the garbage of 16,000 chunks raised the panel's memory
// by 70-110 MiB before the collector caught up (bench/saves-upload.mjs).
//
// Only what uploads need: the parts in order, each with its field name and file name (UTF-8, as browsers
// send them; RFC 5987 filename* too), its data streamed out. Anything malformed is a MultipartError with
// a sentence for the user.

const CAPACITY = 1024 * 1024;
/** What is read after the closing boundary, at most (the rest stays unread: the connection then closes). */
const MAX_EPILOGUE = 64 * 1024;
/** A part's header block larger than this is refused (browsers send a few hundred bytes). */
const MAX_HEADER_BYTES = 16 * 1024;

export class MultipartError extends Error {}

/** The boundary of a multipart/form-data Content-Type, or null when there is none. */
export function boundaryOf(contentType: string): string | null {
  const params = parseParams(contentType.slice(contentType.indexOf(";") + 1));
  const b = params.get("boundary");
  // RFC 2046: 1 to 70 characters.
  return b && b.length <= 70 ? b : null;
}

export interface PartInfo {
  name: string;
  /** The file name as sent (null for a plain field). */
  filename: string | null;
}

/**
 * Reads the parts of `body`. For each, `onPart` says what to do with its data: a function that takes each
 * piece (valid until the promise it returns settles), or null to skip it. Resolves once the closing
 * boundary came and every piece was taken; rejects with MultipartError when the body ends early or is
 * malformed, and with whatever a sink throws.
 *
 * While a sink works on one piece (a file write, done on Deno's blocking pool), the next bytes are read
 * into a second buffer: a 1 GiB upload waited for each write before reading on, which made it about a
 * third slower than a bare server piping the body to a file. At most one sink call is in flight, so a
 * part's pieces reach its sink in order, one after another.
 */
export async function readMultipart(
  body: ReadableStream<Uint8Array>,
  boundary: string,
  onPart: (part: PartInfo, index: number) => ((bytes: Uint8Array) => Promise<void> | void) | null,
): Promise<void> {
  const source = new ByteSource(body);
  // Every delimiter is CRLF "--" boundary; the first one has no CRLF before it in the body, so the buffer
  // starts with one of its own.
  const delimiter = new Finder(new TextEncoder().encode(`\r\n--${boundary}`));
  let buf = new Uint8Array(CAPACITY);
  buf.set([13, 10]);
  let len = 2;
  let ended = false;
  // The other buffer (made on the first piece handed out), and the sink call in flight on `buf`'s memory.
  let spare: Uint8Array<ArrayBuffer> | null = null;
  let flight: Promise<void> | null = null;
  let flightOnBuf = false;
  // Its error, kept at once: a rejection nobody handles yet would end the process.
  let failure: { error: unknown } | null = null;

  /** Waits for the sink call in flight; its error is the reader's. */
  const landed = async (): Promise<void> => {
    const f = flight;
    flight = null;
    flightOnBuf = false;
    if (f) await f;
    if (failure) throw failure.error;
  };
  /** Hands `bytes` (a view of `buf`) to `sink` once its previous piece was taken; does not wait for it. */
  const deliver = async (
    sink: (bytes: Uint8Array) => Promise<void> | void,
    bytes: Uint8Array,
  ): Promise<void> => {
    await landed();
    const r = sink(bytes);
    if (r) {
      flight = r.then(() => {}, (error) => {
        failure ??= { error };
      });
      flightOnBuf = true;
    }
  };

  /** Drops the bytes before `consumed`, then reads more after the rest; false at the end of the body. */
  const more = async (consumed: number): Promise<boolean> => {
    if (failure) throw failure.error;
    if (flightOnBuf) {
      // A sink still works on this buffer: the rest goes to the other one (free: one call at a time).
      spare ??= new Uint8Array(CAPACITY);
      spare.set(buf.subarray(consumed, len));
      [buf, spare] = [spare, buf];
      len -= consumed;
      flightOnBuf = false;
    } else if (consumed > 0) {
      buf.copyWithin(0, consumed, len);
      len -= consumed;
    }
    if (ended) return false;
    if (len === buf.length) throw new MultipartError("a part's headers are too long");
    let got;
    try {
      got = await source.readInto(buf, len);
    } catch (e) {
      throw new MultipartError(`the body was cut off (${(e as Error)?.message ?? e})`);
    }
    buf = got.buf;
    if (got.n === 0) {
      ended = true;
      return false;
    }
    len += got.n;
    return true;
  };

  try {
    // The preamble (before the first delimiter) is skipped.
    let pos = 0;
    for (;;) {
      const at = delimiter.indexOf(buf, pos, len);
      if (at >= 0) {
        pos = at + delimiter.length;
        break;
      }
      const seen = Math.max(0, len - delimiter.length + 1);
      pos = 0;
      if (!await more(seen)) throw new MultipartError("Unexpected end of form");
    }
    for (let index = 0;; index++) {
      // After a delimiter: "--" ends the form; otherwise optional padding, CRLF, then the part's headers.
      while (len - pos < 2) {
        if (!await more(pos)) throw new MultipartError("Unexpected end of form");
        pos = 0;
      }
      if (buf[pos] === 45 && buf[pos + 1] === 45) {
        await landed();
        // The epilogue (a browser sends CRLF) is read too: a body left unread makes Deno's server close
        // a kept-alive connection after the answer, and a request the client sends on it meanwhile fails.
        try {
          let epilogue = len - pos;
          while (epilogue <= MAX_EPILOGUE && !ended && await more(len)) epilogue += len;
        } catch {
          // the parts are whole; a connection cut after them does not undo them
        }
        return;
      }
      let headEnd = HEAD_END.indexOf(buf, pos, len);
      while (headEnd < 0) {
        if (len - pos > MAX_HEADER_BYTES) throw new MultipartError("a part's headers are too long");
        if (!await more(pos)) throw new MultipartError("Unexpected end of form");
        pos = 0;
        headEnd = HEAD_END.indexOf(buf, pos, len);
      }
      const part = parsePartHeaders(new TextDecoder().decode(buf.subarray(pos, headEnd)));
      pos = headEnd + 4;
      await landed();
      const sink = onPart(part, index);
      // The data: everything up to the next delimiter, handed out as it comes.
      for (;;) {
        const at = delimiter.indexOf(buf, pos, len);
        const upTo = at >= 0 ? at : Math.max(pos, len - delimiter.length + 1);
        if (sink && upTo > pos) await deliver(sink, buf.subarray(pos, upTo));
        if (at >= 0) {
          pos = at + delimiter.length;
          break;
        }
        if (!await more(upTo)) throw new MultipartError("Unexpected end of form");
        pos = 0;
      }
    }
  } catch (e) {
    // Nothing may still be writing when the caller cleans up; the first error is the one to report.
    await landed().catch(() => {});
    await source.cancel();
    throw e;
  } finally {
    source.release();
  }
}

/**
 * Reads a body into the caller's buffer: with a BYOB reader where the stream offers one (Deno.serve's
 * request bodies), so no chunk is allocated; else chunk by chunk, copied in (a Request built in a test).
 */
class ByteSource {
  #byob: ReadableStreamBYOBReader | null = null;
  #plain: ReadableStreamDefaultReader<Uint8Array> | null = null;
  #left: Uint8Array | null = null;

  constructor(body: ReadableStream<Uint8Array>) {
    try {
      this.#byob = body.getReader({ mode: "byob" });
    } catch {
      this.#plain = body.getReader();
    }
  }

  /** Reads into `buf` from `at`; answers the buffer to use from now on (a BYOB read moves its memory). */
  async readInto(
    buf: Uint8Array<ArrayBuffer>,
    at: number,
  ): Promise<{ buf: Uint8Array<ArrayBuffer>; n: number }> {
    if (this.#byob) {
      const { value } = await this.#byob.read(new Uint8Array(buf.buffer, at, buf.length - at));
      // Done or not, the bytes come back as a view of the same memory (the old view is detached).
      return value ? { buf: new Uint8Array(value.buffer as ArrayBuffer), n: value.length } : { buf, n: 0 };
    }
    while (!this.#left || this.#left.length === 0) {
      const { value, done } = await this.#plain!.read();
      if (done) return { buf, n: 0 };
      this.#left = value;
    }
    const n = Math.min(this.#left.length, buf.length - at);
    buf.set(this.#left.subarray(0, n), at);
    this.#left = this.#left.subarray(n);
    return { buf, n };
  }

  async cancel(): Promise<void> {
    await (this.#byob ?? this.#plain)!.cancel().catch(() => {});
  }

  release(): void {
    (this.#byob ?? this.#plain)!.releaseLock();
  }
}

/**
 * Finds one byte string (Boyer-Moore-Horspool): each step looks at the last byte under the window and
 * skips by how far that byte is from the needle's end, so a 40-byte boundary is passed over about 40 bytes
 * at a time. Five times faster on a save's random bytes than finding each CR natively and comparing from
 * there (1 GiB: 0.1 s instead of 0.5 s), which was the most expensive step of a large upload.
 */
class Finder {
  readonly #needle: Uint8Array;
  readonly #shift = new Int32Array(256);

  constructor(needle: Uint8Array) {
    this.#needle = needle;
    const m = needle.length;
    this.#shift.fill(m);
    for (let k = 0; k < m - 1; k++) this.#shift[needle[k]] = m - 1 - k;
  }

  get length(): number {
    return this.#needle.length;
  }

  /** The first index of the needle in `hay[from, end)`, or -1. */
  indexOf(hay: Uint8Array, from: number, end: number): number {
    const needle = this.#needle;
    const shift = this.#shift;
    const m = needle.length;
    const lastByte = needle[m - 1];
    for (let i = from; i <= end - m;) {
      const c = hay[i + m - 1];
      if (c === lastByte) {
        let j = m - 2;
        while (j >= 0 && hay[i + j] === needle[j]) j--;
        if (j < 0) return i;
      }
      i += shift[c];
    }
    return -1;
  }
}

/** The end of a part's header block. */
const HEAD_END = new Finder(new Uint8Array([13, 10, 13, 10]));

/** The header block of a part (after any transport padding on the delimiter's line). */
function parsePartHeaders(text: string): PartInfo {
  const lines = text.split("\r\n");
  // The rest of the delimiter's line: only white space may stand there.
  if (lines[0].trim() !== "") throw new MultipartError("a boundary line has more after it");
  let disposition: string | null = null;
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon <= 0) throw new MultipartError("a part has a malformed header");
    if (line.slice(0, colon).trim().toLowerCase() === "content-disposition") {
      disposition = line.slice(colon + 1);
    }
  }
  if (disposition === null) throw new MultipartError("a part has no Content-Disposition");
  const params = parseParams(disposition.slice(disposition.indexOf(";") + 1));
  const name = params.get("name");
  if (name === undefined) throw new MultipartError("a part has no field name");
  let filename = params.get("filename") ?? null;
  const extended = params.get("filename*");
  if (extended !== undefined) {
    const m = /^utf-8'[^']*'(.*)$/i.exec(extended);
    if (m) {
      try {
        filename = decodeURIComponent(m[1]);
      } catch {
        throw new MultipartError("a part's file name is malformed");
      }
    }
  }
  return { name, filename };
}

/** `a=1; b="two; three"` -> Map; names lower-cased, quoted values unescaped. */
function parseParams(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let i = 0;
  while (i < text.length) {
    while (i < text.length && (text[i] === ";" || text[i] === " " || text[i] === "\t")) i++;
    const eq = text.indexOf("=", i);
    if (eq < 0) break;
    const key = text.slice(i, eq).trim().toLowerCase();
    i = eq + 1;
    let value = "";
    if (text[i] === '"') {
      i++;
      while (i < text.length && text[i] !== '"') {
        if (text[i] === "\\" && i + 1 < text.length) i++;
        value += text[i++];
      }
      i++; // the closing quote
    } else {
      const end = text.indexOf(";", i);
      value = text.slice(i, end < 0 ? text.length : end).trim();
      i = end < 0 ? text.length : end;
    }
    if (key && !out.has(key)) out.set(key, value);
  }
  return out;
}
