import { api, upload, type UploadProgress } from "./client.ts";
import type { ImportResult, ImportStatus } from "../../../shared/transfer.ts";

export const transferApi = {
  status: () => api.get<ImportStatus>("/api/import/status", { quiet: true }),
  previewOldPanel: (dir: string) => api.post<ImportResult>("/api/import/old-panel/preview", { dir }),
  importOldPanel: (dir: string) => api.post<ImportResult>("/api/import/old-panel", { dir }),
  importArchive: (file: File, onProgress: (p: UploadProgress) => void) => {
    const form = new FormData();
    form.append("archive", file);
    return upload<ImportResult>("/api/import/archive", form, onProgress);
  },
};
