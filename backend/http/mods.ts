// Mods, the mod portal and mod packs (spec section 7 "Mods" and "Mod packs"). Every change to the
// installed mods is flagged requiresStopped (423 while the game is not stopped); pack changes touch only
// the pack's own folder, except loading one.

import type { AppContext } from "../context.ts";
import type { FolderFile, ModDir } from "../factorio/mods.ts";
import { fileChunks, zipStream } from "../factorio/zip.ts";
import { ensureDir } from "../fsutil.ts";
import { Invalid, UnsupportedMediaType } from "../errors.ts";
import { MSG, PANEL_MSG } from "../../shared/messages.ts";
import { validateLogin } from "../../shared/validation.ts";
import { readJson, readObject } from "./body.ts";
import { type Ctx, jsonText, type Route } from "./routes.ts";
import { receiveUpload } from "./upload.ts";
import { contentDisposition } from "./download.ts";

/** A body field by name, matched case-insensitively (the old API accepted "filename" for "fileName"). */
function field(body: Record<string, unknown>, name: string): unknown {
  if (name in body) return body[name];
  const key = Object.keys(body).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : body[key];
}

function requiredName(body: Record<string, unknown>): string {
  const name = field(body, "name");
  if (typeof name !== "string" || name.trim() === "") throw new Invalid("name is required");
  return name;
}

/** A streamed zip download. The headers go out first, before any byte of the archive. */
export function zipDownload(files: FolderFile[], filename: string): Response {
  const stream = zipStream(
    files.map((f) => ({ name: f.name, size: f.size, mtime: f.mtime, data: () => fileChunks(f.path) })),
  );
  return new Response(stream, {
    headers: { "Content-Type": "application/zip", "Content-Disposition": contentDisposition(filename) },
  });
}

export function modRoutes(ctx: AppContext): Route[] {
  const { config, portal, mods } = ctx;
  const live = mods.live;
  ctx.onClose(() => mods.close());
  const pack = (c: Ctx): ModDir => mods.packs.pack(c.req.param("pack"));

  // What the installed mods' routes and the same routes of a pack share (the old API has both).
  const update = async (c: Ctx, dir: ModDir) => {
    const body = await readObject(c);
    return c.json(await mods.update(dir, field(body, "modName"), field(body, "downloadUrl")));
  };

  const install = async (c: Ctx, dir: ModDir) => {
    const body = await readObject(c);
    ensureDir(dir.dir);
    return c.json(await mods.install(dir, field(body, "modName"), field(body, "downloadUrl")));
  };

  /** Delete all's options; the old API's call had no body, which means: keep mod-settings.dat. */
  const deleteAllOptions = async (c: Ctx) => ({ modSettings: field(await readObject(c), "delete_mod_settings") === true });

  /** A mod zip uploaded as the multipart field mod_file; answers the folder's mods. */
  const upload = async (c: Ctx, dir: ModDir) => {
    ensureDir(dir.dir);
    const file = await receiveUpload(c, {
      field: "mod_file",
      dir: dir.dir,
      maxBytes: config.maxUploadMb * 1024 * 1024,
      missingMessage: PANEL_MSG.modFileRequired,
    });
    if (!file.filename.toLowerCase().endsWith(".zip")) {
      await file.discard();
      throw new UnsupportedMediaType(PANEL_MSG.modFileNotZip);
    }
    const info = await dir.addZip(file.tempPath);
    ctx.log.info("Mod uploaded", { name: info.name, version: info.version, dir: dir.dir });
    return c.json({ mods: await dir.list() });
  };

  /**
   * A save's mods into `dir`. Some that could not be installed make it a failure (424), answered as a
   * JSON string naming each and why: the old panel answered failures with a text, and its UI puts the
   * error body into its message box as it is (an object there blanked the whole page). The result itself
   * (installed, already there, switched, failed, and the message) comes with ?detail=1, which the
   * panel's own page asks for to show each mod's outcome.
   */
  const installMultiple = async (c: Ctx, dir: ModDir) => {
    const body = await readJson(c);
    ensureDir(dir.dir);
    const result = await mods.installMultiple(dir, body);
    if (result.failed.length === 0) return c.json(result);
    const message = PANEL_MSG.modsNotAllInstalled(result.failed);
    return c.req.query("detail") === "1" ? c.json({ ...result, message }, 424) : c.json(message, 424);
  };

  return [
    // ---- Installed mods ----
    // The cached JSON text as it is: an unchanged folder is neither read nor serialized again.
    { method: "GET", path: "/api/mods/list", handler: async () => jsonText(await live.listJson()) },
    {
      method: "POST",
      path: "/api/mods/toggle",
      requiresStopped: "switching a mod on or off",
      handler: async (c) => c.json(await live.toggle(requiredName(await readObject(c)))),
    },
    {
      method: "POST",
      path: "/api/mods/delete",
      requiresStopped: "deleting a mod",
      handler: async (c) => {
        const name = requiredName(await readObject(c));
        await live.delete(name);
        return c.json(name);
      },
    },
    {
      method: "POST",
      path: "/api/mods/delete/all",
      requiresStopped: "deleting all mods",
      handler: async (c) => {
        const opts = await deleteAllOptions(c);
        await ctx.backups.before("before-mods-delete", ["mods"]);
        await live.deleteAll(opts);
        return c.json(null);
      },
    },
    { method: "POST", path: "/api/mods/update", requiresStopped: "updating a mod", handler: (c) => update(c, live) },
    {
      method: "POST",
      path: "/api/mods/upload",
      requiresStopped: "a mod upload",
      handler: (c) => upload(c, live),
    },
    { method: "GET", path: "/api/mods/download", handler: () => zipDownload(live.files(), "all_installed_mods.zip") },
    { method: "GET", path: "/api/mods/updates", handler: async (c) => c.json(await mods.updates(live)) },

    // ---- Mod portal ----
    {
      method: "POST",
      path: "/api/mods/portal/login",
      handler: async (c) => {
        const body = await readObject(c);
        const username = field(body, "username");
        const token = field(body, "token");
        if (token !== undefined) {
          if (typeof username !== "string" || username.trim() === "") throw new Invalid(MSG.usernameRequired);
          if (typeof token !== "string" || token.trim() === "") throw new Invalid(PANEL_MSG.tokenRequired);
          portal.saveToken(username.trim(), token.trim());
          return c.json(null);
        }
        const password = field(body, "password");
        const problems = validateLogin({ username, password });
        const first = problems.username ?? problems.password;
        if (first) throw new Invalid(first);
        await portal.login((username as string).trim(), password as string);
        return c.json(null);
      },
    },
    { method: "GET", path: "/api/mods/portal/loginstatus", handler: (c) => c.json(portal.loggedIn()) },
    {
      method: "GET",
      path: "/api/mods/portal/logout",
      changesState: true,
      handler: (c) => {
        portal.logout();
        return c.json(false);
      },
    },
    { method: "GET", path: "/api/mods/portal/list", handler: async (c) => c.json({ results: await portal.list() }) },
    { method: "GET", path: "/api/mods/portal/info/:name", handler: async (c) => c.json(await mods.portalInfo(c.req.param("name"))) },
    { method: "GET", path: "/api/mods/portal/progress", handler: (c) => c.json(portal.progress()) },
    {
      method: "POST",
      path: "/api/mods/portal/install",
      requiresStopped: "a mod install",
      handler: (c) => install(c, live),
    },
    {
      method: "POST",
      path: "/api/mods/portal/install/multiple",
      requiresStopped: "a mod install",
      handler: (c) => installMultiple(c, live),
    },

    // ---- Mod packs ----
    { method: "GET", path: "/api/mods/packs/list", handler: async (c) => c.json(await mods.packs.list()) },
    {
      method: "POST",
      path: "/api/mods/packs/create",
      handler: async (c) => {
        const name = field(await readObject(c), "name");
        if (typeof name !== "string" || name.trim() === "") throw new Invalid(MSG.modPackNameRequired);
        await mods.packs.create(name, live);
        return c.json(await mods.packs.list());
      },
    },
    { method: "POST", path: "/api/mods/packs/:pack/delete", handler: async (c) => c.json(await mods.packs.delete(c.req.param("pack"))) },
    {
      method: "GET",
      path: "/api/mods/packs/:pack/download",
      handler: (c) => {
        const dir = pack(c);
        return zipDownload(dir.files(), `${c.req.param("pack")}.zip`);
      },
    },
    {
      method: "POST",
      path: "/api/mods/packs/:pack/load",
      requiresStopped: "loading a mod pack",
      handler: async (c) => {
        mods.packs.pack(c.req.param("pack")); // a pack that does not exist is refused before any backup
        await ctx.backups.before("before-mod-pack", ["mods"]);
        await mods.packs.load(c.req.param("pack"), live);
        return c.json({ mods: await live.list() });
      },
    },
    { method: "GET", path: "/api/mods/packs/:pack/list", handler: async (c) => c.json({ mods: await pack(c).list() }) },
    { method: "GET", path: "/api/mods/packs/:pack/updates", handler: async (c) => c.json(await mods.updates(pack(c))) },
    {
      method: "POST",
      path: "/api/mods/packs/:pack/mod/toggle",
      handler: async (c) => {
        const dir = pack(c);
        return c.json(await dir.toggle(requiredName(await readObject(c))));
      },
    },
    { method: "POST", path: "/api/mods/packs/:pack/mod/update", handler: (c) => update(c, pack(c)) },
    {
      method: "POST",
      path: "/api/mods/packs/:pack/mod/delete",
      handler: async (c) => {
        const dir = pack(c);
        await dir.delete(requiredName(await readObject(c)));
        return c.json(true);
      },
    },
    // The old router's other pack routes. The pack is looked up first: an unknown one is 404 before the
    // body is read (the old panel crashed on an upload to one).
    {
      method: "POST",
      path: "/api/mods/packs/:pack/mod/delete/all",
      handler: async (c) => {
        const dir = pack(c);
        await dir.deleteAll(await deleteAllOptions(c));
        return c.json(true);
      },
    },
    { method: "POST", path: "/api/mods/packs/:pack/mod/upload", handler: (c) => upload(c, pack(c)) },
    { method: "POST", path: "/api/mods/packs/:pack/portal/install", handler: (c) => install(c, pack(c)) },
    { method: "POST", path: "/api/mods/packs/:pack/portal/install/multiple", handler: (c) => installMultiple(c, pack(c)) },
  ];
}
