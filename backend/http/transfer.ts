// The first-run import (backend/transfer/firstrun.ts): admin only, and only while the panel is fresh.
// The uploaded archive streams into a hidden temp file in the data dir and is removed after the import.

import type { AppContext } from "../context.ts";
import type { Route } from "./routes.ts";
import { readObject } from "./body.ts";
import { receiveUpload } from "./upload.ts";
import { panelIsFresh, requireFresh } from "../transfer/fresh.ts";
import { importArchiveFile, importOldPanel, previewOldPanel } from "../transfer/firstrun.ts";
import { TRANSFER_MSG, type ImportStatus } from "../../shared/transfer.ts";


export function transferRoutes(ctx: AppContext): Route[] {
  return [
    {
      method: "GET",
      path: "/api/import/status",
      role: "admin",
      handler: (c) => c.json({ available: panelIsFresh(ctx) } satisfies ImportStatus),
    },
    {
      method: "POST",
      path: "/api/import/old-panel/preview",
      role: "admin",
      interactive: true,
      handler: async (c) => c.json(previewOldPanel(ctx, (await readObject(c)).dir)),
    },
    {
      method: "POST",
      path: "/api/import/old-panel",
      role: "admin",
      interactive: true,
      handler: async (c) => {
        const dir = (await readObject(c)).dir;
        return c.json(await ctx.gameOps.run("import", () => importOldPanel(ctx, dir, c.get("session")?.id)));
      },
    },
    {
      method: "POST",
      path: "/api/import/archive",
      role: "admin",
      interactive: true,
      handler: async (c) => {
        requireFresh(ctx); // before the upload is read
        const file = await receiveUpload(c, {
          field: "archive",
          dir: ctx.config.dataDir,
          maxBytes: Math.max(ctx.config.maxUploadMb, 4096) * 1024 * 1024,
          missingMessage: TRANSFER_MSG.archiveRequired,
        });
        try {
          return c.json(await ctx.gameOps.run("import", () => importArchiveFile(ctx, file.tempPath, c.get("session")?.id)));
        } finally {
          await file.discard();
        }
      },
    },
  ];
}
