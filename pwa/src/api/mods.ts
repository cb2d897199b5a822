import { call, fileUrl, upload, type UploadProgress } from "./client.ts";
import type { ModUpdateRequest, WantedMod } from "../../../shared/api.ts";
import type { ModSettingsUpdate } from "../../../shared/modsettings.ts";

export const modsApi = {
  list: () => call("GET /api/mods/list"),
  toggle: (name: string) => call("POST /api/mods/toggle", { body: { name } }),
  remove: (name: string) => call("POST /api/mods/delete", { body: { name } }),
  removeAll: (deleteModSettings: boolean) =>
    call("POST /api/mods/delete/all", { body: { delete_mod_settings: deleteModSettings } }),
  update: (u: ModUpdateRequest) => call("POST /api/mods/update", { body: u }),
  updates: (signal?: AbortSignal) => call("GET /api/mods/updates", {}, { quiet: true, signal }),
  upload: (file: File, onProgress: (p: UploadProgress) => void) => {
    const form = new FormData();
    form.append("mod_file", file);
    return upload("POST /api/mods/upload", form, onProgress);
  },
  /** Of the server shown (a function: the server changes with the address). */
  downloadAllUrl: () => fileUrl("GET /api/mods/download"),
  pin: (name: string, pinned: boolean) => call("POST /api/mods/pin", { body: { name, pinned } }),

  settings: {
    get: () => call("GET /api/mods/settings"),
    definitions: () => call("GET /api/mods/settings/definitions"),
    update: (body: ModSettingsUpdate) => call("POST /api/mods/settings/update", { body }),
    upload: (file: File, onProgress: (p: UploadProgress) => void) => {
      const form = new FormData();
      form.append("file", file);
      return upload("POST /api/mods/settings/upload", form, onProgress);
    },
    restorePrevious: () => call("POST /api/mods/settings/restore-previous"),
    downloadUrl: () => fileUrl("GET /api/mods/settings/download"),
  },

  portal: {
    status: () => call("GET /api/mods/portal/loginstatus", {}, { quiet: true }),
    login: (body: { username: string; password: string } | { username: string; token: string }) =>
      call("POST /api/mods/portal/login", { body }),
    logout: () => call("GET /api/mods/portal/logout"),
    list: () => call("GET /api/mods/portal/list"),
    info: (name: string) => call("GET /api/mods/portal/info/:name", { params: { name } }),
    install: (u: ModUpdateRequest) => call("POST /api/mods/portal/install", { body: u }),
    // ?detail=1: a partial failure (424) answers the whole result too, for the page to show each mod's outcome.
    installMultiple: (mods: WantedMod[]) =>
      call("POST /api/mods/portal/install/multiple", { query: { detail: "1" }, body: mods }),
    progress: () => call("GET /api/mods/portal/progress", {}, { quiet: true }),
  },

  packs: {
    list: () => call("GET /api/mods/packs/list"),
    create: (name: string) => call("POST /api/mods/packs/create", { body: { name } }),
    remove: (pack: string) => call("POST /api/mods/packs/:pack/delete", { params: { pack } }),
    load: (pack: string) => call("POST /api/mods/packs/:pack/load", { params: { pack } }),
    downloadUrl: (pack: string) => fileUrl("GET /api/mods/packs/:pack/download", { params: { pack } }),
    updates: (pack: string) =>
      call("GET /api/mods/packs/:pack/updates", { params: { pack } }, { quiet: true }),
    toggle: (pack: string, mod: string) =>
      call("POST /api/mods/packs/:pack/mod/toggle", { params: { pack }, body: { name: mod } }),
    update: (pack: string, u: ModUpdateRequest) =>
      call("POST /api/mods/packs/:pack/mod/update", { params: { pack }, body: u }),
    removeMod: (pack: string, mod: string) =>
      call("POST /api/mods/packs/:pack/mod/delete", { params: { pack }, body: { name: mod } }),
  },

  // The saves area's calls that Load Mod from Save needs.
  saves: {
    list: () => call("GET /api/saves/list"),
    mods: (saveFile: string) => call("POST /api/saves/mods", { body: { saveFile } }),
  },
};
