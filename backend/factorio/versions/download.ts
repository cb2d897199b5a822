// Downloads a file to disk as it arrives, computing its sha256 on the way (no second read), reporting
// bytes, speed and time left, and checking first that the disk has room for it. The body never sits in
// memory. Errors say what happened in words a person understands.

import { createHash } from "node:crypto";
import { rm } from "node:fs/promises";
import { diskSpace } from "../../lib/fsutil.ts";
import { dirname } from "node:path";

export class DownloadError extends Error {}

const CHUNK = 256 * 1024;

export interface Progress {
  received: number;
  total: number | null;
  bytesPerSecond: number;
  etaSeconds: number | null;
}

export interface DownloadOptions {
  signal?: AbortSignal;
  onProgress?: (p: Progress) => void;
  /** Bytes the disk must have free beyond the download itself (room to unpack it). */
  spaceNeeded: (downloadBytes: number | null) => number;
  /** Progress is reported at most this often (the last report always goes out). */
  progressEveryMs?: number;
  /** A body that sends nothing for this long is given up (a stalled connection never ends by itself). */
  stallMs?: number;
}

export const STALL_MS = 60_000;

function close(f: Deno.FsFile): void {
  try {
    f.close();
  } catch {
    // closed already
  }
}

export async function freeBytes(path: string): Promise<number> {
  return (await diskSpace(path)).free;
}

export function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MiB`;
}

/** Downloads `url` into `file` (created new) and answers its size and sha256. Removes the file on failure. */
export async function download(
  url: string,
  file: string,
  opts: DownloadOptions,
): Promise<{ size: number; sha256: string }> {
  const stallMs = opts.stallMs ?? STALL_MS;
  const stall = new AbortController();
  let stallTimer: ReturnType<typeof setTimeout> | undefined;
  const alive = () => {
    clearTimeout(stallTimer);
    stallTimer = setTimeout(() => stall.abort(), stallMs);
  };
  const signal = opts.signal ? AbortSignal.any([opts.signal, stall.signal]) : stall.signal;
  const stalled = () => new DownloadError(`factorio.com sent nothing for ${Math.round(stallMs / 1000)} s`);
  alive();
  try {
    return await receive(url, file, opts, signal, alive, stalled);
  } catch (e) {
    if (stall.signal.aborted && !opts.signal?.aborted) throw stalled();
    throw e;
  } finally {
    clearTimeout(stallTimer);
  }
}

async function receive(
  url: string,
  file: string,
  opts: DownloadOptions,
  signal: AbortSignal,
  alive: () => void,
  stalled: () => DownloadError,
): Promise<{ size: number; sha256: string }> {
  let res: Response;
  try {
    // No credentials, no cookies: the headless build is public.
    res = await fetch(url, { signal, redirect: "follow", credentials: "omit" });
  } catch (e) {
    opts.signal?.throwIfAborted();
    if (signal.aborted) throw stalled();
    throw new DownloadError(`the download could not start: ${(e as Error).message}`);
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new DownloadError(
      res.status === 404 ? "factorio.com has no such download (404)" : `factorio.com answered ${res.status}`,
    );
  }
  const lengthHeader = res.headers.get("content-length");
  const total = lengthHeader !== null && /^\d+$/.test(lengthHeader) ? Number(lengthHeader) : null;
  const needed = (total ?? 0) + opts.spaceNeeded(total);
  const free = await freeBytes(dirname(file));
  if (free < needed) {
    await res.body?.cancel();
    throw new DownloadError(`not enough free disk space: it needs ${mib(needed)}, ${mib(free)} are free`);
  }

  const hash = createHash("sha256");
  const handle = await Deno.open(file, { write: true, createNew: true, mode: 0o600 });
  const started = performance.now();
  let received = 0;
  let lastReport = 0;
  const every = opts.progressEveryMs ?? 250;
  const report = (force: boolean) => {
    const now = performance.now();
    if (!force && now - lastReport < every) return;
    lastReport = now;
    const seconds = (now - started) / 1000;
    const bytesPerSecond = seconds > 0 ? Math.round(received / seconds) : 0;
    const etaSeconds = total !== null && bytesPerSecond > 0
      ? Math.max(0, Math.round((total - received) / bytesPerSecond))
      : null;
    opts.onProgress?.({ received, total, bytesPerSecond, etaSeconds });
  };
  try {
    try {
      // One buffer for the whole body, read into again each time (BYOB): memory stays flat. The network
      // hands over small pieces; the buffer is filled before it is hashed and written, in few large steps.
      const reader = res.body!.getReader({ mode: "byob" });
      let memory = new ArrayBuffer(CHUNK);
      let ended = false;
      while (!ended) {
        let filled = 0;
        while (filled < CHUNK) {
          const { value, done } = await reader.read(new Uint8Array(memory, filled, CHUNK - filled));
          if (value) memory = value.buffer as ArrayBuffer;
          if (done || !value) {
            ended = true;
            break;
          }
          filled += value.length;
          received += value.length;
          alive();
          if (total !== null && received > total) {
            throw new DownloadError("the server sent more than it announced");
          }
          report(false);
        }
        if (filled === 0) break;
        const chunk = new Uint8Array(memory, 0, filled);
        hash.update(chunk);
        let off = 0;
        while (off < chunk.length) off += await handle.write(chunk.subarray(off));
      }
    } catch (e) {
      opts.signal?.throwIfAborted();
      if (e instanceof DownloadError) throw e;
      throw new DownloadError(
        `the download broke off after ${mib(received)}${total ? ` of ${mib(total)}` : ""}: ${
          (e as Error).message
        }`,
      );
    }
    if (total !== null && received !== total) {
      throw new DownloadError(`the download was cut off after ${mib(received)} of ${mib(total)}`);
    }
    await handle.sync();
    report(true);
    return { size: received, sha256: hash.digest("hex") };
  } catch (e) {
    close(handle);
    await rm(file, { force: true });
    throw e;
  } finally {
    close(handle);
  }
}
