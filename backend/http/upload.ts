// Streaming multipart uploads. The body goes through multipart.ts straight into a hidden temp file in the
// target directory; nothing holds the file in memory, and its data is on the disk before the caller sees
// it. The caller checks the temp file and then commits it (atomic rename into place) or discards it. A
// cut connection, an over-size file or a failed check leaves nothing behind, and an existing file of the
// same name is untouched until the new one is complete.

import { rename, rm } from "node:fs/promises";
import type { Context } from "hono";
import { Invalid, PayloadTooLarge, UnsupportedMediaType } from "../lib/errors.ts";
import { tempPathFor } from "../lib/fsutil.ts";
import { formatBytes } from "../../shared/util.ts";
import { join } from "node:path";
import { boundaryOf, MultipartError, readMultipart } from "./multipart.ts";

/** Parts a form may have (fields and files): more is not an upload from the panel's forms. */
const MAX_PARTS = 30;
/**
 * The file's data is flushed to the disk before it is renamed into place (else a power cut soon after
 * could leave an empty or partial file under the final name). Flushing a whole upload at its end waits
 * for all of it; so while the body still comes, a flush of what is written so far starts each time this
 * much more has been written (one at a time), and the last one has little left to do.
 *
 * Those flushes go through a second handle on the temp file. Deno runs the calls on one file handle one
 * after another, so a flush on the handle being written held up every write behind it for as long as
 * the disk took: 1.58 s for 1 GiB, against 1.13 s this way (bench/saves-upload.mjs). A flush covers
 * the file's data whichever of its descriptors wrote it (fdatasync works on the file).
 */
export const FLUSH_STEP = 32 * 1024 * 1024;

export interface UploadedFile {
  /** The client's file name reduced to its last path part (still to be checked with safeName). */
  filename: string;
  tempPath: string;
  size: number;
  /** Renames the temp file to `target` (atomic; replaces an existing file). */
  commit(target: string): Promise<void>;
  discard(): Promise<void>;
}

export interface UploadOptions {
  /** The multipart field that carries the file, e.g. "savefile". */
  field: string;
  /** Where the temp file goes: the final directory, so the commit is a rename on one filesystem. */
  dir: string;
  maxBytes: number;
  /** Message when the field is missing, e.g. "Savefile is required". */
  missingMessage: string;
}

/** Receives exactly one file from a multipart/form-data request. */
export async function receiveUpload(c: Context, opts: UploadOptions): Promise<UploadedFile> {
  const type = c.req.header("content-type") ?? "";
  if (!type.toLowerCase().startsWith("multipart/form-data")) {
    throw new UnsupportedMediaType(
      `Expected a multipart/form-data upload with the file in the field "${opts.field}"`,
    );
  }
  const declared = Number(c.req.header("content-length"));
  if (Number.isFinite(declared) && declared > opts.maxBytes + 64 * 1024) {
    throw new PayloadTooLarge(`The file is too large (limit ${formatBytes(opts.maxBytes)})`);
  }
  const body = c.req.raw.body;
  if (!body) throw new Invalid(opts.missingMessage);
  const boundary = boundaryOf(type);
  if (!boundary) throw new UnsupportedMediaType("The multipart upload is malformed (no boundary)");

  const tempPath = tempPathFor(join(opts.dir, "upload"));
  let wrote = false;
  const cleanup = () => rm(tempPath, { force: true });
  let out: Deno.FsFile | null = null;
  let flusher: Deno.FsFile | null = null;
  let file: { filename: string; size: number } | null = null;
  let flushedTo = 0;
  let flushing: Promise<void> | null = null;
  let flushFailed: unknown = null;
  try {
    try {
      await readMultipart(body, boundary, (part, index) => {
        if (index >= MAX_PARTS) throw new MultipartError(`it has more than ${MAX_PARTS} parts`);
        // The first file in the field; other fields and files are read past.
        if (part.name !== opts.field || part.filename === null || file) return null;
        const current = { filename: part.filename.split(/[\\/]/).pop() ?? "", size: 0 };
        file = current;
        return async (bytes) => {
          current.size += bytes.length;
          if (current.size > opts.maxBytes) {
            throw new PayloadTooLarge(`The file is too large (limit ${formatBytes(opts.maxBytes)})`);
          }
          if (!out) {
            wrote = true;
            out = await Deno.open(tempPath, { write: true, createNew: true, mode: 0o644 });
            flusher = await Deno.open(tempPath, { write: true });
          }
          for (let off = 0; off < bytes.length;) off += await out.write(bytes.subarray(off));
          if (current.size - flushedTo >= FLUSH_STEP && !flushing) {
            flushedTo = current.size;
            flushing = flusher!.syncData().then(() => {
              flushing = null;
            }, (e) => {
              flushing = null;
              flushFailed = e;
            });
          }
        };
      });
      await flushing;
      if (flushFailed) throw flushFailed;
      await (out as Deno.FsFile | null)?.syncData();
    } catch (e) {
      if (e instanceof MultipartError) {
        throw new Invalid(`The upload is incomplete or malformed: ${e.message}`);
      }
      throw e;
    } finally {
      await flushing;
      (out as Deno.FsFile | null)?.close();
      (flusher as Deno.FsFile | null)?.close();
    }
    const got = file as { filename: string; size: number } | null;
    if (!got || got.size === 0) throw new Invalid(opts.missingMessage);
    return {
      filename: got.filename,
      tempPath,
      size: got.size,
      commit: (target) => rename(tempPath, target),
      discard: cleanup,
    };
  } catch (e) {
    if (wrote) await cleanup();
    throw e;
  }
}
