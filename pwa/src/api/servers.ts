import { call, upload, type UploadProgress } from "./client.ts";
import type { NewServer, ServerChange, ServerDeletion } from "../../../shared/contract/servers.ts";

/** The panel's servers (several Factorio servers from one panel). */
export const serversApi = {
  list: (quiet = true) => call("GET /api/servers", {}, { quiet }),
  add: (body: NewServer) => call("POST /api/servers", { body }),
  change: (id: number, body: ServerChange) => call("PATCH /api/servers/:id", { params: { id }, body }),
  remove: (id: number, body: ServerDeletion) => call("DELETE /api/servers/:id", { params: { id }, body }),
  /** A server's archive (--export-server) becomes a new server; the page shows a refusal in its form. */
  importArchive: (file: File, onProgress: (p: UploadProgress) => void) => {
    const form = new FormData();
    form.append("archive", file);
    return upload("POST /api/servers/import", form, onProgress, { quiet: true });
  },
};
