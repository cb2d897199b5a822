// The game's "property tree" binary format and the mod-settings.dat file around it.
//
// A file is: the version of the game that wrote it (four little-endian u16), one byte that the game always
// writes as 0 (since 0.17; before it there is no such byte, so the version says whether it is there),
// then one tree. A tree is a type byte, an "any type" flag byte, then the value:
//   0 none, 1 bool (u8), 2 double (f64), 3 string, 4 list, 5 dictionary,
//   6 signed and 7 unsigned 64-bit integer (written by 2.0 and later).
// A string is an "empty" flag byte; unless it is set, a length (one byte, or 255 and a u32) and UTF-8
// bytes follow. A list or dictionary is a u32 count, then per entry a string key (empty in lists) and a tree.
//
// The decoder keeps every detail the encoder needs to write the same bytes back (flag bytes, the "empty"
// form of strings, 64-bit integers as bigints, NaN payloads), and it refuses everything the game would
// never write (bytes other than 0/1 in flags, lengths in the long form below 255, bytes after the tree),
// so `encode(decode(bytes))` gives back exactly `bytes` for every file it accepts. Hostile input ends in a
// PropertyTreeError, never another exception: lengths and counts are checked against the bytes left before
// anything is allocated, and nesting is bounded.

export class PropertyTreeError extends Error {}

/** A string as stored: `null` is the game's "empty" form (the flag byte set, no length). */
export type PString = string | null;

export interface PEntry {
  key: PString;
  value: PTree;
}

export type PTree =
  | { type: "none"; any: boolean }
  | { type: "bool"; any: boolean; value: boolean }
  | {
    type: "double";
    any: boolean;
    value: number; /** Raw bits of a NaN, kept so it is written back as read. */
    nanBits?: bigint;
  }
  | { type: "string"; any: boolean; value: PString }
  | { type: "list"; any: boolean; entries: PEntry[] }
  | { type: "dict"; any: boolean; entries: PEntry[] }
  | { type: "int"; any: boolean; value: bigint }
  | { type: "uint"; any: boolean; value: bigint };

export interface ModSettingsFile {
  /** [major, minor, patch, build] of the game that wrote the file. */
  version: [number, number, number, number];
  /** The byte after the version; the game writes 0. Files before 0.17 have none (kept as 0, not written). */
  flag: number;
  tree: PTree;
}

const TYPE_CODES = ["none", "bool", "double", "string", "list", "dict", "int", "uint"] as const;
/** Deeper nesting than any settings file has; bounds the decoder's recursion on hostile input. */
export const MAX_DEPTH = 64;
/** The smallest entry (an empty-form key and a "none" tree) takes 3 bytes. */
const MIN_ENTRY_BYTES = 3;

const utf8 = new TextDecoder("utf-8", { fatal: true });
const utf8Encoder = new TextEncoder();

class Reader {
  pos = 0;
  private readonly view: DataView;
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  get left(): number {
    return this.bytes.length - this.pos;
  }
  need(n: number, what: string): void {
    if (n > this.left) {
      throw new PropertyTreeError(`the file ends in the middle of ${what} (at byte ${this.pos})`);
    }
  }
  u8(what: string): number {
    this.need(1, what);
    return this.bytes[this.pos++];
  }
  flag(what: string): boolean {
    const at = this.pos;
    const b = this.u8(what);
    if (b > 1) throw new PropertyTreeError(`${what} at byte ${at} is ${b}, not 0 or 1`);
    return b === 1;
  }
  u16(what: string): number {
    this.need(2, what);
    const v = this.view.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }
  u32(what: string): number {
    this.need(4, what);
    const v = this.view.getUint32(this.pos, true);
    this.pos += 4;
    return v;
  }
  f64(): { value: number; nanBits?: bigint } {
    this.need(8, "a number");
    const value = this.view.getFloat64(this.pos, true);
    const bits = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    return Number.isNaN(value) ? { value, nanBits: bits } : { value };
  }
  i64(signed: boolean): bigint {
    this.need(8, "an integer");
    const v = signed ? this.view.getBigInt64(this.pos, true) : this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    return v;
  }
  string(what: string): PString {
    if (this.flag(what)) return null;
    const at = this.pos;
    let length = this.u8(what);
    if (length === 255) {
      length = this.u32(what);
      if (length < 255) {
        throw new PropertyTreeError(
          `the length of ${what} at byte ${at} is in the long form but only ${length}`,
        );
      }
    }
    this.need(length, what);
    const slice = this.bytes.subarray(this.pos, this.pos + length);
    this.pos += length;
    // Setting names and most values are short ASCII: skip the decoder for them (a third of the decode time).
    if (length <= 64) {
      let i = 0;
      while (i < length && slice[i] < 0x80) i++;
      if (i === length) return String.fromCharCode.apply(null, slice as unknown as number[]);
    }
    try {
      return utf8.decode(slice);
    } catch {
      throw new PropertyTreeError(`${what} at byte ${at} is not valid UTF-8`);
    }
  }
}

function readTree(r: Reader, depth: number): PTree {
  if (depth > MAX_DEPTH) throw new PropertyTreeError(`the tree is nested deeper than ${MAX_DEPTH} levels`);
  const at = r.pos;
  const code = r.u8("a value's type");
  const type = TYPE_CODES[code];
  if (type === undefined) throw new PropertyTreeError(`unknown value type ${code} at byte ${at}`);
  const any = r.flag("a value's any-type flag");
  switch (type) {
    case "none":
      return { type, any };
    case "bool":
      return { type, any, value: r.flag("a true/false value") };
    case "double": {
      const { value, nanBits } = r.f64();
      return nanBits === undefined ? { type, any, value } : { type, any, value, nanBits };
    }
    case "string":
      return { type, any, value: r.string("a text value") };
    case "int":
    case "uint":
      return { type, any, value: r.i64(type === "int") };
    case "list":
    case "dict": {
      const count = r.u32(`the size of a ${type === "list" ? "list" : "dictionary"}`);
      if (count * MIN_ENTRY_BYTES > r.left) {
        throw new PropertyTreeError(
          `a ${
            type === "list" ? "list" : "dictionary"
          } at byte ${at} claims ${count} entries, more than the file holds`,
        );
      }
      const entries: PEntry[] = [];
      for (let i = 0; i < count; i++) {
        const key = r.string("a key");
        entries.push({ key, value: readTree(r, depth + 1) });
      }
      return { type, any, entries };
    }
  }
}

/** Decodes one tree that fills `bytes` exactly. */
export function decodeTree(bytes: Uint8Array): PTree {
  const r = new Reader(bytes);
  const tree = readTree(r, 0);
  if (r.left > 0) throw new PropertyTreeError(`${r.left} bytes follow the end of the tree`);
  return tree;
}

/** True when a file of this game version has the byte between the version and the tree (0.17 and later). */
export function hasHeaderByte(version: readonly number[]): boolean {
  return version[0] > 0 || version[1] >= 17;
}

export function decodeModSettings(bytes: Uint8Array): ModSettingsFile {
  const r = new Reader(bytes);
  if (bytes.length < 9) {
    throw new PropertyTreeError("the file is too short to be a mod-settings.dat (it has no header)");
  }
  const version: [number, number, number, number] = [r.u16(""), r.u16(""), r.u16(""), r.u16("")];
  const flag = hasHeaderByte(version) ? r.u8("the header") : 0;
  if (flag > 1) throw new PropertyTreeError(`the header's flag byte is ${flag}, not 0`);
  const tree = readTree(r, 0);
  if (r.left > 0) throw new PropertyTreeError(`${r.left} bytes follow the end of the settings`);
  if (tree.type !== "dict") throw new PropertyTreeError("the settings are not a dictionary");
  return { version, flag, tree };
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

class Writer {
  private buf = new Uint8Array(4096);
  private view = new DataView(this.buf.buffer);
  length = 0;
  room(n: number): void {
    if (this.length + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.length));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
  u8(v: number): void {
    this.room(1);
    this.buf[this.length++] = v;
  }
  u16(v: number): void {
    this.room(2);
    this.view.setUint16(this.length, v, true);
    this.length += 2;
  }
  u32(v: number): void {
    this.room(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
  }
  f64(v: number, nanBits?: bigint): void {
    this.room(8);
    if (Number.isNaN(v) && nanBits !== undefined) this.view.setBigUint64(this.length, nanBits, true);
    else this.view.setFloat64(this.length, v, true);
    this.length += 8;
  }
  i64(v: bigint, signed: boolean): void {
    this.room(8);
    if (signed) this.view.setBigInt64(this.length, v, true);
    else this.view.setBigUint64(this.length, v, true);
    this.length += 8;
  }
  bytes(b: Uint8Array): void {
    this.room(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
  }
  string(s: PString): void {
    if (s === null) return this.u8(1);
    this.u8(0);
    if (s.length < 255 && isAscii(s)) {
      // ASCII: one byte per character, written in place.
      this.u8(s.length);
      this.room(s.length);
      for (let i = 0; i < s.length; i++) this.buf[this.length++] = s.charCodeAt(i);
      return;
    }
    const b = utf8Encoder.encode(s);
    if (b.length < 255) this.u8(b.length);
    else {
      this.u8(255);
      this.u32(b.length);
    }
    this.bytes(b);
  }
  result(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

function writeTree(w: Writer, t: PTree): void {
  w.u8(TYPE_CODES.indexOf(t.type));
  w.u8(t.any ? 1 : 0);
  switch (t.type) {
    case "none":
      return;
    case "bool":
      return w.u8(t.value ? 1 : 0);
    case "double":
      return w.f64(t.value, t.nanBits);
    case "string":
      return w.string(t.value);
    case "int":
    case "uint":
      return w.i64(t.value, t.type === "int");
    case "list":
    case "dict":
      w.u32(t.entries.length);
      for (const e of t.entries) {
        w.string(e.key);
        writeTree(w, e.value);
      }
  }
}

export function encodeTree(t: PTree): Uint8Array {
  const w = new Writer();
  writeTree(w, t);
  return w.result();
}

export function encodeModSettings(f: ModSettingsFile): Uint8Array {
  const w = new Writer();
  for (const part of f.version) w.u16(part);
  if (hasHeaderByte(f.version)) w.u8(f.flag);
  writeTree(w, f.tree);
  return w.result();
}
