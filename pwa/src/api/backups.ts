import { api, type RequestOptions } from "./client.ts";
import type { Backup, BackupInclude, BackupSettings, Schedule, ScheduleInput, ScheduleRun } from "../../../shared/backups.ts";

const seg = encodeURIComponent;

export interface RestoreBody {
  as?: string;
  replace?: boolean;
  restart?: boolean;
  files?: boolean;
}

export const backupsApi = {
  list: (opts?: RequestOptions) => api.get<Backup[]>("/api/backups", opts),
  create: (include: BackupInclude[]) => api.post<Backup>("/api/backups", { include }),
  settings: () => api.get<BackupSettings>("/api/backups/settings"),
  saveSettings: (s: Partial<BackupSettings>) => api.post<BackupSettings>("/api/backups/settings", s),
  restore: (id: string, body: RestoreBody) => api.post<{ message: string; save: string }>(`/api/backups/${seg(id)}/restore`, body),
  lock: (id: string, locked: boolean) => api.post<Backup>(`/api/backups/${seg(id)}/lock`, { locked }),
  remove: (id: string) => api.post<null>(`/api/backups/${seg(id)}/delete`, {}),
  downloadUrl: (id: string) => `/api/backups/${seg(id)}/download`,
};

export const schedulesApi = {
  list: (opts?: RequestOptions) => api.get<Schedule[]>("/api/schedules", opts),
  preview: (cron: string) =>
    api.get<{ description: string; next_runs: string[]; time_zone: string }>(`/api/schedules/preview?cron=${seg(cron)}`, { quiet: true }),
  create: (s: ScheduleInput) => api.post<Schedule>("/api/schedules", s),
  update: (id: number, s: ScheduleInput) => api.post<Schedule>(`/api/schedules/${id}/update`, s),
  run: (id: number) => api.post<ScheduleRun>(`/api/schedules/${id}/run`, {}),
  remove: (id: number) => api.post<null>(`/api/schedules/${id}/delete`, {}),
};
