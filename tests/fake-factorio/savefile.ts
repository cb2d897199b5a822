// Save files as the simulated game writes them: a zip holding <name>/level-init.dat (the header readers
// use), <name>/level.dat0 (a zlib stream, as since 1.1.14), <name>/level.datmetadata, control.lua, and a
// small JSON file of the simulator's own state (map tick, players seen), so a save loaded again continues
// where it stopped.
//
// The level-init.dat header follows the real format byte for byte (fsm-behaviour.md 7.2 for 0.17-1.1, 7.3
// for 2.x): 4 x u16 version, one unnamed byte, optimised-length strings, flags, loaded_from (3 optimised
// u16), loaded_from_build (u16 up to 1.1, u32 from 2.0), allowed_commands, on 2.x the 4 bytes 00 00 A0 00,
// then the mod count and per mod name, version and CRC.

import { deflateSync } from "node:zlib";
import { crc32 } from "node:zlib";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { ZipReader, zipStream } from "../../backend/lib/zip.ts";

export interface HeaderMod {
  name: string;
  /** "major.minor.patch" */
  version: string;
}

export interface SaveState {
  /** Game ticks played (60 per second). */
  tick: number;
  /** Everyone who ever joined this map. */
  players: string[];
  seed: number;
  /** What --create was given (the simulator keeps it in the save so tests can check it). */
  map_gen_settings?: Record<string, unknown>;
  map_settings?: Record<string, unknown>;
  preset?: string;
  planets?: string[];
  /** The scenario a hosted map was started from. */
  scenario?: string;
  /** A Lua command ran on this map (achievements are off for it: the game asks no more). */
  commands_used?: boolean;
}

export interface SaveOptions {
  /** Full game version writing the save, e.g. "2.0.72". */
  version: string;
  build: number;
  mods: HeaderMod[];
  state: SaveState;
  /**
   * Size of the map (level.dat0) to write; a save keeps the size of the map it was loaded from, as the
   * game's does. Below the simulator's own small map it changes nothing.
   */
  mapBytes?: number;
}

class Writer {
  #parts: number[] = [];
  u8(v: number) {
    this.#parts.push(v & 0xff);
    return this;
  }
  u16(v: number) {
    return this.u8(v).u8(v >> 8);
  }
  u32(v: number) {
    return this.u8(v).u8(v >> 8).u8(v >> 16).u8(v >>> 24);
  }
  /** The game's space-optimised integer: one byte below 255, else 0xFF and the full width. */
  optim(v: number, width: 16 | 32) {
    if (v < 0xff) return this.u8(v);
    this.u8(0xff);
    return width === 16 ? this.u16(v) : this.u32(v);
  }
  string(s: string) {
    const bytes = new TextEncoder().encode(s);
    this.optim(bytes.length, 32);
    for (const b of bytes) this.u8(b);
    return this;
  }
  version48(v: string) {
    const [a, b, c] = parts(v);
    return this.optim(a, 16).optim(b, 16).optim(c, 16);
  }
  bytes(): Uint8Array {
    return Uint8Array.from(this.#parts);
  }
}

function parts(version: string): [number, number, number, number] {
  const p = version.split(".").map((x) => Number(x));
  return [p[0] ?? 0, p[1] ?? 0, p[2] ?? 0, p[3] ?? 0];
}

export function modCrc(mod: HeaderMod): number {
  return crc32(`${mod.name}@${mod.version}`);
}

/** The level-init.dat header of a freeplay map written by `version`. */
export function levelInitHeader(opts: Pick<SaveOptions, "version" | "build" | "mods">): Uint8Array {
  const [major, minor, patch] = parts(opts.version);
  const v2 = major >= 2;
  const w = new Writer();
  w.u16(major).u16(minor).u16(patch).u16(0); // the fourth part is the save's own build counter, 0 here
  w.u8(0); // the unnamed byte every save since 0.17 has
  w.string(""); // campaign: empty for freeplay
  w.string("freeplay"); // level name
  w.string("base"); // base mod
  w.u8(1); // difficulty
  w.u8(0).u8(0); // finished, player_won
  w.string(""); // next_level
  w.u8(0).u8(0); // can_continue, finished_but_continuing
  w.u8(0); // saving_replay
  w.u8(1); // allow_non_admin_debug_options
  w.version48(opts.version);
  if (v2) w.u32(opts.build);
  else w.u16(opts.build);
  w.u8(1); // allowed_commands
  if (v2) w.u8(0).u8(0).u8(0xa0).u8(0); // observed in every 2.0 header, meaning unknown
  w.optim(opts.mods.length, 32);
  for (const mod of opts.mods) {
    w.string(mod.name);
    w.version48(mod.version);
    w.u32(modCrc(mod));
  }
  return w.bytes();
}

const STATE_FILE = "fake-factorio-state.json";

/** The folder name inside the zip: the save's name without .zip, as the game does. */
function folderOf(path: string): string {
  return basename(path).replace(/\.zip$/i, "");
}

/** Writes a save to `path` atomically (temp file + rename), as the game replaces its saves. */
export async function writeSave(path: string, opts: SaveOptions): Promise<number> {
  const folder = folderOf(path);
  const header = levelInitHeader(opts);
  // The map body: the header again plus filler, deflated like the real level.dat0 chunks.
  const body = new Uint8Array(header.length + 16384);
  body.set(header);
  for (let i = header.length; i < body.length; i++) body[i] = (i * 31 + opts.state.seed) & 0xff;
  const metadata = new Uint8Array(8);
  new DataView(metadata.buffer).setUint32(0, body.length, true);
  const small = new Uint8Array(deflateSync(body));
  const mapBytes = Math.max(small.length, opts.mapBytes ?? 0);
  // A big map streams from a generator, so a 1 GiB save never sits in memory.
  const level: Uint8Array | (() => AsyncIterable<Uint8Array>) = mapBytes === small.length
    ? small
    : () => bigMap(small, mapBytes);
  const files: [string, Uint8Array | (() => AsyncIterable<Uint8Array>), "store" | "deflate"][] = [
    [`${folder}/level-init.dat`, header, "deflate"],
    [`${folder}/level.dat0`, level, "store"],
    [`${folder}/level.datmetadata`, metadata, "store"],
    [
      `${folder}/control.lua`,
      new TextEncoder().encode('require("__base__/script/freeplay/control.lua")\n'),
      "deflate",
    ],
    [`${folder}/${STATE_FILE}`, new TextEncoder().encode(JSON.stringify(opts.state)), "deflate"],
  ];
  mkdirSync(dirname(path), { recursive: true });
  const tmp = join(dirname(path), `.${basename(path)}.${crypto.randomUUID()}.tmp`);
  try {
    const stream = zipStream(files.map(([name, data, method]) => ({
      name,
      data,
      method,
      size: data instanceof Uint8Array ? data.length : mapBytes,
    })));
    const fh = await open(tmp, "w");
    let written = 0;
    try {
      for await (const chunk of stream) {
        await fh.write(chunk);
        written += chunk.length;
      }
    } finally {
      await fh.close();
    }
    renameSync(tmp, path);
    return written;
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

/** The small map, then filler up to `total` bytes, in 1 MiB chunks. */
async function* bigMap(start: Uint8Array, total: number): AsyncIterable<Uint8Array> {
  yield start;
  const chunk = new Uint8Array(1 << 20).map((_, i) => (i * 131) & 0xff);
  for (let left = total - start.length; left > 0; left -= chunk.length) {
    yield left >= chunk.length ? chunk : chunk.subarray(0, left);
  }
}

/** What the simulator needs back from a save: its state, and the size of its map. */
export async function readSave(path: string): Promise<{ state: SaveState; levelBytes: number }> {
  const zip = await ZipReader.open(path);
  try {
    const level = zip.find("level-init.dat", true) ?? zip.find("level.dat", true);
    if (!level) throw new Error("level-init.dat not found in the save");
    const stateEntry = zip.find(STATE_FILE, true);
    let state: SaveState = { tick: 0, players: [], seed: 1 };
    if (stateEntry) {
      try {
        state = { ...state, ...JSON.parse(new TextDecoder().decode(await zip.read(stateEntry, 1 << 20))) };
      } catch {
        // a foreign save: start its clock at zero
      }
    }
    const data0 = zip.find("level.dat0", true);
    return { state, levelBytes: data0 ? data0.size : level.size };
  } finally {
    await zip.close();
  }
}

// `deno run tests/fake-factorio/savefile.ts <save.zip>` prints what the save holds, as JSON: how the
// end-to-end tests, which run under Node, read a save the game wrote (the zip reader uses Deno's files).
if (import.meta.main) console.log(JSON.stringify(await readSave(Deno.args[0])));
