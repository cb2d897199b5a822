// Streaming multipart uploads. The body goes through busboy straight into a hidden temp file in the target
// directory; nothing holds the file in memory. The caller checks the temp file and then commits it
// (atomic rename into place) or discards it. A cut connection, an over-size file or a failed check leaves
// nothing behind, and an existing file of the same name is untouched until the new one is complete.

import type Busboy from "busboy";
import { Readable } from "node:stream";
import { createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import type { Context } from "hono";
import { Invalid, PayloadTooLarge, UnsupportedMediaType } from "../errors.ts";
import { tempPathFor } from "../fsutil.ts";
import { formatBytes } from "../../shared/util.ts";
import { join } from "node:path";

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
    throw new UnsupportedMediaType(`Expected a multipart/form-data upload with the file in the field "${opts.field}"`);
  }
  const declared = Number(c.req.header("content-length"));
  if (Number.isFinite(declared) && declared > opts.maxBytes + 64 * 1024) {
    throw new PayloadTooLarge(`The file is too large (limit ${formatBytes(opts.maxBytes)})`);
  }
  const body = c.req.raw.body;
  if (!body) throw new Invalid(opts.missingMessage);

  // Loaded on the first upload, not at start (start-up time and memory, bench/startup.mjs).
  const { default: createBusboy } = await import("busboy");
  let busboy: Busboy.Busboy;
  try {
    busboy = createBusboy({
      headers: { "content-type": type },
      // Browsers send the file name as raw UTF-8; busboy would read it as latin-1 ("été" -> "Ã©tÃ©").
      defParamCharset: "utf8",
      limits: { files: 1, fileSize: opts.maxBytes, fields: 20, fieldSize: 64 * 1024, parts: 30 },
    });
  } catch {
    throw new UnsupportedMediaType("The multipart upload is malformed (no boundary)");
  }

  const tempPath = tempPathFor(join(opts.dir, "upload"));
  let wrote = false;
  const cleanup = () => rm(tempPath, { force: true });

  // Settles once busboy has parsed the whole form (its "close") and the file is flushed to disk. A body
  // that ends early makes busboy fail with "Unexpected end of form" instead, so a cut upload never
  // resolves as a short file.
  const result = new Promise<{ filename: string; size: number }>((resolve, reject) => {
    let file: Promise<{ filename: string; size: number }> | undefined;
    let settled = false;
    const fail = (e: unknown) => {
      if (settled) return;
      settled = true;
      reject(e);
    };
    busboy.on("file", (name, stream, info) => {
      if (name !== opts.field || file) {
        stream.resume();
        return;
      }
      wrote = true;
      const filename = (info.filename ?? "").split(/[\\/]/).pop() ?? "";
      const out = createWriteStream(tempPath, { flags: "wx", mode: 0o644 });
      let size = 0;
      stream.on("data", (chunk: Uint8Array) => (size += chunk.length));
      stream.on("limit", () => {
        fail(new PayloadTooLarge(`The file is too large (limit ${formatBytes(opts.maxBytes)})`));
        stream.unpipe(out);
        out.destroy();
        stream.resume();
      });
      file = new Promise((done, bad) => {
        stream.on("error", bad);
        out.on("error", bad);
        out.on("finish", () => done({ filename, size }));
      });
      file.catch(fail);
      stream.pipe(out);
    });
    busboy.on("error", (e: unknown) => fail(new Invalid(`The upload is incomplete or malformed: ${(e as Error).message}`)));
    busboy.on("close", () => {
      if (!file) return fail(new Invalid(opts.missingMessage));
      file.then((r) => {
        if (settled) return;
        settled = true;
        resolve(r);
      }, fail);
    });
  });

  const input = Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>);
  input.on("error", (e) => busboy.destroy(e));
  input.pipe(busboy);

  try {
    const { filename, size } = await result;
    if (size === 0) throw new Invalid(opts.missingMessage);
    return {
      filename,
      tempPath,
      size,
      commit: (target) => rename(tempPath, target),
      discard: cleanup,
    };
  } catch (e) {
    input.unpipe(busboy);
    input.destroy();
    if (wrote) await cleanup();
    throw e;
  }
}
