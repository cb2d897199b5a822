// The backup file: one zip holding the save, what else was asked for (mods, mod list, settings, player
// lists) and manifest.json (version, mods, reason, the SHA-256 of every file). It is written as a stream
// into a hidden temp file beside its final name and renamed into place only when complete, so a failed
// or interrupted backup leaves nothing; memory stays flat whatever the save's size.

import { createHash } from "node:crypto";
import { open, readdir } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { type ZipEntry, ZipError, ZipReader, type ZipSource, zipStream } from "../../lib/zip.ts";
import { writeStreamAtomic } from "../../lib/fsutil.ts";
import type { BackupManifest } from "../../../shared/backups.ts";

export const MANIFEST = "manifest.json";
const CHUNK = 128 << 10;

/** A file to put in the backup, under `path` inside the zip. */
export interface BackupPart {
  path: string;
  file: string;
}

/**
 * Reads a file through one open handle: a save the game replaces (rename) while it is copied stays the
 * version that was opened, whole.
 */
export async function* readWhole(
  file: string,
  onSize: (n: number) => void = () => {},
): AsyncIterable<Uint8Array> {
  const fh = await open(file, "r");
  try {
    onSize((await fh.stat()).size);
    while (true) {
      const buf = new Uint8Array(CHUNK);
      const { bytesRead } = await fh.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      yield bytesRead === CHUNK ? buf : buf.subarray(0, bytesRead);
    }
  } finally {
    await fh.close();
  }
}

/** Every regular file under `dir` (recursively), as paths relative to it with "/" separators. */
export async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(d: string): Promise<void> {
    for (const e of await readdir(d, { withFileTypes: true })) {
      if (e.name.startsWith(".")) continue; // our own and the game's temp files
      const p = join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else if (e.isFile()) out.push(relative(dir, p).split(sep).join("/"));
    }
  }
  await walk(dir);
  return out.sort();
}

/**
 * Writes the backup zip to `target` atomically and answers the manifest as written, the file's size and
 * its SHA-256. `manifest` is completed with the files' checksums.
 */
export async function writeBackup(
  target: string,
  parts: BackupPart[],
  manifest: Omit<BackupManifest, "files">,
): Promise<{ manifest: BackupManifest; size: number; sha256: string }> {
  const files: BackupManifest["files"] = [];
  const full: BackupManifest = { ...manifest, files };
  async function* sources(): AsyncIterable<ZipSource> {
    for (const part of parts) {
      const hash = createHash("sha256");
      let size = 0;
      const data = (async function* () {
        for await (const chunk of readWhole(part.file, () => {})) {
          hash.update(chunk);
          size += chunk.length;
          yield chunk;
        }
      })();
      // Zips inside a zip (saves, mods) do not shrink: stored, so the copy runs at disk speed.
      yield { name: part.path, data, method: /\.zip$/i.test(part.path) ? "store" : "deflate" };
      files.push({ path: part.path, size, sha256: hash.digest("hex") });
    }
    const json = new TextEncoder().encode(JSON.stringify(full, null, 2) + "\n");
    yield { name: MANIFEST, data: json, size: json.length, method: "deflate" };
  }
  const whole = createHash("sha256");
  const hashed = (async function* () {
    for await (const chunk of zipStream(sources())) {
      whole.update(chunk);
      yield chunk;
    }
  })();
  const size = await writeStreamAtomic(target, hashed, undefined, 0o600);
  return { manifest: full, size, sha256: whole.digest("hex") };
}

/** The manifest of a backup file; throws ZipError when the file is not a readable backup. */
export async function readManifest(path: string): Promise<BackupManifest> {
  const zip = await ZipReader.open(path);
  try {
    const entry = zip.find(MANIFEST);
    if (!entry) throw new ZipError("no manifest.json");
    const m = JSON.parse(new TextDecoder().decode(await zip.read(entry, 16 << 20))) as BackupManifest;
    if (m.format !== "factorio-panel-backup" || typeof m.id !== "string" || !Array.isArray(m.files)) {
      throw new ZipError("manifest.json is not a panel backup's");
    }
    return m;
  } catch (e) {
    if (e instanceof SyntaxError) throw new ZipError("manifest.json is not JSON");
    throw e;
  } finally {
    await zip.close();
  }
}

/** A backup opened for restoring: its entries, each checked against the manifest's SHA-256 as it is copied. */
export class BackupReader {
  private constructor(private readonly zip: ZipReader, readonly manifest: BackupManifest) {}

  static async open(path: string): Promise<BackupReader> {
    const manifest = await readManifest(path);
    return new BackupReader(await ZipReader.open(path), manifest);
  }

  /** Entries under `prefix` ("mods/"), with their paths after it. */
  under(prefix: string): { rest: string; entry: ZipEntry }[] {
    return this.zip.entries
      .filter((e) => !e.isDirectory && e.name.startsWith(prefix) && e.name.length > prefix.length)
      .map((entry) => ({ rest: entry.name.slice(prefix.length), entry }));
  }

  find(path: string): ZipEntry | undefined {
    return this.zip.find(path);
  }

  /** Copies one entry to `target` atomically; refuses (and leaves nothing) if it does not match the manifest. */
  async extract(entry: ZipEntry, target: string, mode = 0o644): Promise<void> {
    const expected = this.manifest.files.find((f) => f.path === entry.name);
    if (!expected) throw new ZipError(`${entry.name} is not listed in the manifest`);
    const hash = createHash("sha256");
    const stream = await this.zip.stream(entry);
    await writeStreamAtomic(
      target,
      (async function* () {
        for await (const chunk of stream) {
          hash.update(chunk);
          yield chunk;
        }
      })(),
      () => {
        if (hash.digest("hex") !== expected.sha256) {
          throw new ZipError(`${entry.name} does not match its checksum`);
        }
      },
      mode,
    );
  }

  close(): Promise<void> {
    return this.zip.close();
  }
}
