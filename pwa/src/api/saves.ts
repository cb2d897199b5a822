import { api, type RequestOptions, upload, type UploadProgress } from "./client.ts";
import type { Save, SaveHeader } from "../../../shared/api.ts";

const seg = encodeURIComponent;

export const savesApi = {
  list: (opts?: RequestOptions) => api.get<Save[]>("/api/saves/list", opts),
  create: (name: string, opts?: RequestOptions) => api.get<string>(`/api/saves/create/${seg(name)}`, opts),
  remove: (name: string) => api.get<string>(`/api/saves/rm/${seg(name)}`),
  header: (saveFile: string) => api.post<SaveHeader>("/api/saves/mods", { saveFile }),
  downloadUrl: (name: string) => `/api/saves/dl/${seg(name)}`,
  upload: (file: File, onProgress: (p: UploadProgress) => void) => {
    const form = new FormData();
    form.append("savefile", file, file.name);
    return upload<string>("/api/saves/upload", form, onProgress);
  },
};
