// Zip files without loading them: a reader that seeks to the central directory and streams single entries
// (a 1 GiB save is opened to read a few KB of level-init.dat), and a writer that streams an archive out
// (download of all mods) without knowing the sizes up front. Zip64 is handled on both sides.
//
// Hostile input is expected (uploads): every length is checked against the file, and malformed archives
// raise ZipError, never anything else.

import { open } from "node:fs/promises";
import type { FileHandle } from "node:fs/promises";
import { crc32 } from "node:zlib";

export class ZipError extends Error {}

export interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  crc32: number;
  compressedSize: number;
  size: number;
  localHeaderOffset: number;
  isDirectory: boolean;
}

const SIG_EOCD = 0x06054b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const SIG_ZIP64_EOCD = 0x06064b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_LOCAL = 0x04034b50;
const SIG_DESCRIPTOR = 0x08074b50;
const MAX_CENTRAL_DIRECTORY = 64 * 1024 * 1024;
const MAX_ENTRIES = 500_000;
const CHUNK = 64 * 1024;

function u16(b: Uint8Array, o: number): number {
  return b[o] | (b[o + 1] << 8);
}
function u32(b: Uint8Array, o: number): number {
  return (b[o] | (b[o + 1] << 8) | (b[o + 2] << 16) | (b[o + 3] << 24)) >>> 0;
}
function u64(b: Uint8Array, o: number): number {
  const v = u32(b, o) + u32(b, o + 4) * 2 ** 32;
  if (!Number.isSafeInteger(v)) throw new ZipError("zip64 value out of range");
  return v;
}

export class ZipReader {
  private constructor(
    private readonly fh: FileHandle,
    readonly fileSize: number,
    readonly entries: ZipEntry[],
  ) {}

  static async open(path: string): Promise<ZipReader> {
    const fh = await open(path, "r");
    try {
      const size = (await fh.stat()).size;
      const entries = await readCentralDirectory(fh, size);
      return new ZipReader(fh, size, entries);
    } catch (e) {
      await fh.close();
      if (e instanceof ZipError) throw e;
      if (e instanceof RangeError) throw new ZipError("not a zip file: " + e.message);
      throw e;
    }
  }

  close(): Promise<void> {
    return this.fh.close();
  }

  /** The first entry whose name equals `name`, or whose last path part does when `anyDepth` is set. */
  find(name: string, anyDepth = false): ZipEntry | undefined {
    return this.entries.find((e) => e.name === name || (anyDepth && e.name.split("/").pop() === name));
  }

  /** The decompressed bytes of an entry, refusing entries larger than `maxBytes`. */
  async read(entry: ZipEntry, maxBytes: number): Promise<Uint8Array> {
    const out = await this.readPrefix(entry, maxBytes + 1);
    if (out.length > maxBytes) throw new ZipError(`${entry.name} is larger than ${maxBytes} bytes`);
    return out;
  }

  /** At most the first `maxBytes` decompressed bytes of an entry: reads and inflates only what it needs. */
  async readPrefix(entry: ZipEntry, maxBytes: number): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    let total = 0;
    // The first read only about as large as what is wanted: a save's 8-byte version from a 64 KiB chunk
    // was an inflate of ~1 MiB (10-25 ms a save, for a list of 500 saves).
    const reader = (await this.stream(entry, Math.min(CHUNK, Math.max(4096, maxBytes)))).getReader();
    try {
      while (total < maxBytes) {
        const { done, value } = await reader.read();
        if (done) break;
        parts.push(value);
        total += value.length;
      }
    } catch (e) {
      if (e instanceof ZipError) throw e;
      throw new ZipError(`${entry.name} is corrupt: ${(e as Error).message}`);
    } finally {
      await reader.cancel().catch(() => {});
    }
    const out = new Uint8Array(Math.min(total, maxBytes));
    let off = 0;
    for (const p of parts) {
      const take = Math.min(p.length, out.length - off);
      out.set(p.subarray(0, take), off);
      off += take;
      if (off === out.length) break;
    }
    return out;
  }

  /** A stream of the decompressed entry (stored or deflated); `firstRead` bytes of the file first, then 64 KiB at a time. */
  async stream(entry: ZipEntry, firstRead = CHUNK): Promise<ReadableStream<Uint8Array>> {
    if (entry.flags & 1) throw new ZipError(`${entry.name} is encrypted`);
    if (entry.method !== 0 && entry.method !== 8) {
      throw new ZipError(`${entry.name} uses an unsupported compression method (${entry.method})`);
    }
    const local = new Uint8Array(30);
    await readExactly(this.fh, local, entry.localHeaderOffset, this.fileSize);
    if (u32(local, 0) !== SIG_LOCAL) throw new ZipError(`bad local header for ${entry.name}`);
    const start = entry.localHeaderOffset + 30 + u16(local, 26) + u16(local, 28);
    const end = start + entry.compressedSize;
    if (end > this.fileSize) throw new ZipError(`${entry.name} runs past the end of the file`);
    const fh = this.fh;
    let pos = start;
    const raw = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (pos >= end) return controller.close();
        const buf = new Uint8Array(Math.min(pos === start ? firstRead : CHUNK, end - pos));
        const { bytesRead } = await fh.read(buf, 0, buf.length, pos);
        if (bytesRead === 0) return controller.error(new ZipError("unexpected end of file"));
        pos += bytesRead;
        controller.enqueue(buf.subarray(0, bytesRead));
      },
    });
    if (entry.method === 0) return raw;
    return raw.pipeThrough(
      new DecompressionStream("deflate-raw") as unknown as TransformStream<Uint8Array, Uint8Array>,
    );
  }
}

async function readExactly(
  fh: FileHandle,
  buf: Uint8Array,
  position: number,
  fileSize: number,
): Promise<void> {
  if (position < 0 || position + buf.length > fileSize) throw new ZipError("offset outside the file");
  let off = 0;
  while (off < buf.length) {
    const { bytesRead } = await fh.read(buf, off, buf.length - off, position + off);
    if (bytesRead === 0) throw new ZipError("unexpected end of file");
    off += bytesRead;
  }
}

async function readCentralDirectory(fh: FileHandle, fileSize: number): Promise<ZipEntry[]> {
  if (fileSize < 22) throw new ZipError("not a zip file: too short");
  const tailLen = Math.min(fileSize, 22 + 0xffff + 20);
  const tail = new Uint8Array(tailLen);
  await readExactly(fh, tail, fileSize - tailLen, fileSize);
  let eocd = -1;
  for (let i = tailLen - 22; i >= 0; i--) {
    if (u32(tail, i) === SIG_EOCD && i + 22 + u16(tail, i + 20) <= tailLen) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ZipError("not a zip file: no end of central directory");
  let count = u16(tail, eocd + 10);
  let cdSize = u32(tail, eocd + 12);
  let cdOffset = u32(tail, eocd + 16);
  const loc = eocd - 20;
  const hasLocator = loc >= 0 && u32(tail, loc) === SIG_ZIP64_LOCATOR;
  if (!hasLocator && (cdSize === 0xffffffff || cdOffset === 0xffffffff)) {
    throw new ZipError("zip64 locator missing");
  }
  if (hasLocator && (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff)) {
    const z64Offset = u64(tail, loc + 8);
    const z64 = new Uint8Array(56);
    await readExactly(fh, z64, z64Offset, fileSize);
    if (u32(z64, 0) !== SIG_ZIP64_EOCD) throw new ZipError("bad zip64 end of central directory");
    count = u64(z64, 32);
    cdSize = u64(z64, 40);
    cdOffset = u64(z64, 48);
  }
  if (count > MAX_ENTRIES) throw new ZipError("too many entries");
  if (cdSize > MAX_CENTRAL_DIRECTORY) throw new ZipError("central directory too large");
  const cd = new Uint8Array(cdSize);
  await readExactly(fh, cd, cdOffset, fileSize);

  const decoder = new TextDecoder("utf-8");
  const entries: ZipEntry[] = [];
  let p = 0;
  for (let i = 0; i < count; i++) {
    if (p + 46 > cd.length || u32(cd, p) !== SIG_CENTRAL) throw new ZipError("bad central directory entry");
    const flags = u16(cd, p + 8);
    const method = u16(cd, p + 10);
    const crc = u32(cd, p + 16);
    let compressedSize = u32(cd, p + 20);
    let size = u32(cd, p + 24);
    const nameLen = u16(cd, p + 28);
    const extraLen = u16(cd, p + 30);
    const commentLen = u16(cd, p + 32);
    let localHeaderOffset = u32(cd, p + 42);
    const next = p + 46 + nameLen + extraLen + commentLen;
    if (next > cd.length) throw new ZipError("central directory entry runs past its end");
    const name = decoder.decode(cd.subarray(p + 46, p + 46 + nameLen));
    // Zip64 extra field: the 64-bit values appear in this order, only for fields that overflowed.
    let e = p + 46 + nameLen;
    const extraEnd = e + extraLen;
    while (e + 4 <= extraEnd) {
      const id = u16(cd, e);
      const len = u16(cd, e + 2);
      if (e + 4 + len > extraEnd) break;
      if (id === 0x0001) {
        let q = e + 4;
        if (size === 0xffffffff && q + 8 <= e + 4 + len) (size = u64(cd, q)), (q += 8);
        if (compressedSize === 0xffffffff && q + 8 <= e + 4 + len) (compressedSize = u64(cd, q)), (q += 8);
        if (localHeaderOffset === 0xffffffff && q + 8 <= e + 4 + len) localHeaderOffset = u64(cd, q);
      }
      e += 4 + len;
    }
    if (localHeaderOffset + 30 > fileSize || compressedSize > fileSize) {
      throw new ZipError(`entry ${name} points outside the file`);
    }
    entries.push({
      name,
      method,
      flags,
      crc32: crc,
      compressedSize,
      size,
      localHeaderOffset,
      isDirectory: name.endsWith("/"),
    });
    p = next;
  }
  return entries;
}

// ---------------------------------------------------------------------------------------------------------
// Writer

export interface ZipSource {
  name: string;
  /** Modification time for the archive entry. */
  mtime?: Date;
  /** The size, when known: small entries then get plain (non-zip64) records, which every tool reads. */
  size?: number;
  data: Uint8Array | AsyncIterable<Uint8Array> | (() => AsyncIterable<Uint8Array>);
  /** "store" (default: right for zips inside a zip) or "deflate". */
  method?: "store" | "deflate";
}

interface Written {
  name: Uint8Array;
  method: number;
  crc: number;
  compressedSize: number;
  size: number;
  offset: number;
  dosTime: number;
  dosDate: number;
}

const MAX32 = 0xffffffff;

function dosDateTime(d: Date): { dosTime: number; dosDate: number } {
  const year = Math.max(1980, d.getFullYear());
  return {
    dosTime: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    dosDate: ((year - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  };
}

class Bytes {
  readonly buf: Uint8Array;
  private readonly view: DataView;
  private pos = 0;
  constructor(size: number) {
    this.buf = new Uint8Array(size);
    this.view = new DataView(this.buf.buffer);
  }
  u16(v: number) {
    this.view.setUint16(this.pos, v, true);
    this.pos += 2;
    return this;
  }
  u32(v: number) {
    this.view.setUint32(this.pos, v >>> 0, true);
    this.pos += 4;
    return this;
  }
  u64(v: number) {
    this.view.setUint32(this.pos, v % 2 ** 32, true);
    this.view.setUint32(this.pos + 4, Math.floor(v / 2 ** 32), true);
    this.pos += 8;
    return this;
  }
  bytes(b: Uint8Array) {
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }
}

async function* chunksOf(data: ZipSource["data"]): AsyncIterable<Uint8Array> {
  if (data instanceof Uint8Array) {
    yield data;
    return;
  }
  yield* typeof data === "function" ? data() : data;
}

async function* deflate(source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  const cs = new CompressionStream("deflate-raw") as unknown as TransformStream<Uint8Array, Uint8Array>;
  const writer = cs.writable.getWriter();
  const pump = (async () => {
    for await (const chunk of source) await writer.write(chunk);
    await writer.close();
  })();
  pump.catch(() => {});
  const reader = cs.readable.getReader();
  try {
    while (true) {
      const { done, value } = await reader.read();
      if (done) break;
      yield value;
    }
    await pump;
  } finally {
    reader.releaseLock();
  }
}

/**
 * Streams a zip archive of `sources`, reading one source at a time, so memory stays flat whatever the
 * sizes. Entries carry data descriptors (the CRC is known only at the end); zip64 records are used only
 * where a size or offset needs them.
 */
export function zipStream(
  sources: Iterable<ZipSource> | AsyncIterable<ZipSource>,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  async function* generate(): AsyncIterable<Uint8Array> {
    const written: Written[] = [];
    let offset = 0;
    for await (const src of sources) {
      const name = encoder.encode(src.name);
      const method = src.method === "deflate" ? 8 : 0;
      const { dosTime, dosDate } = dosDateTime(src.mtime ?? new Date());
      // Deflate can grow incompressible data a little; leave room for that before choosing 32-bit sizes.
      const small = src.size !== undefined && src.size * 1.01 + 1024 < MAX32;
      const local = new Bytes(30 + name.length + (small ? 0 : 20))
        .u32(SIG_LOCAL).u16(small ? 20 : 45).u16(0x0808).u16(method).u16(dosTime).u16(dosDate)
        .u32(0).u32(small ? 0 : MAX32).u32(small ? 0 : MAX32).u16(name.length).u16(small ? 0 : 20)
        .bytes(name);
      if (!small) local.u16(0x0001).u16(16).u64(0).u64(0);
      yield local.buf;
      const start = offset;
      offset += local.buf.length;
      let crc = 0;
      let size = 0;
      let compressedSize = 0;
      const counted = (async function* () {
        for await (const chunk of chunksOf(src.data)) {
          crc = crc32(chunk, crc);
          size += chunk.length;
          yield chunk;
        }
      })();
      for await (const chunk of method === 8 ? deflate(counted) : counted) {
        compressedSize += chunk.length;
        yield chunk;
      }
      if (small && (size >= MAX32 || compressedSize >= MAX32)) {
        throw new ZipError(`${src.name} grew past the size it was announced with`);
      }
      const descriptor = small
        ? new Bytes(16).u32(SIG_DESCRIPTOR).u32(crc).u32(compressedSize).u32(size)
        : new Bytes(24).u32(SIG_DESCRIPTOR).u32(crc).u64(compressedSize).u64(size);
      offset += compressedSize;
      yield descriptor.buf;
      offset += descriptor.buf.length;
      written.push({ name, method, crc, compressedSize, size, offset: start, dosTime, dosDate });
    }
    const cdStart = offset;
    for (const w of written) {
      const big = [w.size, w.compressedSize, w.offset].map((v) => v >= MAX32);
      const extraLen = big.some(Boolean) ? 4 + 8 * big.filter(Boolean).length : 0;
      const central = new Bytes(46 + w.name.length + extraLen)
        .u32(SIG_CENTRAL).u16(45).u16(extraLen ? 45 : 20).u16(0x0808).u16(w.method).u16(w.dosTime)
        .u16(w.dosDate).u32(w.crc).u32(big[1] ? MAX32 : w.compressedSize).u32(big[0] ? MAX32 : w.size)
        .u16(w.name.length).u16(extraLen).u16(0).u16(0).u16(0).u32(0).u32(big[2] ? MAX32 : w.offset)
        .bytes(w.name);
      if (extraLen) {
        central.u16(0x0001).u16(extraLen - 4);
        if (big[0]) central.u64(w.size);
        if (big[1]) central.u64(w.compressedSize);
        if (big[2]) central.u64(w.offset);
      }
      yield central.buf;
      offset += central.buf.length;
    }
    const cdSize = offset - cdStart;
    const needs64 = written.length >= 0xffff || cdSize >= MAX32 || cdStart >= MAX32;
    if (needs64) {
      yield new Bytes(56 + 20)
        .u32(SIG_ZIP64_EOCD).u64(44).u16(45).u16(45).u32(0).u32(0)
        .u64(written.length).u64(written.length).u64(cdSize).u64(cdStart)
        .u32(SIG_ZIP64_LOCATOR).u32(0).u64(offset).u32(1).buf;
    }
    yield new Bytes(22)
      .u32(SIG_EOCD).u16(0).u16(0).u16(Math.min(written.length, 0xffff)).u16(Math.min(written.length, 0xffff))
      .u32(Math.min(cdSize, MAX32)).u32(needs64 ? MAX32 : cdStart).u16(0).buf;
  }
  const it = generate()[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await it.next();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (e) {
        controller.error(e);
      }
    },
    async cancel() {
      await it.return?.();
    },
  });
}

/** Reads a file as a stream of chunks, for zipStream sources. */
export async function* fileChunks(path: string): AsyncIterable<Uint8Array> {
  const fh = await open(path, "r");
  try {
    const buf = new Uint8Array(CHUNK);
    while (true) {
      const { bytesRead } = await fh.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      yield buf.slice(0, bytesRead);
    }
  } finally {
    await fh.close();
  }
}
