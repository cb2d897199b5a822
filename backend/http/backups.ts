// Backups (list, make, restore, lock, download, delete, settings) and schedules (list, create, update,
// delete, run now, preview). Work that touches the game runs through the game operations queue.

import { stat } from "node:fs/promises";
import type { AppContext } from "../context.ts";
import { type Ctx, jsonText, type Route, sessionOf } from "./routes.ts";
import { readObject } from "./body.ts";
import { sendFile } from "./saves.ts";
import { checkIncludes } from "../factorio/backups/service.ts";
import { parseRestoreRequest, restoreBackup } from "../factorio/backups/restore.ts";
import { Forbidden, NotFound } from "../errors.ts";
import { BACKUP_MSG, holdsSecrets } from "../../shared/backups.ts";
import { roleAtLeast } from "../../shared/api.ts";

function scheduleId(c: Ctx): number {
  const raw = c.req.param("id") ?? "";
  if (!/^\d{1,12}$/.test(raw)) throw new NotFound("No such schedule.");
  return Number(raw);
}

export function backupRoutes(ctx: AppContext): Route[] {
  const { backups, gameOps, schedules } = ctx;
  return [
    {
      method: "GET",
      path: "/api/backups",
      handler: () => jsonText(backups.listJson()),
    },
    {
      method: "POST",
      path: "/api/backups",
      handler: async (c) => {
        const body = await readObject(c);
        // The checkboxes are remembered: the next "Back up now" offers the same.
        let include = backups.settings().include;
        if (body.include !== undefined) {
          include = checkIncludes(body.include);
          backups.updateSettings({ include });
        }
        const save = body.save === undefined ? undefined : String(body.save);
        const made = await gameOps.run("backup", () => backups.create({ reason: "manual", include, save }));
        return c.json(made, 201);
      },
    },
    { method: "GET", path: "/api/backups/settings", handler: (c) => c.json(backups.settings()) },
    {
      method: "POST",
      path: "/api/backups/settings",
      handler: async (c) => c.json(backups.updateSettings(await readObject(c))),
    },
    {
      method: "POST",
      path: "/api/backups/:id/restore",
      handler: async (c) => {
        const req = parseRestoreRequest(await readObject(c));
        const { id } = backups.find(c.req.param("id"));
        return c.json(await gameOps.run("restore", () => restoreBackup(backups, ctx.game, id, req)));
      },
    },
    {
      method: "POST",
      path: "/api/backups/:id/lock",
      handler: async (c) => c.json(backups.setLocked(c.req.param("id"), (await readObject(c)).locked)),
    },
    {
      method: "GET",
      path: "/api/backups/:id/download",
      handler: async (c) => {
        const b = backups.find(c.req.param("id"));
        // server-settings.json holds the factorio.com login and the game password in clear: admins only
        // (the role of the request, so an admin's operator token is refused too).
        if (holdsSecrets(b) && !roleAtLeast(sessionOf(c).role, "admin")) throw new Forbidden(BACKUP_MSG.downloadNeedsAdmin);
        const s = await stat(b.path).catch(() => null);
        if (!s) throw new NotFound(`The file of backup ${b.id} is gone.`);
        return sendFile(c, { name: b.file, path: b.path, size: s.size, mtime: s.mtime });
      },
    },
    {
      method: "POST",
      path: "/api/backups/:id/delete",
      handler: async (c) => {
        await backups.remove(c.req.param("id"));
        return c.json(null);
      },
    },

    // ---- Schedules ----
    { method: "GET", path: "/api/schedules", handler: async (c) => c.json(await schedules.list()) },
    { method: "GET", path: "/api/schedules/preview", handler: async (c) => c.json(await schedules.preview(c.req.query("cron"))) },
    // The activity log names the schedule (c.set("activity")): "Ran schedule 'Nightly restart' now".
    {
      method: "POST",
      path: "/api/schedules",
      handler: async (c) => {
        const made = await schedules.create(await readObject(c));
        c.set("activity", { detail: made.name });
        return c.json(made, 201);
      },
    },
    { method: "GET", path: "/api/schedules/:id", handler: async (c) => c.json(await schedules.get(scheduleId(c))) },
    {
      method: "POST",
      path: "/api/schedules/:id/update",
      handler: async (c) => {
        const changed = await schedules.update(scheduleId(c), await readObject(c));
        c.set("activity", { detail: changed.name });
        return c.json(changed);
      },
    },
    {
      method: "POST",
      path: "/api/schedules/:id/run",
      handler: async (c) => {
        c.set("activity", { detail: (await schedules.get(scheduleId(c))).name });
        return c.json(schedules.runNow(scheduleId(c)), 202);
      },
    },
    {
      method: "POST",
      path: "/api/schedules/:id/delete",
      handler: async (c) => {
        c.set("activity", { detail: (await schedules.get(scheduleId(c))).name });
        schedules.delete(scheduleId(c));
        return c.json(null);
      },
    },
  ];
}
