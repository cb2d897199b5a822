// Reads the header of a Factorio save: the game version, the scenario, and the mods the save was made with.
// Works for every save format from 0.13 to 2.x (the layouts are in docs/save-files.md).
//
// A save is a zip. The header sits at the start of `level-init.dat` (1.1.14 and later, plain), of
// `level.dat` (older saves, plain), or of the first map chunk `level.dat0` (a zlib stream). Only the first
// bytes of one entry are read and inflated, so a 1 GiB save costs a few KiB of work. Saves come from
// uploads, so every length is checked: a damaged or hostile file ends in SaveFileError, never anything else.

import { type ZipEntry, ZipError, ZipReader } from "../../lib/zip.ts";
import type { SaveHeader, SaveMod } from "../../../shared/api.ts";
import { isBuiltInMod } from "../../../shared/factorio.ts";

/** The file is not a save this reader understands; the message says why, for a person. */
export class SaveFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SaveFileError";
  }
}

/** Entries that carry the header, in the order they are preferred. */
export const LEVEL_ENTRIES = ["level-init.dat", "level.dat", "level.dat0"] as const;

type Version = readonly [number, number, number, number];

function atLeast(v: Version, min: Version): boolean {
  for (let i = 0; i < 4; i++) {
    if (v[i] !== min[i]) return v[i] > min[i];
  }
  return true;
}

// Format changes, by the save's own game version.
const V0_12 = [0, 12, 0, 0] as const; // can_continue, finished_but_continuing
const V0_13_STATS_GONE = [0, 13, 0, 42] as const; // per-force stats no longer in the header
const V0_13_COMMANDS = [0, 13, 0, 87] as const; // allowed_commands uses today's values
const V0_14_14 = [0, 14, 14, 0] as const; // space-optimised integers
const V0_15_CRC = [0, 15, 0, 92] as const; // a CRC per mod (FSM: "> 0.15.0.91")
const V0_16 = [0, 16, 0, 0] as const; // optimised string lengths and mod count, non-admin debug flag
const V0_17 = [0, 17, 0, 0] as const; // one byte after the version
const V2_0 = [2, 0, 0, 0] as const; // 4-byte loaded_from build, 4 more bytes before the mod count
const OLDEST = [0, 13, 0, 0] as const;

// Far beyond any real header, small enough that a hostile length cannot make us read much.
const MAX_STRING = 64 * 1024;
const MAX_MODS = 65_535;
const MAX_STATS = 10_000;

/** Thrown inside the parser when the bytes end before the header does. */
class Truncated extends Error {}

class Cursor {
  pos = 0;
  private readonly decoder = new TextDecoder("utf-8", { fatal: true });
  constructor(private readonly bytes: Uint8Array, private version: Version = [0, 0, 0, 0]) {}

  setVersion(v: Version) {
    this.version = v;
  }

  private need(n: number) {
    if (this.pos + n > this.bytes.length) throw new Truncated();
  }
  u8(): number {
    this.need(1);
    return this.bytes[this.pos++];
  }
  u16(): number {
    this.need(2);
    const v = this.bytes[this.pos] | (this.bytes[this.pos + 1] << 8);
    this.pos += 2;
    return v;
  }
  u32(): number {
    this.need(4);
    const b = this.bytes;
    const p = this.pos;
    this.pos += 4;
    return (b[p] | (b[p + 1] << 8) | (b[p + 2] << 16) | (b[p + 3] << 24)) >>> 0;
  }
  skip(n: number) {
    this.need(n);
    this.pos += n;
  }
  bool(): boolean {
    return this.u8() !== 0;
  }
  private optimised(): boolean {
    return atLeast(this.version, V0_14_14);
  }
  /** One byte, or 0xFF followed by the full-width value (0.14.14 and later); always full width before. */
  optimU16(): number {
    if (!this.optimised()) return this.u16();
    const b = this.u8();
    return b === 0xff ? this.u16() : b;
  }
  optimU32(): number {
    if (!this.optimised()) return this.u32();
    const b = this.u8();
    return b === 0xff ? this.u32() : b;
  }
  /** Header strings have optimised lengths from 0.16; mod names have them whenever integers do. */
  string(what: string, modName = false): string {
    const len = modName || atLeast(this.version, V0_16) ? this.optimU32() : this.u32();
    if (len > MAX_STRING) throw new SaveFileError(`the ${what} is ${len} bytes long, which no save has`);
    this.need(len);
    const raw = this.bytes.subarray(this.pos, this.pos + len);
    this.pos += len;
    try {
      return this.decoder.decode(raw);
    } catch {
      throw new SaveFileError(`the ${what} is not valid UTF-8 text`);
    }
  }
  version48(): [number, number, number] {
    return [this.optimU16(), this.optimU16(), this.optimU16()];
  }
}

const show = (v: readonly number[]) => v.join(".");

/**
 * Parses a header from its first bytes. Throws Truncated when `bytes` ends too early (the caller may
 * have more), SaveFileError when the bytes cannot be a header.
 */
function parse(bytes: Uint8Array): SaveHeader {
  const c = new Cursor(bytes);
  const v: Version = [c.u16(), c.u16(), c.u16(), c.u16()];
  if (!atLeast(v, OLDEST)) {
    throw new SaveFileError(
      `it says it was saved by Factorio ${show(v)}; saves older than 0.13 are not supported`,
    );
  }
  if (v[0] > 99) throw new SaveFileError(`it names an impossible game version (${show(v)})`);
  c.setVersion(v);
  if (atLeast(v, V0_17)) c.u8();
  const campaign = c.string("campaign name");
  const name = c.string("level name");
  const baseMod = c.string("base mod name");
  const difficulty = c.u8();
  const finished = c.bool();
  const playerWon = c.bool();
  const nextLevel = c.string("next level name");
  const canContinue = atLeast(v, V0_12) ? c.bool() : false;
  const finishedButContinuing = atLeast(v, V0_12) ? c.bool() : false;
  const savingReplay = c.bool();
  const allowNonAdminDebug = atLeast(v, V0_16) ? c.bool() : false;
  const loadedFrom = c.version48();
  const loadedFromBuild = atLeast(v, V2_0) ? c.u32() : c.u16();
  let allowedCommands = c.u8();
  if (!atLeast(v, V0_13_COMMANDS)) allowedCommands = allowedCommands === 0 ? 2 : 1;
  if (!atLeast(v, V0_13_STATS_GONE)) skipStats(c);
  if (atLeast(v, V2_0)) c.skip(4); // four bytes added in 2.0; their meaning is not needed here
  const count = atLeast(v, V0_16) ? c.optimU32() : c.u32();
  if (count > MAX_MODS) throw new SaveFileError(`it lists ${count} mods, which no save has`);
  const mods: SaveMod[] = [];
  for (let i = 0; i < count; i++) {
    const modName = c.string("mod name", true);
    const version = c.version48();
    const crc = atLeast(v, V0_15_CRC) ? c.u32() : null;
    mods.push({ name: modName, version: show([...version, 0]), crc, built_in: isBuiltInMod(modName) });
  }
  return {
    factorio_version: show(v),
    campaign,
    name,
    base_mod: baseMod,
    difficulty,
    finished,
    player_won: playerWon,
    next_level: nextLevel,
    can_continue: canContinue,
    finished_but_continuing: finishedButContinuing,
    saving_replay: savingReplay,
    allow_non_admin_debug_options: allowNonAdminDebug,
    loaded_from: show([...loadedFrom, 0]),
    loaded_from_build: loadedFromBuild,
    allowed_commands: allowedCommands,
    mods,
  };
}

/** Per-force statistics of early 0.13 saves: skipped, with every count bounded. */
function skipStats(c: Cursor) {
  const forces = c.u32();
  if (forces > MAX_STATS) throw new SaveFileError("its statistics block is implausibly large");
  for (let f = 0; f < forces; f++) {
    c.u8();
    for (let k = 0; k < 3; k++) {
      const n = c.u32();
      if (n > MAX_STATS) throw new SaveFileError("its statistics block is implausibly large");
      c.skip(n * 6);
    }
  }
}

/** Parses a complete header from bytes (the whole level-init.dat, or a prefix that holds the header). */
export function parseSaveHeader(bytes: Uint8Array): SaveHeader {
  try {
    return parse(bytes);
  } catch (e) {
    if (e instanceof Truncated) throw new SaveFileError("the header is cut short");
    throw e;
  }
}

/** The entry that carries the header: level-init.dat before level.dat before level.dat0, at any depth. */
export function findLevelEntry(zip: ZipReader): ZipEntry | undefined {
  for (const name of LEVEL_ENTRIES) {
    const entry = zip.entries.find((e) => !e.isDirectory && e.name.split("/").pop() === name);
    if (entry) return entry;
  }
  return undefined;
}

function isZlib(b: Uint8Array): boolean {
  // A plain header starts with the low byte of the major version (0, 1, 2): never 0x78.
  return b.length >= 2 && b[0] === 0x78 && ((b[0] << 8) | b[1]) % 31 === 0;
}

/** Up to `max` bytes of the entry's content, inflating a zlib stream (level.dat0) on the way. */
async function headerBytes(zip: ZipReader, entry: ZipEntry, max: number): Promise<Uint8Array> {
  const first = await zip.readPrefix(entry, 2);
  if (!isZlib(first)) return await zip.readPrefix(entry, max);
  const inflated = (await zip.stream(entry)).pipeThrough(
    new DecompressionStream("deflate") as unknown as TransformStream<Uint8Array, Uint8Array>,
  );
  return await collect(inflated, max);
}

async function collect(stream: ReadableStream<Uint8Array>, max: number): Promise<Uint8Array> {
  const reader = stream.getReader();
  const out = new Uint8Array(max);
  let n = 0;
  try {
    while (n < max) {
      const { done, value } = await reader.read();
      if (done) break;
      const take = Math.min(value.length, max - n);
      out.set(value.subarray(0, take), n);
      n += take;
    }
  } catch (e) {
    throw new SaveFileError(`its map data is corrupt (${(e as Error).message})`);
  } finally {
    await reader.cancel().catch(() => {});
  }
  return out.subarray(0, n);
}

// Headers are a few hundred bytes plus ~40 per mod; a second, larger read covers saves with huge mod lists.
const READ_STEPS = [16 * 1024, 1024 * 1024, 16 * 1024 * 1024];

/** Runs `read` on the level entry of the save zip at `path`; every failure ends in SaveFileError. */
async function withLevelEntry<T>(
  path: string,
  read: (zip: ZipReader, entry: ZipEntry) => Promise<T>,
): Promise<T> {
  let zip: ZipReader;
  try {
    zip = await ZipReader.open(path);
  } catch (e) {
    if (e instanceof ZipError) throw new SaveFileError(`it is not a zip file (${e.message})`);
    throw e;
  }
  try {
    const entry = findLevelEntry(zip);
    if (!entry) throw new SaveFileError("the zip holds no level-init.dat or level.dat");
    return await read(zip, entry);
  } catch (e) {
    if (e instanceof ZipError) throw new SaveFileError(`the zip is damaged (${e.message})`);
    throw e;
  } finally {
    await zip.close();
  }
}

/** Reads the header of the save zip at `path`. Throws SaveFileError for anything that is not a readable save. */
export function readSaveHeader(path: string): Promise<SaveHeader> {
  return withLevelEntry(path, async (zip, entry) => {
    for (const step of READ_STEPS) {
      const bytes = await headerBytes(zip, entry, step);
      try {
        return parse(bytes);
      } catch (e) {
        if (!(e instanceof Truncated)) throw e;
        if (bytes.length < step) {
          throw new SaveFileError(`${entry.name.split("/").pop()} ends inside the header`);
        }
      }
    }
    throw new SaveFileError("its header is larger than any real save's");
  });
}

/**
 * Only the game version a save was written by ("2.0.28.0", as the header's factorio_version): its first
 * 8 bytes, for the saves list, which shows it for every save and has no use for the mods.
 */
export function readSaveVersion(path: string): Promise<string> {
  return withLevelEntry(path, async (zip, entry) => {
    const c = new Cursor(await headerBytes(zip, entry, 8));
    try {
      const v: Version = [c.u16(), c.u16(), c.u16(), c.u16()];
      if (!atLeast(v, OLDEST) || v[0] > 99) {
        throw new SaveFileError(`it names no game version this panel knows (${show(v)})`);
      }
      return show(v);
    } catch (e) {
      if (e instanceof Truncated) {
        throw new SaveFileError(`${entry.name.split("/").pop()} ends inside the header`);
      }
      throw e;
    }
  });
}

/** True when the zip at `path` looks like a Factorio save: it opens and holds a level file. */
export async function isSaveZip(path: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  let zip: ZipReader;
  try {
    zip = await ZipReader.open(path);
  } catch (e) {
    if (e instanceof ZipError) return { ok: false, reason: "it is not a zip file" };
    throw e;
  }
  try {
    return findLevelEntry(zip)
      ? { ok: true }
      : { ok: false, reason: "the zip holds no level-init.dat or level.dat" };
  } finally {
    await zip.close();
  }
}
