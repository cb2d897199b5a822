// Saves: list, create (the game's --create), upload, download, delete, and the header (mods) of a save.

import type { AppContext } from "../boot/context.ts";
import { receiveUpload } from "./upload.ts";
import { contentDisposition } from "./download.ts";
import { existsSync } from "node:fs";
import { inside } from "../factorio/paths.ts";
import { MSG } from "../../shared/messages.ts";
import { NotFound } from "../lib/errors.ts";
import type { SaveFile } from "../factorio/saves/service.ts";
import { type Ctx, jsonText, type Route, route } from "./routes.ts";

export function saveRoutes(ctx: AppContext): Route[] {
  const { saves } = ctx;
  return [
    // The cached JSON text as it is: an unchanged folder is neither read nor serialized again.
    route("GET /api/saves/list", async () => jsonText(await saves.listJson())),
    route("GET /api/saves/create/:name", async (c) => await saves.create(c.req.param("name"))),
    route("POST /api/saves/upload", async (c) => {
      saves.ensureDir();
      const file = await receiveUpload(c, {
        field: "savefile",
        dir: saves.dir,
        maxBytes: ctx.config.maxUploadMb * 1024 * 1024,
        missingMessage: MSG.savefileRequired,
      });
      try {
        const name = saves.uploadName(file.filename);
        await saves.checkUploadedSave(file.tempPath, name);
        // The save about to be replaced is backed up first.
        if (existsSync(inside(saves.dir, name))) await ctx.backups.before("before-upload", [], name);
        await file.commit(inside(saves.dir, name));
        saves.changed();
        ctx.log.info("Save uploaded", { save: name, bytes: file.size });
      } catch (e) {
        await file.discard();
        throw e;
      }
      return "Uploading files successful";
    }),
    route("GET /api/saves/dl/:name", async (c) => sendFile(c, await saves.find(c.req.param("name")))),
    route("GET /api/saves/rm/:name", async (c) => await saves.remove(c.req.param("name"))),
    // A read: it changes nothing, so it is allowed while the game runs (the old API refused it with 423).
    // Installing the mods it lists is a separate, gated request.
    route("POST /api/saves/mods", async (_c, { body }) => {
      return await saves.header(body.saveFile);
    }),
  ];
}

/** One byte range of a Range header ("bytes=a-b", "bytes=a-", "bytes=-n"); null for none or several. */
export function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | "unsatisfiable" | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? "");
  if (!m || (m[1] === "" && m[2] === "")) return null;
  let start: number;
  let end: number;
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0) return "unsatisfiable";
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== "" && Number(m[2]) < start) return null;
  }
  if (start >= size) return "unsatisfiable";
  return { start, end };
}

/** Streams a file from `start` for `length` bytes; the file is closed when done or when the client leaves. */
function fileStream(path: string, start: number, length: number): ReadableStream<Uint8Array> {
  let file: Deno.FsFile | undefined;
  let left = length;
  const close = () => {
    try {
      file?.close();
    } catch {
      // already closed
    }
    file = undefined;
  };
  return new ReadableStream<Uint8Array>({
    async start() {
      file = await Deno.open(path, { read: true });
      if (start > 0) await file.seek(start, Deno.SeekMode.Start);
    },
    async pull(controller) {
      if (left <= 0 || !file) {
        close();
        return controller.close();
      }
      const buf = new Uint8Array(Math.min(256 * 1024, left));
      const n = await file.read(buf);
      if (n === null || n === 0) {
        close();
        return controller.close();
      }
      left -= n;
      controller.enqueue(n === buf.length ? buf : buf.subarray(0, n));
    },
    cancel: close,
  }, { highWaterMark: 0 });
}

/** Streams a file (a save, a backup) with ranges. */
export async function sendFile(c: Ctx, save: SaveFile): Promise<Response> {
  const headers: Record<string, string> = {
    "Content-Type": "application/zip",
    "Content-Disposition": contentDisposition(save.name),
    "Last-Modified": save.mtime.toUTCString(),
    "Accept-Ranges": "bytes",
    "Cache-Control": "no-store",
  };
  const range = parseRange(c.req.header("range"), save.size);
  if (range === "unsatisfiable") {
    return new Response(null, {
      status: 416,
      headers: { ...headers, "Content-Range": `bytes */${save.size}` },
    });
  }
  if (range) {
    const length = range.end - range.start + 1;
    return new Response(fileStream(save.path, range.start, length), {
      status: 206,
      headers: {
        ...headers,
        "Content-Range": `bytes ${range.start}-${range.end}/${save.size}`,
        "Content-Length": String(length),
      },
    });
  }
  // The file's own stream: Deno.serve sends it from Rust, without a JavaScript buffer per chunk (those
  // piled up as garbage to 70 MiB during a 1 GiB download). The file closes when the stream ends or the
  // client leaves.
  const file = await Deno.open(save.path, { read: true }).catch((e) => {
    if (e instanceof Deno.errors.NotFound) throw new NotFound(`${save.name} was removed a moment ago`);
    throw e;
  });
  return new Response(file.readable, {
    status: 200,
    headers: { ...headers, "Content-Length": String(save.size) },
  });
}
