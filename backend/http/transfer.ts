// The first-run import (backend/transfer/firstrun.ts): admin only, and only while the panel is fresh.
// The uploaded archive streams into a hidden temp file in the data dir and is removed after the import.

import type { AppContext } from "../boot/context.ts";
import { receiveUpload } from "./upload.ts";
import { panelIsFresh, requireFresh } from "../transfer/fresh.ts";
import { importArchiveFile, importOldPanel, previewOldPanel } from "../transfer/firstrun.ts";
import { TRANSFER_MSG } from "../../shared/transfer.ts";
import { type Route, route } from "./routes.ts";

export function transferRoutes(ctx: AppContext): Route[] {
  return [
    route("GET /api/import/status", () => ({ available: panelIsFresh(ctx) })),
    route("POST /api/import/old-panel/preview", async (_c, { body }) => previewOldPanel(ctx, body.dir)),
    route("POST /api/import/old-panel", async (c, { body }) => {
      const dir = body.dir;
      return await ctx.gameOps.run("import", () => importOldPanel(ctx, dir, c.get("session")?.id));
    }),
    route("POST /api/import/archive", async (c) => {
      requireFresh(ctx); // before the upload is read
      const file = await receiveUpload(c, {
        field: "archive",
        dir: ctx.config.dataDir,
        maxBytes: Math.max(ctx.config.maxUploadMb, 4096) * 1024 * 1024,
        missingMessage: TRANSFER_MSG.archiveRequired,
      });
      try {
        return await ctx.gameOps.run(
          "import",
          () => importArchiveFile(ctx, file.tempPath, c.get("session")?.id),
        );
      } finally {
        await file.discard();
      }
    }),
  ];
}
