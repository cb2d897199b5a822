import { call, fileUrl, type RequestOptions } from "./client.ts";
import type {
  BackupInclude,
  BackupSettings,
  RestoreRequest,
  ScheduleInput,
} from "../../../shared/backups.ts";

export const backupsApi = {
  list: (opts?: RequestOptions) => call("GET /api/backups", {}, opts),
  create: (include: BackupInclude[]) => call("POST /api/backups", { body: { include } }),
  settings: () => call("GET /api/backups/settings"),
  saveSettings: (s: Partial<BackupSettings>) => call("POST /api/backups/settings", { body: s }),
  restore: (id: string, body: RestoreRequest) =>
    call("POST /api/backups/:id/restore", { params: { id }, body }),
  lock: (id: string, locked: boolean) =>
    call("POST /api/backups/:id/lock", { params: { id }, body: { locked } }),
  remove: (id: string) => call("POST /api/backups/:id/delete", { params: { id } }),
  downloadUrl: (id: string) => fileUrl("GET /api/backups/:id/download", { params: { id } }),
};

export const schedulesApi = {
  list: (opts?: RequestOptions) => call("GET /api/schedules", {}, opts),
  preview: (cron: string) => call("GET /api/schedules/preview", { query: { cron } }, { quiet: true }),
  create: (s: ScheduleInput) => call("POST /api/schedules", { body: s }),
  update: (id: number, s: ScheduleInput) =>
    call("POST /api/schedules/:id/update", { params: { id }, body: s }),
  run: (id: number) => call("POST /api/schedules/:id/run", { params: { id } }),
  remove: (id: number) => call("POST /api/schedules/:id/delete", { params: { id } }),
};
