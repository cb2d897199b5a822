import { call, fileUrl, type RequestOptions, upload, type UploadProgress } from "./client.ts";

export const savesApi = {
  list: (opts?: RequestOptions) => call("GET /api/saves/list", {}, opts),
  create: (name: string, opts?: RequestOptions) =>
    call("GET /api/saves/create/:name", { params: { name } }, opts),
  remove: (name: string) => call("GET /api/saves/rm/:name", { params: { name } }),
  header: (saveFile: string) => call("POST /api/saves/mods", { body: { saveFile } }),
  downloadUrl: (name: string) => fileUrl("GET /api/saves/dl/:name", { params: { name } }),
  upload: (file: File, onProgress: (p: UploadProgress) => void) => {
    const form = new FormData();
    form.append("savefile", file, file.name);
    return upload("POST /api/saves/upload", form, onProgress);
  },
};
