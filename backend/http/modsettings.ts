// Mod settings (mod-settings.dat of the live mods folder) and mod pinning. Changes are refused with 423
// while the game runs: it holds the startup settings in memory and writes the file back when it stops.

import type { AppContext } from "../boot/context.ts";
import { factorioPaths } from "../factorio/layout.ts";
import { gameInfo } from "../factorio/mods/moddir.ts";
import { MAX_MOD_SETTINGS_BYTES, ModSettingsService } from "../factorio/modsettings/modsettings.ts";
import { fileChunks } from "../lib/zip.ts";
import { ensureDir } from "../lib/fsutil.ts";
import { Invalid, NotFound } from "../lib/errors.ts";
import { contentDisposition } from "./download.ts";
import { receiveUpload } from "./upload.ts";
import { statSync } from "node:fs";
import { join } from "node:path";
import { type Route, route, routeCheckedByDomain } from "./routes.ts";

export function modSettingsRoutes(ctx: AppContext): Route[] {
  const paths = factorioPaths(ctx.config);
  const game = gameInfo(paths);
  // The one live folder of the context: its lock, its info.json cache and its pins.
  const live = ctx.mods.live;
  // The file an upload replaced is kept in the data dir (one copy), not in the game's mods folder.
  const settings = new ModSettingsService(
    live,
    () => game.version(),
    join(ctx.config.dataDir, "mod-settings.previous.dat"),
  );

  return [
    route("GET /api/mods/settings", () => settings.read()),
    route("GET /api/mods/settings/definitions", async () => await settings.definitions()),
    routeCheckedByDomain("POST /api/mods/settings/update", async (_c, { body }) => {
      const state = await settings.update(body);
      ctx.log.info("Mod settings changed");
      return state;
    }),
    route("POST /api/mods/settings/upload", async (c) => {
      ensureDir(live.dir);
      const file = await receiveUpload(c, {
        field: "file",
        dir: live.dir,
        maxBytes: MAX_MOD_SETTINGS_BYTES,
        missingMessage: "Choose a mod-settings.dat file to upload.",
      });
      const state = await settings.replaceWith(file.tempPath);
      ctx.log.info("mod-settings.dat uploaded", { bytes: file.size });
      return state;
    }),
    route("POST /api/mods/settings/restore-previous", async () => {
      const state = await settings.restorePrevious();
      ctx.log.info("The previous mod-settings.dat restored");
      return state;
    }),
    route("GET /api/mods/settings/download", () => {
      let size: number;
      try {
        size = statSync(settings.path).size;
      } catch {
        throw new NotFound(
          "There is no mod-settings.dat yet: the game writes one when it first starts with mods.",
        );
      }
      const chunks = fileChunks(settings.path)[Symbol.asyncIterator]();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await chunks.next();
          if (done) controller.close();
          else controller.enqueue(value);
        },
        async cancel() {
          await chunks.return?.();
        },
      });
      return new Response(body, {
        headers: {
          "Content-Type": "application/octet-stream",
          "Content-Length": String(size),
          "Content-Disposition": contentDisposition("mod-settings.dat"),
        },
      });
    }),
    route("POST /api/mods/pin", async (_c, { body }) => {
      if (body.name.trim() === "") throw new Invalid("name is required");
      const mod = await live.pin(body.name, body.pinned);
      ctx.log.info(body.pinned ? "Mod pinned" : "Mod unpinned", { name: mod.name, version: mod.version });
      return mod;
    }),
  ];
}
