// The first-run import (backend/transfer/firstrun.ts): admin only, and only while the panel is fresh; and
// the import of one server's archive as a new server, on any panel. The uploaded archive streams into a
// hidden temp file in the data dir and is removed after the import.

import type { AppContext } from "../boot/context.ts";
import { receiveUpload } from "./upload.ts";
import { panelIsFresh, requireFresh } from "../transfer/fresh.ts";
import type { OpenedArchive } from "../transfer/archive.ts";
import { importServerArchive } from "../transfer/serverimport.ts";
import { addServerNow, buildNow, oneAddAtATime, recordOf } from "./servers.ts";
import type { NewServer } from "../../shared/contract/servers.ts";
import { importArchiveFile, importOldPanel, previewOldPanel } from "../transfer/firstrun.ts";
import { TRANSFER_MSG } from "../../shared/transfer.ts";
import { type Ctx, type Route, route } from "./routes.ts";

export function transferRoutes(ctx: AppContext): Route[] {
  /** Receives the upload into a temp file in the data dir, runs `run` on it, then removes it. */
  const withUpload = async <T>(c: Ctx, run: (file: string, session?: string) => Promise<T>): Promise<T> => {
    const file = await receiveUpload(c, {
      field: "archive",
      dir: ctx.config.dataDir,
      maxBytes: Math.max(ctx.config.maxUploadMb, 4096) * 1024 * 1024,
      missingMessage: TRANSFER_MSG.archiveRequired,
    });
    try {
      return await run(file.tempPath, c.get("session")?.id);
    } finally {
      await file.discard();
    }
  };
  const add = (body: NewServer) => addServerNow(ctx, body);
  const addServer = (a: OpenedArchive) =>
    oneAddAtATime(
      ctx,
      () => importServerArchive(ctx, a, ctx.servers.all().map((s) => recordOf(s)), buildNow),
    );
  return [
    route("GET /api/import/status", () => ({ available: panelIsFresh(ctx) })),
    route("POST /api/import/old-panel/preview", async (_c, { body }) => previewOldPanel(ctx, body.dir, add)),
    route("POST /api/import/old-panel", async (c, { body }) => {
      const dir = body.dir;
      return await ctx.gameOps.run("import", () => importOldPanel(ctx, dir, add, c.get("session")?.id));
    }),
    route("POST /api/import/archive", async (c) => {
      requireFresh(ctx); // before the upload is read
      return await withUpload(c, (file, session) => importArchiveFile(ctx, file, session, addServer));
    }),
    // One server's archive (--export-server) on any panel: it becomes a new server and replaces nothing.
    route(
      "POST /api/servers/import",
      (c) => withUpload(c, (file, session) => importArchiveFile(ctx, file, session, addServer, "server")),
    ),
  ];
}
