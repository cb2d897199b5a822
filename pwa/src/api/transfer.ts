import { call, upload, type UploadProgress } from "./client.ts";

// The import page shows its failures in the form itself, where they stay: no flash.
export const transferApi = {
  status: () => call("GET /api/import/status", {}, { quiet: true }),
  previewOldPanel: (dir: string) =>
    call("POST /api/import/old-panel/preview", { body: { dir } }, { quiet: true }),
  importOldPanel: (dir: string) => call("POST /api/import/old-panel", { body: { dir } }, { quiet: true }),
  importArchive: (file: File, onProgress: (p: UploadProgress) => void) => {
    const form = new FormData();
    form.append("archive", file);
    return upload("POST /api/import/archive", form, onProgress, { quiet: true });
  },
};
