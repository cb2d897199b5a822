// File helpers every area uses: atomic writes (temp file in the same directory, fsync, rename) and
// owner-only secret files. A crash or a full disk mid-write leaves the old file whole.

import { chmodSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { open, rename, rm, statfs } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { randomBytes } from "node:crypto";

/** A temp path beside `target` (same filesystem, so rename is atomic). Hidden, so listings skip it. */
export function tempPathFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
}

/** Writes `data` to `target` atomically. `mode` applies to the new file (e.g. 0o600 for secrets). */
export function writeFileAtomic(target: string, data: string | Uint8Array, mode = 0o644): void {
  const tmp = tempPathFor(target);
  let file: Deno.FsFile | undefined;
  try {
    file = Deno.openSync(tmp, { write: true, createNew: true, mode });
    const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
    let off = 0;
    while (off < bytes.length) off += file.writeSync(bytes.subarray(off));
    file.syncSync();
    file.close();
    file = undefined;
    chmodSync(tmp, mode); // the open's mode is masked by the umask
    renameSync(tmp, target);
  } catch (e) {
    file?.close();
    rmSync(tmp, { force: true });
    throw e;
  }
}

export function writeJsonAtomic(target: string, value: unknown, mode = 0o644, indent = 2): void {
  writeFileAtomic(target, JSON.stringify(value, null, indent) + "\n", mode);
}

/** A secret (password, token, private key): owner-only, written atomically. */
export function writeSecretFile(target: string, data: string): void {
  writeFileAtomic(target, data, 0o600);
}

export function ensureDir(path: string, mode = 0o755): void {
  mkdirSync(path, { recursive: true, mode });
}

/**
 * Streams `source` (a backup being written, a file restored from one) into a temp file beside `target`,
 * then lets `check` inspect the complete temp file before it is renamed into place. On any failure (stream error, check throws) nothing is left behind
 * and an existing `target` is untouched.
 */
export async function writeStreamAtomic(
  target: string,
  source: AsyncIterable<Uint8Array>,
  check?: (tempPath: string, size: number) => Promise<void> | void,
  mode = 0o644,
): Promise<number> {
  const tmp = tempPathFor(target);
  const handle = await open(tmp, "wx", mode);
  let size = 0;
  try {
    for await (const chunk of source) {
      let off = 0;
      while (off < chunk.length) {
        const { bytesWritten } = await handle.write(chunk, off, chunk.length - off);
        off += bytesWritten;
      }
      size += chunk.length;
    }
    await handle.sync();
    await handle.close();
    if (check) await check(tmp, size);
    await rename(tmp, target);
    return size;
  } catch (e) {
    await handle.close().catch(() => {});
    await rm(tmp, { force: true });
    throw e;
  }
}

/** Space on the volume holding `path` (which must exist): the bytes the panel may still use, and the volume's size. */
export async function diskSpace(path: string): Promise<{ free: number; size: number }> {
  const s = await statfs(path);
  return { free: s.bavail * s.bsize, size: s.blocks * s.bsize };
}
