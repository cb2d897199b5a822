// Test helpers for save files: writes save headers in the layout of any game version (so the reader can be
// checked against every format, not only the few real saves we have) and wraps level files into save zips.

import { type ZipSource, zipStream } from "../../backend/lib/zip.ts";
import type { SaveHeader } from "../../shared/api.ts";
import { compareVersions as cmp, parseVersion as parseOrNull, type Version } from "../../shared/versions.ts";

/** A version the test wrote itself: malformed is a bug in the test, so it throws. */
function parseVersion(s: string): Version {
  const v = parseOrNull(s);
  if (!v) throw new Error(`not a version: ${s}`);
  return v;
}

class Writer {
  private parts: number[] = [];
  constructor(private readonly v: Version) {}
  u8(n: number) {
    this.parts.push(n & 0xff);
  }
  u16(n: number) {
    this.parts.push(n & 0xff, (n >> 8) & 0xff);
  }
  u32(n: number) {
    this.parts.push(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, (n >>> 24) & 0xff);
  }
  private get optimised() {
    return cmp(this.v, [0, 14, 14, 0]) >= 0;
  }
  optim16(n: number) {
    if (!this.optimised) return this.u16(n);
    if (n < 0xff) return this.u8(n);
    this.u8(0xff);
    this.u16(n);
  }
  optim32(n: number) {
    if (!this.optimised) return this.u32(n);
    if (n < 0xff) return this.u8(n);
    this.u8(0xff);
    this.u32(n);
  }
  str(s: string, forceOptimised = false) {
    const b = new TextEncoder().encode(s);
    if (forceOptimised || cmp(this.v, [0, 16, 0, 0]) >= 0) this.optim32(b.length);
    else this.u32(b.length);
    for (const x of b) this.parts.push(x);
  }
  version48(s: string) {
    const [a, b, c] = parseVersion(s);
    this.optim16(a);
    this.optim16(b);
    this.optim16(c);
  }
  bytes(): Uint8Array {
    return new Uint8Array(this.parts);
  }
}

export interface EncodeOptions {
  /** Raw allowed_commands byte for saves older than 0.13.0.87 (whose values the reader remaps). */
  rawAllowedCommands?: number;
  /** Bytes to append after the mod list (the rest of a level file). */
  trailer?: Uint8Array;
}

/**
 * The bytes of a header as the game of `header.factorio_version` writes them. Fields that version does
 * not have are left out; mods' CRCs are written only where the format has them.
 */
export function encodeSaveHeader(header: SaveHeader, opts: EncodeOptions = {}): Uint8Array {
  const v = parseVersion(header.factorio_version);
  const w = new Writer(v);
  const since = (min: Version) => cmp(v, min) >= 0;
  for (const part of v) w.u16(part);
  if (since([0, 17, 0, 0])) w.u8(0);
  w.str(header.campaign);
  w.str(header.name);
  w.str(header.base_mod);
  w.u8(header.difficulty);
  w.u8(header.finished ? 1 : 0);
  w.u8(header.player_won ? 1 : 0);
  w.str(header.next_level);
  if (since([0, 12, 0, 0])) {
    w.u8(header.can_continue ? 1 : 0);
    w.u8(header.finished_but_continuing ? 1 : 0);
  }
  w.u8(header.saving_replay ? 1 : 0);
  if (since([0, 16, 0, 0])) w.u8(header.allow_non_admin_debug_options ? 1 : 0);
  w.version48(header.loaded_from);
  if (since([2, 0, 0, 0])) w.u32(header.loaded_from_build);
  else w.u16(header.loaded_from_build);
  w.u8(opts.rawAllowedCommands ?? header.allowed_commands);
  if (!since([0, 13, 0, 42])) {
    // One force with a few statistics entries, which the reader must step over.
    w.u32(1);
    w.u8(0);
    for (let k = 0; k < 3; k++) {
      w.u32(2);
      for (let i = 0; i < 2; i++) {
        w.u16(i);
        w.u32(1000 + i);
      }
    }
  }
  if (since([2, 0, 0, 0])) { for (const b of [0x00, 0x00, 0xa0, 0x00]) w.u8(b); }
  if (since([0, 16, 0, 0])) w.optim32(header.mods.length);
  else w.u32(header.mods.length);
  for (const mod of header.mods) {
    w.str(mod.name, true);
    w.version48(mod.version);
    if (cmp(v, [0, 15, 0, 91]) > 0) w.u32(mod.crc ?? 0);
  }
  const head = w.bytes();
  if (!opts.trailer) return head;
  const out = new Uint8Array(head.length + opts.trailer.length);
  out.set(head);
  out.set(opts.trailer, head.length);
  return out;
}

/** A save zip (as bytes) with the given entries under one folder, like the game writes them. */
export async function saveZip(
  entries: Record<string, Uint8Array>,
  opts: { folder?: string; method?: "store" | "deflate" } = {},
): Promise<Uint8Array> {
  const folder = opts.folder ?? "world";
  const sources: ZipSource[] = Object.entries(entries).map(([name, data]) => ({
    name: folder ? `${folder}/${name}` : name,
    data,
    size: data.length,
    method: opts.method ?? "deflate",
  }));
  return new Uint8Array(await new Response(zipStream(sources)).arrayBuffer());
}

/** zlib-compresses bytes the way the game stores its level.datN map chunks. */
export async function zlib(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as BlobPart]).stream().pipeThrough(
    new CompressionStream("deflate") as unknown as TransformStream<Uint8Array, Uint8Array>,
  );
  return new Uint8Array(await new Response(stream).arrayBuffer());
}
