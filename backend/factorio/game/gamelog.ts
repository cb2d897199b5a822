// Reading the game's log files: the last lines of a file (GET /api/log/tail) without reading the whole
// file, the whole file as a stream (GET /api/log/download), and following a file as the game appends to
// it (the game's output, which the panel does not hold a pipe to, so that the game outlives panel restarts).

import { open } from "node:fs/promises";

const CHUNK = 64 * 1024;
/** How long a watch event waits for the writes after it before the file is read (a quarter of a frame). */
const WATCH_COALESCE_MS = 4;
/** How often a file that keeps growing is read (half a frame). */
const FOLLOW_MS = 8;
/** How many reads in a row that find nothing end the following (the watch is made again). */
const QUIET_READS = 3;
/** A line longer than this is cut: one runaway line must not hold the panel's memory. */
export const MAX_LINE_CHARS = 8192;

function clip(line: string): string {
  return line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) + " [...]" : line;
}

/** The last `count` lines of a text file; [] when it does not exist. Reads backwards in chunks. */
export async function lastLines(path: string, count: number): Promise<string[]> {
  if (count <= 0) return [];
  let fh;
  try {
    fh = await open(path, "r");
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return [];
    throw e;
  }
  try {
    const size = (await fh.stat()).size;
    const parts: Uint8Array[] = [];
    let newlines = 0;
    let pos = size;
    // Enough newlines for `count` lines, plus the one ending the last line.
    while (pos > 0 && newlines <= count) {
      const len = Math.min(CHUNK, pos);
      pos -= len;
      const buf = new Uint8Array(len);
      const { bytesRead } = await fh.read(buf, 0, len, pos);
      const chunk = buf.subarray(0, bytesRead);
      for (const b of chunk) if (b === 10) newlines++;
      parts.unshift(chunk);
    }
    const text = new TextDecoder().decode(await new Blob(parts as BlobPart[]).arrayBuffer());
    const lines = text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    // When the read started mid-file, the first piece may be a partial line.
    if (pos > 0) lines.shift();
    return lines.slice(-count).map((l) => clip(l.replace(/\r$/, "")));
  } finally {
    await fh.close();
  }
}

/**
 * The whole text file as a stream, each piece passed through `redact` (a secret printed in it must not
 * leave); null when it does not exist. Cut at line ends, so a secret never straddles two pieces. The file
 * is read as the client takes it: a log of hundreds of MB costs no memory.
 */
export async function redactedFile(
  path: string,
  redact: (text: string) => string,
): Promise<ReadableStream<Uint8Array> | null> {
  let file: Deno.FsFile;
  try {
    file = await Deno.open(path, { read: true });
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
  let rest = "";
  return file.readable
    .pipeThrough(new TextDecoderStream())
    .pipeThrough(
      new TransformStream<string, string>({
        transform(chunk, out) {
          const text = rest + chunk;
          const end = text.lastIndexOf("\n") + 1;
          rest = text.slice(end);
          if (end > 0) out.enqueue(redact(text.slice(0, end)));
        },
        flush(out) {
          if (rest !== "") out.enqueue(redact(rest));
        },
      }),
    )
    .pipeThrough(new TextEncoderStream());
}

/**
 * Follows a file from `offset`, calling `onLines` with every complete new line, in order. A file-system
 * watch wakes it when the file is written after a quiet spell; while it keeps growing, it is read every
 * FOLLOW_MS without the watch (see #follow); a slow timer catches anything a watch misses. `poll()`
 * reads what is there now.
 */
export class FileTail {
  #offset: number;
  #partial = "";
  #watcher: Deno.FsWatcher | null = null;
  /** False once a watch could not be made (no inotify left): the timers alone do. */
  #watchable = true;
  #timer: ReturnType<typeof setInterval> | undefined;
  #reading: Promise<void> | null = null;
  #again = false;
  /** Reads in a row that found nothing new while following without the watch. */
  #quietReads = 0;
  #closed = false;
  #decoder = new TextDecoder();
  #soonTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(readonly path: string, offset: number, private readonly onLines: (lines: string[]) => void) {
    this.#offset = offset;
  }

  /** Whether a watch is in place now (none while the file keeps growing). */
  get watching(): boolean {
    return this.#watcher !== null;
  }

  start(): void {
    this.#watch();
    this.#timer = setInterval(() => void this.poll(), 1000);
    void this.poll();
  }

  #watch(): void {
    if (this.#closed || this.#watcher || !this.#watchable) return;
    let watcher: Deno.FsWatcher;
    try {
      watcher = Deno.watchFs(this.path, { recursive: false });
    } catch {
      this.#watchable = false;
      return;
    }
    this.#watcher = watcher;
    void (async () => {
      try {
        for await (const _ of watcher) this.#soon(WATCH_COALESCE_MS);
      } catch {
        // watcher closed
      }
    })();
  }

  #unwatch(): void {
    const watcher = this.#watcher;
    this.#watcher = null;
    try {
      watcher?.close();
    } catch {
      // already closed
    }
  }

  /**
   * A watch event: read a moment later. The game writes line by line and each write is an event; read at
   * once, a burst of 20,000 lines was thousands of small reads, each an open, a stat and a close on the
   * panel's one thread, while the console clients waited. The /ws batches go out once a frame anyway.
   */
  #soon(ms: number): void {
    this.#soonTimer ??= setTimeout(() => {
      this.#soonTimer = undefined;
      void this.poll();
    }, ms);
  }

  /**
   * After a read: while the file grows, the watch is put away and the file read again FOLLOW_MS later.
   * Watched during a burst, every one of the game's writes was an event (20,000 for 20,000 lines) that
   * the watch's thread and then the panel's thread handled, for reads that happen once a frame anyway.
   * Once QUIET_READS reads in a row found nothing new, the watch is made again, and the file read once
   * more for a write that came before the watch was in place. Made again after one empty read, the watch
   * was made for most lines of a game printing one every 10-20 ms (83 of 200 lines at 10 ms, 100 of 100
   * at 20 ms); now once. Lines further apart than QUIET_READS x FOLLOW_MS make one watch each (~90 µs).
   */
  #follow(grew: boolean): void {
    if (this.#closed) return;
    if (grew) {
      this.#quietReads = 0;
      this.#unwatch();
      this.#soon(FOLLOW_MS);
      return;
    }
    if (this.#watcher || !this.#watchable) return;
    if (++this.#quietReads < QUIET_READS) {
      this.#soon(FOLLOW_MS);
      return;
    }
    this.#quietReads = 0;
    this.#watch();
    if (this.#watcher) this.#soon(0);
  }

  /** Reads everything appended since the last read. Concurrent calls share one read and one follow-up. */
  poll(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#reading) {
      this.#again = true;
      return this.#reading;
    }
    this.#reading = (async () => {
      let grew = false;
      do {
        this.#again = false;
        if (await this.#read()) grew = true;
      } while (this.#again && !this.#closed);
      this.#follow(grew);
    })().finally(() => (this.#reading = null));
    return this.#reading;
  }

  /** Reads what was appended; true if there was anything. */
  async #read(): Promise<boolean> {
    let grew = false;
    let fh;
    try {
      fh = await open(this.path, "r");
    } catch {
      return false;
    }
    try {
      const size = (await fh.stat()).size;
      if (size < this.#offset) {
        this.#offset = 0; // truncated: start over
        this.#partial = "";
      }
      const buf = new Uint8Array(CHUNK);
      while (this.#offset < size && !this.#closed) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(CHUNK, size - this.#offset), this.#offset);
        if (bytesRead === 0) break;
        this.#offset += bytesRead;
        grew = true;
        const text = this.#partial + this.#decoder.decode(buf.subarray(0, bytesRead), { stream: true });
        const lines = text.split("\n");
        this.#partial = lines.pop()!;
        if (this.#partial.length > MAX_LINE_CHARS) {
          lines.push(this.#partial);
          this.#partial = "";
        }
        if (lines.length > 0) this.onLines(lines.map((l) => clip(l.replace(/\r$/, ""))));
      }
    } finally {
      await fh.close();
    }
    return grew;
  }

  /** Stops following; a final `poll()` before this delivers what is left. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    clearTimeout(this.#soonTimer);
    this.#unwatch();
    await this.#reading;
  }
}
