// Mods, the mod portal and mod packs (spec section 7 "Mods" and "Mod packs"). Every change to the
// installed mods is flagged requiresStopped (423 while the game is not stopped); pack changes touch only
// the pack's own folder, except loading one.

import type { AppContext } from "../boot/context.ts";
import type { FolderFile, ModDir } from "../factorio/mods/moddir.ts";
import { fileChunks, zipStream } from "../lib/zip.ts";
import { ensureDir } from "../lib/fsutil.ts";
import { Invalid, UnsupportedMediaType } from "../lib/errors.ts";
import { MSG, PANEL_MSG } from "../../shared/messages.ts";
import { validateLogin } from "../../shared/validation.ts";
import { receiveUpload } from "./upload.ts";
import { contentDisposition } from "./download.ts";
import { type Ctx, failed, type Input, jsonText, type Route, route, routeCheckedByDomain } from "./routes.ts";
import type { ModUpdateRequest } from "../../shared/contract/mods.ts";

function requiredName(body: { name: string }): string {
  if (body.name.trim() === "") throw new Invalid("name is required");
  return body.name;
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
  const update = (dir: ModDir, body: ModUpdateRequest) => mods.update(dir, body.modName, body.downloadUrl);

  const install = (dir: ModDir, body: ModUpdateRequest) => {
    ensureDir(dir.dir);
    return mods.install(dir, body.modName, body.downloadUrl);
  };

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
    return { mods: await dir.list() };
  };

  /**
   * A save's mods into `dir`. Some that could not be installed make it a failure (424), answered as a
   * JSON string naming each and why: the old panel answered failures with a text, and its UI puts the
   * error body into its message box as it is (an object there blanked the whole page). The result itself
   * (installed, already there, switched, failed, and the message) comes with ?detail=1, which the
   * panel's own page asks for to show each mod's outcome.
   */
  const installMultiple = async (
    c: Ctx,
    dir: ModDir,
    { body, query }: { body: unknown; query: Input<"POST /api/mods/portal/install/multiple">["query"] },
  ) => {
    ensureDir(dir.dir);
    const result = await mods.installMultiple(dir, body);
    if (result.failed.length === 0) return result;
    const message = PANEL_MSG.modsNotAllInstalled(result.failed);
    return query.detail === "1" ? failed(c, { ...result, message }, 424) : failed(c, message, 424);
  };

  return [
    // ---- Installed mods ----
    // The cached JSON text as it is: an unchanged folder is neither read nor serialized again.
    route("GET /api/mods/list", async () => jsonText(await live.listJson())),
    route("POST /api/mods/toggle", async (_c, { body }) => await live.toggle(requiredName(body))),
    route("POST /api/mods/delete", async (_c, { body }) => {
      const name = requiredName(body);
      await live.delete(name);
      return name;
    }),
    // The old API's call had no body, which means: keep mod-settings.dat.
    route("POST /api/mods/delete/all", async (_c, { body }) => {
      const opts = { modSettings: body.delete_mod_settings === true };
      await ctx.backups.before("before-mods-delete", ["mods"]);
      await live.deleteAll(opts);
      return null;
    }),
    route("POST /api/mods/update", (_c, { body }) => update(live, body)),
    route("POST /api/mods/upload", (c) => upload(c, live)),
    route("GET /api/mods/download", () => zipDownload(live.files(), "all_installed_mods.zip")),
    route("GET /api/mods/updates", async () => await mods.updates(live)),

    // ---- Mod portal ----
    route("POST /api/mods/portal/login", async (_c, { body }) => {
      const { username, token, password } = body;
      if (token !== undefined) {
        if (username.trim() === "") throw new Invalid(MSG.usernameRequired);
        if (token.trim() === "") throw new Invalid(PANEL_MSG.tokenRequired);
        portal.saveToken(username.trim(), token.trim());
        return null;
      }
      const problems = validateLogin({ username, password });
      const first = problems.username ?? problems.password;
      if (first) throw new Invalid(first);
      await portal.login(username.trim(), password!);
      return null;
    }),
    route("GET /api/mods/portal/loginstatus", () => portal.loggedIn()),
    route("GET /api/mods/portal/logout", () => {
      portal.logout();
      return false as const;
    }),
    route("GET /api/mods/portal/list", async () => ({ results: await portal.list() })),
    route("GET /api/mods/portal/info/:name", async (c) => await mods.portalInfo(c.req.param("name"))),
    route("GET /api/mods/portal/progress", () => portal.progress()),
    route("POST /api/mods/portal/install", (_c, { body }) => install(live, body)),
    routeCheckedByDomain(
      "POST /api/mods/portal/install/multiple",
      (c, input) => installMultiple(c, live, input),
    ),

    // ---- Mod packs ----
    route("GET /api/mods/packs/list", async () => await mods.packs.list()),
    route("POST /api/mods/packs/create", async (_c, { body }) => {
      if (body.name.trim() === "") throw new Invalid(MSG.modPackNameRequired);
      await mods.packs.create(body.name, live);
      return await mods.packs.list();
    }),
    route("POST /api/mods/packs/:pack/delete", async (c) => await mods.packs.delete(c.req.param("pack"))),
    route("GET /api/mods/packs/:pack/download", (c) => {
      const dir = pack(c);
      return zipDownload(dir.files(), `${c.req.param("pack")}.zip`);
    }),
    route("POST /api/mods/packs/:pack/load", async (c) => {
      mods.packs.pack(c.req.param("pack")); // a pack that does not exist is refused before any backup
      await ctx.backups.before("before-mod-pack", ["mods"]);
      await mods.packs.load(c.req.param("pack"), live);
      return { mods: await live.list() };
    }),
    route("GET /api/mods/packs/:pack/list", async (c) => ({ mods: await pack(c).list() })),
    route("GET /api/mods/packs/:pack/updates", async (c) => await mods.updates(pack(c))),
    route("POST /api/mods/packs/:pack/mod/toggle", async (c, { body }) => {
      const dir = pack(c);
      return await dir.toggle(requiredName(body));
    }),
    route("POST /api/mods/packs/:pack/mod/update", (c, { body }) => update(pack(c), body)),
    route("POST /api/mods/packs/:pack/mod/delete", async (c, { body }) => {
      const dir = pack(c);
      await dir.delete(requiredName(body));
      return true as const;
    }),
    // The old router's other pack routes. The pack is looked up first: an unknown one is 404 before the
    // body is read (the old panel crashed on an upload to one).
    route("POST /api/mods/packs/:pack/mod/delete/all", async (c, { body }) => {
      const dir = pack(c);
      await dir.deleteAll({ modSettings: body.delete_mod_settings === true });
      return true as const;
    }),
    route("POST /api/mods/packs/:pack/mod/upload", (c) => upload(c, pack(c))),
    route("POST /api/mods/packs/:pack/portal/install", (c, { body }) => install(pack(c), body)),
    routeCheckedByDomain(
      "POST /api/mods/packs/:pack/portal/install/multiple",
      (c, input) => installMultiple(c, pack(c), input),
    ),
  ];
}
