// A small description language for the game's map-settings binary format: each codec reads bytes into a
// JSON value and writes that JSON value back into the same bytes. One description serves both directions,
// so decode and encode cannot drift apart. Values that are not set ("optional" fields) are left out of the
// JSON and written as not set, so a string the game made comes back byte for byte.

export class ExchangeError extends Error {}

export class Reader {
  pos = 0;
  /** The last map position read: positions are stored as a difference to it when small. */
  last = { x: 0, y: 0 };
  private readonly view: DataView;
  constructor(readonly bytes: Uint8Array, readonly version: number[]) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  get left(): number {
    return this.bytes.length - this.pos;
  }
  take(n: number): number {
    if (n > this.left) throw new ExchangeError("the settings end too early");
    const at = this.pos;
    this.pos += n;
    return at;
  }
  u8 = () => this.bytes[this.take(1)];
  i16 = () => this.view.getInt16(this.take(2), true);
  u16 = () => this.view.getUint16(this.take(2), true);
  i32 = () => this.view.getInt32(this.take(4), true);
  u32 = () => this.view.getUint32(this.take(4), true);
  f32 = () => this.view.getFloat32(this.take(4), true);
  f64 = () => this.view.getFloat64(this.take(8), true);
  /** A count: one byte, or 255 and a u32. */
  count(): number {
    const at = this.pos;
    const n = this.u8();
    if (n !== 255) return n;
    const long = this.u32();
    if (long < 255) throw new ExchangeError(`a count at byte ${at} is in the long form but only ${long}`);
    return long;
  }
}

export class Writer {
  private buf = new Uint8Array(1024);
  private view = new DataView(this.buf.buffer);
  length = 0;
  last = { x: 0, y: 0 };
  /** Keys a string cannot carry, left out instead of refused (lenient writers only). */
  readonly leftOut: string[] = [];
  constructor(readonly version: number[], readonly lenient = false) {}
  private room(n: number): number {
    if (this.length + n > this.buf.length) {
      const next = new Uint8Array(Math.max(this.buf.length * 2, this.length + n));
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
      this.view = new DataView(next.buffer);
    }
    const at = this.length;
    this.length += n;
    return at;
  }
  u8 = (v: number) => {
    const at = this.room(1);
    this.buf[at] = v;
  };
  i16 = (v: number) => {
    const at = this.room(2); // grows the buffer (and the view) first
    this.view.setInt16(at, v, true);
  };
  u16 = (v: number) => {
    const at = this.room(2); // grows the buffer (and the view) first
    this.view.setUint16(at, v, true);
  };
  i32 = (v: number) => {
    const at = this.room(4); // grows the buffer (and the view) first
    this.view.setInt32(at, v, true);
  };
  u32 = (v: number) => {
    const at = this.room(4); // grows the buffer (and the view) first
    this.view.setUint32(at, v, true);
  };
  f32 = (v: number) => {
    const at = this.room(4); // grows the buffer (and the view) first
    this.view.setFloat32(at, v, true);
  };
  f64 = (v: number) => {
    const at = this.room(8); // grows the buffer (and the view) first
    this.view.setFloat64(at, v, true);
  };
  bytes(b: Uint8Array): void {
    const at = this.room(b.length);
    this.buf.set(b, at);
  }
  count(n: number): void {
    if (n < 255) this.u8(n);
    else {
      this.u8(255);
      this.u32(n);
    }
  }
  result(): Uint8Array {
    return this.buf.slice(0, this.length);
  }
}

export interface Codec {
  read(r: Reader): unknown;
  /** `path` names the value in messages ("map_gen_settings.seed"). */
  write(w: Writer, v: unknown, path: string): void;
}

function need(ok: boolean, path: string, what: string): void {
  if (!ok) throw new ExchangeError(`${path} must be ${what}`);
}

const number = (
  lo: number,
  hi: number,
  integer: boolean,
  read: (r: Reader) => number,
  write: (w: Writer, v: number) => void,
): Codec => ({
  read,
  write: (w, v, path) => {
    need(
      typeof v === "number" && Number.isFinite(v) && (!integer || Number.isInteger(v)) && v >= lo && v <= hi,
      path,
      integer ? `a whole number from ${lo} to ${hi}` : "a number",
    );
    write(w, v as number);
  },
});

export const u8 = number(0, 255, true, (r) => r.u8(), (w, v) => w.u8(v));
export const i16 = number(-32768, 32767, true, (r) => r.i16(), (w, v) => w.i16(v));
export const u32 = number(0, 0xffffffff, true, (r) => r.u32(), (w, v) => w.u32(v));
export const i32 = number(-0x80000000, 0x7fffffff, true, (r) => r.i32(), (w, v) => w.i32(v));
export const f32 = number(-3.4e38, 3.4e38, false, (r) => r.f32(), (w, v) => w.f32(v));
export const f64 = number(-Number.MAX_VALUE, Number.MAX_VALUE, false, (r) => r.f64(), (w, v) => w.f64(v));

export const bool: Codec = {
  read: (r) => {
    const at = r.pos;
    const b = r.u8();
    if (b > 1) throw new ExchangeError(`a true/false value at byte ${at} is ${b}`);
    return b === 1;
  },
  write: (w, v, path) => {
    need(typeof v === "boolean", path, "true or false");
    w.u8(v ? 1 : 0);
  },
};

const utf8 = new TextDecoder("utf-8", { fatal: true });
export const str: Codec = {
  read: (r) => {
    const n = r.count();
    const at = r.take(n);
    try {
      return utf8.decode(r.bytes.subarray(at, at + n));
    } catch {
      throw new ExchangeError(`a text at byte ${at} is not valid UTF-8`);
    }
  },
  write: (w, v, path) => {
    need(typeof v === "string", path, "text");
    const b = new TextEncoder().encode(v as string);
    w.count(b.length);
    w.bytes(b);
  },
};

/** A flag byte, then the value when set. Not set is left out of the JSON. */
export function opt(inner: Codec): Codec & { optional: true } {
  return {
    optional: true,
    read: (r) => (bool.read(r) ? inner.read(r) : undefined),
    write: (w, v, path) => {
      if (v === undefined || v === null) return w.u8(0);
      w.u8(1);
      inner.write(w, v, path);
    },
  };
}

export function array(item: Codec): Codec {
  return {
    read: (r) => {
      const n = r.count();
      if (n > r.left) throw new ExchangeError(`a list claims ${n} items, more than the settings hold`);
      return Array.from({ length: n }, () => item.read(r));
    },
    write: (w, v, path) => {
      need(Array.isArray(v), path, "a list");
      const list = v as unknown[];
      w.count(list.length);
      list.forEach((x, i) => item.write(w, x, `${path}[${i}]`));
    },
  };
}

/** A map from text to `value`, as a JSON object in the order of the bytes. */
export function dict(value: Codec): Codec {
  return {
    read: (r) => {
      const n = r.count();
      if (n > r.left) throw new ExchangeError(`a table claims ${n} entries, more than the settings hold`);
      const o: Record<string, unknown> = {};
      for (let i = 0; i < n; i++) {
        const key = str.read(r) as string;
        if (Object.hasOwn(o, key)) throw new ExchangeError(`the key "${key}" appears twice`);
        o[key] = value.read(r);
      }
      return o;
    },
    write: (w, v, path) => {
      need(typeof v === "object" && v !== null && !Array.isArray(v), path, "an object");
      const entries = Object.entries(v as Record<string, unknown>);
      w.count(entries.length);
      for (const [k, x] of entries) {
        str.write(w, k, path);
        value.write(w, x, `${path}.${k}`);
      }
    },
  };
}

export type Fields = [string, Codec][];

/** Named fields one after the other; `fields` may depend on the version being read or written. */
export function struct(fields: Fields | ((version: number[]) => Fields)): Codec {
  const of = (version: number[]) => (typeof fields === "function" ? fields(version) : fields);
  return {
    read: (r) => {
      const o: Record<string, unknown> = {};
      for (const [name, c] of of(r.version)) {
        const v = c.read(r);
        if (v !== undefined) o[name] = v;
      }
      return o;
    },
    write: (w, v, path) => {
      need(typeof v === "object" && v !== null && !Array.isArray(v), path, "an object");
      const o = v as Record<string, unknown>;
      const known = of(w.version);
      for (const key of Object.keys(o)) {
        if (known.some(([n]) => n === key)) continue;
        if (!w.lenient) throw new ExchangeError(`${path}.${key} is not a setting of this game version`);
        w.leftOut.push(`${path}.${key}`);
      }
      for (const [name, c] of known) {
        if (o[name] === undefined && !("optional" in c)) {
          throw new ExchangeError(`${path}.${name} is missing`);
        }
        c.write(w, o[name], `${path}.${name}`);
      }
    },
  };
}

export function oneOf(names: string[]): Codec {
  return {
    read: (r) => {
      const at = r.pos;
      const i = r.u8();
      if (i >= names.length) {
        throw new ExchangeError(`an option at byte ${at} is ${i}, not one of ${names.length}`);
      }
      return names[i];
    },
    write: (w, v, path) => {
      need(names.includes(v as string), path, `one of ${names.join(", ")}`);
      w.u8(names.indexOf(v as string));
    },
  };
}

const FIXED = 256;
const FAR = 0x7fff;

/**
 * A map position in 1/256 tiles: the difference to the last position as two i16, or, when it does not fit,
 * the marker 0x7fff and the position as two i32.
 */
export const position: Codec = {
  read: (r) => {
    const dx = r.i16();
    let x: number, y: number;
    if (dx === FAR) {
      x = r.i32() / FIXED;
      y = r.i32() / FIXED;
    } else {
      x = r.last.x + dx / FIXED;
      y = r.last.y + r.i16() / FIXED;
    }
    r.last = { x, y };
    return { x, y };
  },
  write: (w, v, path) => {
    need(typeof v === "object" && v !== null, path, "a position {x, y}");
    const p = v as { x: unknown; y: unknown };
    for (const k of ["x", "y"] as const) {
      const n = p[k];
      need(
        typeof n === "number" && Number.isInteger(n * FIXED) && Math.abs(n * FIXED) <= 0x7fffffff,
        `${path}.${k}`,
        "a number of tiles in steps of 1/256",
      );
    }
    const x = (p.x as number) * FIXED;
    const y = (p.y as number) * FIXED;
    const dx = x - w.last.x * FIXED;
    const dy = y - w.last.y * FIXED;
    if (dx >= -32768 && dx < FAR && dy >= -32768 && dy <= 32767) {
      w.i16(dx);
      w.i16(dy);
    } else {
      w.i16(FAR);
      w.i32(x);
      w.i32(y);
    }
    w.last = { x: x / FIXED, y: y / FIXED };
  },
};
