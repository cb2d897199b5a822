// Opening an export archive for import: everything is checked before anything is written. The zip's
// directory, the manifest (format and version), every entry against the manifest's size and SHA-256 (each
// streamed once through the hash, so a truncated or altered archive is found here), the JSON of the
// panel's rows and every name that will reach the disk.

import { createHash } from "node:crypto";
import { open } from "node:fs/promises";
import { type ZipEntry, ZipError, ZipReader } from "../lib/zip.ts";
import { safeName, saveFileName } from "../factorio/paths.ts";
import { packName } from "../factorio/mods/packs.ts";
import {
  ArchiveError,
  BACKUPS_PREFIX,
  CHANNELS,
  checkChannels,
  checkHistory,
  checkManifest,
  checkSchedules,
  checkUsers,
  CONFIG_FILES,
  CONFIG_PREFIX,
  type ExportedChannel,
  type ExportedHistory,
  type ExportedSchedule,
  type ExportedUser,
  HISTORY,
  MANIFEST,
  type Manifest,
  MOD_FILES,
  MODS_PREFIX,
  PACKS_PREFIX,
  safeRelative,
  SAVES_PREFIX,
  SCHEDULES,
  SECRET_SETTINGS_FILES,
  SETTINGS_FILES,
  SETTINGS_PREFIX,
  USERS,
} from "./format.ts";

const JSON_MAX = 32 << 20;

export interface OpenedArchive {
  path: string;
  manifest: Manifest;
  users: ExportedUser[];
  schedules: ExportedSchedule[];
  channels: ExportedChannel[];
  /** Settings file name -> its bytes (small JSON files). */
  settings: Map<string, Uint8Array>;
  /** Pack name -> its files (path inside the pack, entry). */
  packs: Map<string, { rest: string; entry: ZipEntry }[]>;
  saves: { name: string; entry: ZipEntry }[];
  backups: { name: string; entry: ZipEntry }[];
  /** A server archive's mod files (zips, mod-list.json, mod-settings.dat) and config files. */
  mods: { name: string; entry: ZipEntry }[];
  config: { name: string; entry: ZipEntry }[];
  /** A server archive's player history. */
  history: ExportedHistory | null;
  /** Streams one entry into `target` (a new file), checking it against the manifest again. */
  extract(entry: ZipEntry, target: string, mode?: number): Promise<void>;
  close(): Promise<void>;
}

function expected(m: Manifest, name: string): { size: number; sha256: string } {
  const f = m.files.find((x) => x.path === name);
  if (!f) throw new ArchiveError(`${name} is in the archive but not in its manifest`);
  return f;
}

async function hashed(
  zip: ZipReader,
  entry: ZipEntry,
  sink?: (chunk: Uint8Array) => Promise<void>,
): Promise<{ size: number; sha256: string }> {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of await zip.stream(entry)) {
    hash.update(chunk);
    size += chunk.length;
    if (sink) await sink(chunk);
  }
  return { size, sha256: hash.digest("hex") };
}

/** Opens and checks the whole archive; throws ArchiveError with a message for people. Changes nothing. */
export async function openArchive(path: string): Promise<OpenedArchive> {
  let zip: ZipReader;
  try {
    zip = await ZipReader.open(path);
  } catch (e) {
    if (e instanceof ZipError) {
      throw new ArchiveError(`it is not a readable zip (damaged or cut short: ${e.message})`);
    }
    throw new ArchiveError((e as Error).message);
  }
  try {
    const manifestEntry = zip.find(MANIFEST);
    if (!manifestEntry) {
      throw new ArchiveError("it has no manifest.json, so it is not an export of this panel");
    }
    let manifest: Manifest;
    try {
      manifest = checkManifest(JSON.parse(new TextDecoder().decode(await zip.read(manifestEntry, 16 << 20))));
    } catch (e) {
      if (e instanceof SyntaxError) throw new ArchiveError("its manifest.json is not JSON");
      throw e;
    }
    const entries = zip.entries.filter((e) => !e.isDirectory && e.name !== MANIFEST);
    const present = new Set(entries.map((e) => e.name));
    for (const f of manifest.files) {
      if (!present.has(f.path)) throw new ArchiveError(`${f.path} is missing (the manifest lists it)`);
    }
    const json = new Map<string, unknown>();
    for (const entry of entries) {
      const want = expected(manifest, entry.name);
      const parts: Uint8Array[] = [];
      const isJson = entry.name.startsWith("panel/");
      const got = await hashed(zip, entry, isJson ? async (c) => void parts.push(c) : undefined);
      if (got.size !== want.size || got.sha256 !== want.sha256) {
        throw new ArchiveError(`${entry.name} is damaged (it does not match its checksum)`);
      }
      if (isJson) {
        if (got.size > JSON_MAX) throw new ArchiveError(`${entry.name} is too large`);
        const bytes = new Uint8Array(await new Blob(parts as BlobPart[]).arrayBuffer());
        try {
          json.set(entry.name, JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes)));
        } catch {
          throw new ArchiveError(`${entry.name} is not JSON`);
        }
      }
    }
    const a: OpenedArchive = {
      path,
      manifest,
      users: checkUsers(json.get(USERS) ?? []),
      schedules: checkSchedules(json.get(SCHEDULES) ?? []),
      channels: checkChannels(json.get(CHANNELS) ?? []),
      settings: new Map(),
      packs: new Map(),
      saves: [],
      backups: [],
      mods: [],
      config: [],
      history: json.has(HISTORY) ? checkHistory(json.get(HISTORY)) : null,
      extract: (entry, target, mode = 0o644) => extractChecked(zip, manifest, entry, target, mode),
      close: () => zip.close(),
    };
    for (const entry of entries) {
      const n = entry.name;
      const named = (fn: () => string) => {
        try {
          return fn();
        } catch {
          throw new ArchiveError(`${n}: not a name the panel accepts`);
        }
      };
      if (n === USERS || n === SCHEDULES || n === CHANNELS || n === HISTORY) continue;
      const server = manifest.server !== undefined;
      if (n.startsWith(SETTINGS_PREFIX)) {
        const f = n.slice(SETTINGS_PREFIX.length);
        if (![...SETTINGS_FILES, ...SECRET_SETTINGS_FILES].includes(f as never)) {
          throw new ArchiveError(`${n} is not a panel setting`);
        }
        a.settings.set(f, new TextEncoder().encode(JSON.stringify(json.get(n), null, 2) + "\n"));
      } else if (n.startsWith(PACKS_PREFIX)) {
        const [pack, ...rest] = n.slice(PACKS_PREFIX.length).split("/");
        const name = named(() => packName(pack));
        if (name !== pack || !safeRelative(rest.join("/"))) {
          throw new ArchiveError(`${n}: not a name the panel accepts`);
        }
        a.packs.set(pack, [...(a.packs.get(pack) ?? []), { rest: rest.join("/"), entry }]);
      } else if (n.startsWith(SAVES_PREFIX)) {
        const name = n.slice(SAVES_PREFIX.length);
        if (named(() => saveFileName(name)) !== name) {
          throw new ArchiveError(`${n}: not a name the panel accepts`);
        }
        a.saves.push({ name, entry });
      } else if (n.startsWith(BACKUPS_PREFIX)) {
        const name = n.slice(BACKUPS_PREFIX.length);
        if (named(() => safeName(name, "Backup", { ext: ".zip" })) !== name) {
          throw new ArchiveError(`${n}: not a name the panel accepts`);
        }
        a.backups.push({ name, entry });
      } else if (server && n.startsWith(MODS_PREFIX)) {
        const name = n.slice(MODS_PREFIX.length);
        const ok = (MOD_FILES as readonly string[]).includes(name) ||
          named(() => safeName(name, "Mod", { ext: ".zip" })) === name;
        if (!ok) throw new ArchiveError(`${n}: not a name the panel accepts`);
        a.mods.push({ name, entry });
      } else if (server && n.startsWith(CONFIG_PREFIX)) {
        const name = n.slice(CONFIG_PREFIX.length);
        if (!(CONFIG_FILES as readonly string[]).includes(name)) {
          throw new ArchiveError(`${n} is not a server's setting`);
        }
        a.config.push({ name, entry });
      } else {
        throw new ArchiveError(`${n} is not something this panel exports`);
      }
    }
    for (const p of manifest.contents.mod_packs) {
      const ok = (() => {
        try {
          return packName(p) === p;
        } catch {
          return false;
        }
      })();
      if (!ok) throw new ArchiveError(`the mod pack name ${JSON.stringify(p)} is not one the panel accepts`);
    }
    for (const p of a.packs.keys()) {
      if (!manifest.contents.mod_packs.includes(p)) {
        throw new ArchiveError(`mod pack ${p} is not in the manifest`);
      }
    }
    return a;
  } catch (e) {
    await zip.close();
    if (e instanceof ZipError) throw new ArchiveError(`it is damaged (${e.message})`);
    throw e;
  }
}

async function extractChecked(
  zip: ZipReader,
  m: Manifest,
  entry: ZipEntry,
  target: string,
  mode: number,
): Promise<void> {
  const want = expected(m, entry.name);
  const fh = await open(target, "wx", mode);
  try {
    const got = await hashed(zip, entry, async (chunk) => {
      let off = 0;
      while (off < chunk.length) off += (await fh.write(chunk, off, chunk.length - off)).bytesWritten;
    });
    if (got.sha256 !== want.sha256) throw new ArchiveError(`${entry.name} changed while it was imported`);
    await fh.sync();
  } finally {
    await fh.close();
  }
}
