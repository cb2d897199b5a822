// The panel as a dry run of `--import FILE` sees it: read from the data dir with the database opened
// read-only, so a dry run creates nothing, not even the data dir.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Config } from "../boot/config.ts";
import { factorioPaths } from "../factorio/layout.ts";
import { INITIAL_PASSWORD_FILE } from "../auth/accounts.ts";
import type { PlanTarget } from "./apply.ts";

export function dryRunTarget(config: Config): PlanTarget {
  const users = new Set<string>();
  const scheduleNames = new Set<string>();
  const channelKeys = new Set<string>();
  const dbFile = join(config.dataDir, "panel.db");
  if (existsSync(dbFile)) {
    const db = new DatabaseSync(dbFile, { readOnly: true });
    try {
      const has = (t: string) =>
        db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(t) !== undefined;
      if (has("users")) {
        for (const r of db.prepare("SELECT username FROM users").all()) {
          users.add(String(r.username).toLowerCase());
        }
      }
      if (has("schedules")) {
        for (const r of db.prepare("SELECT name FROM schedules").all()) scheduleNames.add(String(r.name));
      }
      if (has("alert_channels")) {
        for (const r of db.prepare("SELECT type, name FROM alert_channels").all()) {
          channelKeys.add(`${r.type}\n${r.name}`);
        }
      }
    } finally {
      db.close();
    }
  }
  const fresh = users.size === 0 ||
    (users.size === 1 && users.has("admin") && existsSync(join(config.dataDir, INITIAL_PASSWORD_FILE)));
  return {
    user: (
      name,
    ) => (!users.has(name.toLowerCase())
      ? "none"
      : fresh && name.toLowerCase() === "admin"
      ? "first-admin"
      : "exists"),
    scheduleNames,
    channelKeys,
    dataDir: config.dataDir,
    packsDir: join(config.dataDir, "mod-packs"),
    savesDir: factorioPaths(config).saves,
    backupsDir: config.backupsDir,
  };
}
