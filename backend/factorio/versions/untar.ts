// Unpacks a .tar.xz into a fresh directory, checking every entry before anything of it reaches the disk.
// The system's xz decompresses (a stream on its stdout); the tar format is read here, so the rules are
// ours and not the tar tool's defaults:
//   - every name is relative, has no `..` part, and lies under one expected top folder;
//   - symlinks must lead to a place inside that folder, resolved part by part, and nothing is written
//     through a symlink (no entry's parent may be one, and a link may not lead through another);
//   - hard links must name a regular file already unpacked; devices, fifos and other kinds are refused;
//   - files are created new (an entry cannot overwrite another or a link), with at most rwxr-xr-x.
// An archive that breaks a rule stops the unpacking with ArchiveError; the caller removes the directory.
// Reading streams: memory stays flat whatever the archive's size.

import { dirname, join } from "node:path";
import { diskSpace } from "../../lib/fsutil.ts";

export class ArchiveError extends Error {}

export interface UntarOptions {
  /** The one folder every entry must be in (e.g. "factorio"). */
  top: string;
  signal?: AbortSignal;
  /** Called as bytes are written, for progress. */
  onBytes?: (written: number) => void;
  /** Stop when the disk holding `dest` gets below this many free bytes. */
  minFreeBytes?: number;
}

const BLOCK = 512;
const WRITE_BATCH = 1024 * 1024;

const READ_CHUNK = 256 * 1024;

/**
 * Reads exact byte counts from a byte stream. Its memory is read into again once everything read from it
 * was used: callers finish with what take() gave them before they ask for more.
 */
class ByteReader {
  #chunks: Uint8Array[] = [];
  #buffered = 0;
  #done = false;
  #spare: ArrayBuffer | null = null;
  constructor(private readonly reader: ReadableStreamBYOBReader) {}

  async #fill(n: number): Promise<boolean> {
    while (this.#buffered < n && !this.#done) {
      const into = this.#chunks.length === 0 && this.#spare
        ? new Uint8Array(this.#spare)
        : new Uint8Array(READ_CHUNK);
      this.#spare = null;
      const { value, done } = await this.reader.read(into);
      if (done || !value) this.#done = true;
      else if (value.length) {
        this.#chunks.push(value);
        this.#buffered += value.length;
        this.#spare = value.buffer as ArrayBuffer;
      }
    }
    return this.#buffered >= n;
  }

  /** Up to `n` bytes (fewer only at the end), as views of the chunks read. */
  async take(n: number): Promise<Uint8Array | null> {
    await this.#fill(1);
    if (this.#buffered === 0) return null;
    const first = this.#chunks[0];
    if (first.length <= n) {
      this.#chunks.shift();
      this.#buffered -= first.length;
      return first;
    }
    this.#chunks[0] = first.subarray(n);
    this.#buffered -= n;
    return first.subarray(0, n);
  }

  async exact(n: number): Promise<Uint8Array> {
    if (!(await this.#fill(n))) throw new ArchiveError("the archive ends in the middle of an entry");
    const out = new Uint8Array(n);
    let off = 0;
    while (off < n) {
      const part = (await this.take(n - off))!;
      out.set(part, off);
      off += part.length;
    }
    return out;
  }
}

const decoder = new TextDecoder();
function str(b: Uint8Array, start: number, len: number): string {
  const field = b.subarray(start, start + len);
  const end = field.indexOf(0);
  return decoder.decode(end === -1 ? field : field.subarray(0, end));
}

function octal(b: Uint8Array, start: number, len: number): number {
  // GNU base-256 for large numbers: high bit of the first byte set.
  if (b[start] & 0x80) {
    let n = b[start] & 0x7f;
    for (let i = 1; i < len; i++) n = n * 256 + b[start + i];
    return n;
  }
  const s = str(b, start, len).trim();
  if (s === "") return 0;
  if (!/^[0-7]+$/.test(s)) throw new ArchiveError("an entry header is damaged");
  return parseInt(s, 8);
}

function checksumOk(h: Uint8Array): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : h[i];
  return sum === octal(h, 148, 8);
}

function paxRecords(data: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  const text = decoder.decode(data);
  let i = 0;
  while (i < text.length) {
    const space = text.indexOf(" ", i);
    if (space === -1) break;
    const len = Number(text.slice(i, space));
    if (!Number.isInteger(len) || len <= 0) throw new ArchiveError("a pax header is damaged");
    const record = text.slice(space + 1, i + len - 1);
    const eq = record.indexOf("=");
    if (eq > 0) out.set(record.slice(0, eq), record.slice(eq + 1));
    i += len;
  }
  return out;
}

/** The parts of an entry name, or an ArchiveError naming why it is refused. */
export function entryParts(name: string, top: string): string[] {
  if (name.includes("\0")) throw new ArchiveError(`the archive holds a name with a NUL byte`);
  if (name.startsWith("/")) throw new ArchiveError(`the archive holds an absolute path: ${name}`);
  const parts = name.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.includes("..")) throw new ArchiveError(`the archive holds a path with "..": ${name}`);
  if (parts.length === 0 || parts[0] !== top) {
    throw new ArchiveError(`the archive holds ${name}, outside the expected folder ${top}/`);
  }
  return parts;
}

export async function untarXz(
  archive: string,
  dest: string,
  opts: UntarOptions,
): Promise<{ files: number; bytes: number }> {
  const xz = new Deno.Command("xz", {
    args: ["-dc", "--", archive],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(xz.stderr).text();
  const reader = xz.stdout.getReader({ mode: "byob" });
  const onAbort = () => {
    try {
      xz.kill("SIGKILL");
    } catch {
      // already gone
    }
  };
  opts.signal?.addEventListener("abort", onAbort);
  try {
    const result = await readTar(new ByteReader(reader), dest, opts);
    // Whatever trails the end-of-archive blocks is drained, so xz can finish and report its own errors.
    for (let rest = new Uint8Array(READ_CHUNK);;) {
      const r = await reader.read(rest);
      if (r.done || !r.value) break;
      rest = new Uint8Array(r.value.buffer);
    }
    const status = await xz.status;
    if (!status.success) {
      opts.signal?.throwIfAborted();
      throw new ArchiveError(
        `the archive is not a readable .tar.xz (${(await stderr).trim() || `xz exit ${status.code}`})`,
      );
    }
    return result;
  } catch (e) {
    onAbort();
    await reader.cancel().catch(() => {});
    await xz.status;
    opts.signal?.throwIfAborted();
    if (e instanceof ArchiveError) {
      const err = (await stderr).trim();
      if (err && /ends in the middle|damaged/.test(e.message)) {
        throw new ArchiveError(`the archive is not a readable .tar.xz (${err})`);
      }
    }
    throw e;
  } finally {
    opts.signal?.removeEventListener("abort", onAbort);
  }
}

async function readTar(
  input: ByteReader,
  dest: string,
  opts: UntarOptions,
): Promise<{ files: number; bytes: number }> {
  const symlinks = new Set<string>();
  const regular = new Set<string>();
  let files = 0;
  let bytes = 0;
  let sinceSpaceCheck = 0;
  let longName: string | null = null;
  let longLink: string | null = null;
  let pax = new Map<string, string>();
  let sawEnd = false;
  // One write batch for the whole archive.
  const batchMemory = new Uint8Array(WRITE_BATCH);

  const underLink = (parts: string[]) => {
    for (let i = 1; i < parts.length; i++) if (symlinks.has(parts.slice(0, i).join("/"))) return true;
    return false;
  };

  while (true) {
    opts.signal?.throwIfAborted();
    const header = await input.exact(BLOCK).catch((e) => {
      // A stream that simply stops between entries has no end blocks: still refused below.
      if (e instanceof ArchiveError) return null;
      throw e;
    });
    if (header === null) break;
    if (header.every((b) => b === 0)) {
      sawEnd = true;
      break;
    }
    if (!checksumOk(header)) throw new ArchiveError("an entry header is damaged (checksum)");
    const type = String.fromCharCode(header[156] || 48);
    let size = octal(header, 124, 12);
    if (pax.has("size")) size = Number(pax.get("size"));
    const padded = Math.ceil(size / BLOCK) * BLOCK;

    if (type === "L" || type === "K" || type === "x" || type === "g") {
      if (size > 1024 * 1024) throw new ArchiveError("an extended header is too large");
      const data = (await input.exact(padded)).subarray(0, size);
      if (type === "L") longName = str(data, 0, data.length);
      else if (type === "K") longLink = str(data, 0, data.length);
      else if (type === "x") pax = paxRecords(data);
      continue;
    }

    const magic = str(header, 257, 6);
    const prefix = magic === "ustar" ? str(header, 345, 155) : "";
    const name = longName ?? pax.get("path") ??
      (prefix ? `${prefix}/${str(header, 0, 100)}` : str(header, 0, 100));
    const linkName = longLink ?? pax.get("linkpath") ?? str(header, 157, 100);
    longName = longLink = null;
    pax = new Map();

    const parts = entryParts(name, opts.top);
    const rel = parts.join("/");
    if (underLink(parts)) throw new ArchiveError(`the archive writes through a link: ${name}`);
    const target = join(dest, ...parts);
    const mode = octal(header, 100, 8) & 0o755;

    if (type === "5") {
      await Deno.mkdir(target, { recursive: true, mode: 0o755 });
      await input.exact(padded);
      continue;
    }
    await Deno.mkdir(dirname(target), { recursive: true, mode: 0o755 });
    if (type === "2") {
      if (linkName.startsWith("/")) {
        throw new ArchiveError(`the archive holds a link to an absolute path: ${name} -> ${linkName}`);
      }
      const at = parts.slice(0, -1);
      for (const p of linkName.split("/")) {
        if (p === "" || p === ".") continue;
        if (p === "..") {
          at.pop();
          if (at.length === 0) {
            throw new ArchiveError(
              `the archive holds a link leading outside the folder: ${name} -> ${linkName}`,
            );
          }
        } else {
          at.push(p);
          if (symlinks.has(at.join("/"))) {
            throw new ArchiveError(`the archive holds a link through another link: ${name} -> ${linkName}`);
          }
        }
      }
      await Deno.symlink(linkName, target);
      symlinks.add(rel);
      await input.exact(padded);
      continue;
    }
    if (type === "1") {
      const linkParts = entryParts(linkName, opts.top);
      if (!regular.has(linkParts.join("/"))) {
        throw new ArchiveError(
          `the archive holds a hard link to something that is not a file in it: ${name}`,
        );
      }
      await Deno.link(join(dest, ...linkParts), target);
      await input.exact(padded);
      continue;
    }
    if (type !== "0" && type !== "7") {
      throw new ArchiveError(`the archive holds an entry of a kind a game folder has no use for: ${name}`);
    }

    const file = await Deno.open(target, { write: true, createNew: true, mode: mode | 0o600 });
    try {
      // Small chunks from the decompressor are gathered into 1 MiB writes; large ones go straight to the file.
      const batch = batchMemory.subarray(0, Math.min(size, WRITE_BATCH));
      let filled = 0;
      const write = async (data: Uint8Array) => {
        let off = 0;
        while (off < data.length) off += await file.write(data.subarray(off));
      };
      let left = size;
      while (left > 0) {
        const chunk = await input.take(left);
        if (!chunk) throw new ArchiveError("the archive ends in the middle of an entry");
        left -= chunk.length;
        bytes += chunk.length;
        sinceSpaceCheck += chunk.length;
        if (filled + chunk.length > batch.length) {
          await write(batch.subarray(0, filled));
          filled = 0;
        }
        if (filled === 0 && chunk.length >= 64 * 1024) await write(chunk);
        else {
          batch.set(chunk, filled);
          filled += chunk.length;
        }
        if (left === 0 && filled > 0) await write(batch.subarray(0, filled));
        opts.onBytes?.(bytes);
        if (opts.minFreeBytes && sinceSpaceCheck > 32 * 1024 * 1024) {
          sinceSpaceCheck = 0;
          if ((await diskSpace(dest)).free < opts.minFreeBytes) {
            throw new ArchiveError("the disk is nearly full");
          }
        }
      }
    } finally {
      file.close();
    }
    await Deno.chmod(target, mode | 0o600);
    if (padded > size) await input.exact(padded - size);
    regular.add(rel);
    files++;
  }
  if (!sawEnd) throw new ArchiveError("the archive ends before its end marker (it was cut off)");
  return { files, bytes };
}
