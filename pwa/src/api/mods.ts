import { api, upload, type UploadProgress } from "./client.ts";
import type {
  DownloadProgress,
  InstallMultipleResult,
  InstallResult,
  Mod,
  ModList,
  ModPack,
  ModUpdate,
  ModUpdateRequest,
  PortalList,
  PortalModInfo,
  Save,
  SaveHeader,
  WantedMod,
} from "../../../shared/api.ts";
import type { ModSettingDefinitions, ModSettingsState, ModSettingsUpdate } from "../../../shared/modsettings.ts";

const pack = (name: string) => `/api/mods/packs/${encodeURIComponent(name)}`;

export const modsApi = {
  list: () => api.get<Mod[]>("/api/mods/list"),
  toggle: (name: string) => api.post<boolean>("/api/mods/toggle", { name }),
  remove: (name: string) => api.post<string>("/api/mods/delete", { name }),
  removeAll: (deleteModSettings: boolean) => api.post<null>("/api/mods/delete/all", { delete_mod_settings: deleteModSettings }),
  update: (u: ModUpdateRequest) => api.post<Mod>("/api/mods/update", u),
  updates: (signal?: AbortSignal) => api.get<ModUpdate[]>("/api/mods/updates", { quiet: true, signal }),
  upload: (file: File, onProgress: (p: UploadProgress) => void) => {
    const form = new FormData();
    form.append("mod_file", file);
    return upload<ModList>("/api/mods/upload", form, onProgress);
  },
  downloadAllUrl: "/api/mods/download",
  pin: (name: string, pinned: boolean) => api.post<Mod>("/api/mods/pin", { name, pinned }),

  settings: {
    get: () => api.get<ModSettingsState>("/api/mods/settings"),
    definitions: () => api.get<ModSettingDefinitions>("/api/mods/settings/definitions"),
    update: (body: ModSettingsUpdate) => api.post<ModSettingsState>("/api/mods/settings/update", body),
    upload: (file: File, onProgress: (p: UploadProgress) => void) => {
      const form = new FormData();
      form.append("file", file);
      return upload<ModSettingsState>("/api/mods/settings/upload", form, onProgress);
    },
    restorePrevious: () => api.post<ModSettingsState>("/api/mods/settings/restore-previous", {}),
    downloadUrl: "/api/mods/settings/download",
  },

  portal: {
    status: () => api.get<boolean>("/api/mods/portal/loginstatus", { quiet: true }),
    login: (body: { username: string; password: string } | { username: string; token: string }) =>
      api.post<null>("/api/mods/portal/login", body),
    logout: () => api.get<boolean>("/api/mods/portal/logout"),
    list: () => api.get<PortalList>("/api/mods/portal/list"),
    info: (name: string) => api.get<PortalModInfo>(`/api/mods/portal/info/${encodeURIComponent(name)}`),
    install: (u: ModUpdateRequest) => api.post<InstallResult>("/api/mods/portal/install", u),
    // ?detail=1: a partial failure (424) answers the whole result too, for the page to show each mod's outcome.
    installMultiple: (mods: WantedMod[]) => api.post<InstallMultipleResult>("/api/mods/portal/install/multiple?detail=1", mods),
    progress: () => api.get<DownloadProgress[]>("/api/mods/portal/progress", { quiet: true }),
  },

  packs: {
    list: () => api.get<ModPack[]>("/api/mods/packs/list"),
    create: (name: string) => api.post<ModPack[]>("/api/mods/packs/create", { name }),
    remove: (name: string) => api.post<string>(`${pack(name)}/delete`),
    load: (name: string) => api.post<ModList>(`${pack(name)}/load`),
    downloadUrl: (name: string) => `${pack(name)}/download`,
    updates: (name: string) => api.get<ModUpdate[]>(`${pack(name)}/updates`, { quiet: true }),
    toggle: (name: string, mod: string) => api.post<boolean>(`${pack(name)}/mod/toggle`, { name: mod }),
    update: (name: string, u: ModUpdateRequest) => api.post<Mod>(`${pack(name)}/mod/update`, u),
    removeMod: (name: string, mod: string) => api.post<boolean>(`${pack(name)}/mod/delete`, { name: mod }),
  },

  // The saves area's calls that Load Mod from Save needs.
  saves: {
    list: () => api.get<Save[]>("/api/saves/list"),
    mods: (saveFile: string) => api.post<SaveHeader>("/api/saves/mods", { saveFile }),
  },
};
