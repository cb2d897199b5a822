// Backups: list, make, restore, lock, download, delete, settings. Work that touches the game runs through
// the game operations queue.

import { stat } from "node:fs/promises";
import type { AppContext } from "../boot/context.ts";
import { sendFile } from "./saves.ts";
import { checkIncludes } from "../factorio/backups/service.ts";
import { parseRestoreRequest, restoreBackup } from "../factorio/backups/restore.ts";
import { Forbidden, NotFound } from "../lib/errors.ts";
import { BACKUP_MSG, holdsSecrets } from "../../shared/backups.ts";
import { roleAtLeast } from "../../shared/api.ts";
import { jsonText, reply, type Route, route, routeCheckedByDomain, sessionOf } from "./routes.ts";
import { objectBody } from "./body.ts";

export function backupRoutes(ctx: AppContext): Route[] {
  const { backups, gameOps } = ctx;
  return [
    route("GET /api/backups", () => jsonText(backups.listJson())),
    route("POST /api/backups", async (c, { body }) => {
      // The checkboxes are remembered: the next "Back up now" offers the same.
      let include = backups.settings().include;
      if (body.include !== undefined) {
        include = checkIncludes(body.include);
        backups.updateSettings({ include });
      }
      // Not optional: a backup that cannot be made throws rather than answering null.
      const made = await gameOps.run(
        "backup",
        () => backups.create({ reason: "manual", include, save: body.save }),
      );
      return reply(c, made!, 201);
    }),
    route("GET /api/backups/settings", () => backups.settings()),
    routeCheckedByDomain(
      "POST /api/backups/settings",
      (_c, { body }) => backups.updateSettings(objectBody(body)),
    ),
    route("POST /api/backups/:id/restore", async (c, { body }) => {
      const req = parseRestoreRequest(body);
      const { id } = backups.find(c.req.param("id"));
      return await gameOps.run("restore", () => restoreBackup(backups, ctx.game, id, req));
    }),
    route(
      "POST /api/backups/:id/lock",
      async (c, { body }) => backups.setLocked(c.req.param("id"), body.locked),
    ),
    route("GET /api/backups/:id/download", async (c) => {
      const b = backups.find(c.req.param("id"));
      // server-settings.json holds the factorio.com login and the game password in clear: admins only
      // (the role of the request, so an admin's operator token is refused too).
      if (holdsSecrets(b) && !roleAtLeast(sessionOf(c).role, "admin")) {
        throw new Forbidden(BACKUP_MSG.downloadNeedsAdmin);
      }
      const s = await stat(b.path).catch(() => null);
      if (!s) throw new NotFound(`The file of backup ${b.id} is gone.`);
      return sendFile(c, { name: b.file, path: b.path, size: s.size, mtime: s.mtime });
    }),
    route("POST /api/backups/:id/delete", async (c) => {
      await backups.remove(c.req.param("id"));
      return null;
    }),
  ];
}
