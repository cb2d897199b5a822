import { api, upload, type UploadProgress } from "./client.ts";
import type { ImportResult, ImportStatus } from "../../../shared/transfer.ts";

// The import page shows its failures in the form itself, where they stay: no flash.
export const transferApi = {
  status: () => api.get<ImportStatus>("/api/import/status", { quiet: true }),
  previewOldPanel: (dir: string) => api.post<ImportResult>("/api/import/old-panel/preview", { dir }, { quiet: true }),
  importOldPanel: (dir: string) => api.post<ImportResult>("/api/import/old-panel", { dir }, { quiet: true }),
  importArchive: (file: File, onProgress: (p: UploadProgress) => void) => {
    const form = new FormData();
    form.append("archive", file);
    return upload<ImportResult>("/api/import/archive", form, onProgress, { quiet: true });
  },
};
