// `--export FILE --export-server N`: one server in an archive (format.ts, format 2), to be imported into
// another panel as a new server (serverimport.ts). Its game files (saves, mods with mod-list.json and
// mod-settings.dat, server-settings.json and the player lists), its panel files (backups.json,
// players.json, mod-pins.json), its rows (schedules, player history) and, with --export-backups, its
// backups. Not the panel's users, channels or mod packs: they belong to the panel, not to a server. Read
// with the databases opened read-only, so it works beside a running panel and changes nothing.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Config } from "../boot/config.ts";
import { serverBackupsDir, serverDataDir } from "../servers/build.ts";
import { activeVersion } from "../factorio/versions/store.ts";
import { FIRST_GAME_PORT } from "../../shared/servers.ts";
import { FIRST_SERVER } from "../../shared/contract/servers.ts";
import {
  ExportError,
  PANEL_VERSION,
  type Part,
  type Row,
  scheduleOf,
  writeArchive,
  zipsIn,
} from "./export.ts";
import {
  BACKUPS_PREFIX,
  CONFIG_FILES,
  CONFIG_PREFIX,
  type ExportedHistory,
  type ExportedServer,
  FORMAT,
  HISTORY,
  type Manifest,
  MOD_FILES,
  MODS_PREFIX,
  SAVES_PREFIX,
  SCHEDULES,
  SERVER_FORMAT_VERSION,
  SETTINGS_FILES,
  SETTINGS_PREFIX,
} from "./format.ts";

function readOnly(file: string): DatabaseSync {
  if (!existsSync(file)) throw new ExportError(`There is no panel database at ${file}: check --data-dir.`);
  try {
    return new DatabaseSync(file, { readOnly: true });
  } catch (e) {
    throw new ExportError(`Cannot open the database ${file}: ${(e as Error).message}`);
  }
}

/** Server `id`'s record in panel.db; a panel from before several servers has only the first. */
function serverRecord(config: Config, id: number): { name: string; root: string; port: number } {
  const db = readOnly(join(config.dataDir, "panel.db"));
  try {
    const hasTable = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'servers'")
      .get();
    const r = hasTable
      ? db.prepare("SELECT name, root, port FROM servers WHERE id = ?").get(id) as Row | undefined
      : id === FIRST_SERVER
      ? { name: "Server 1", root: "", port: FIRST_GAME_PORT }
      : undefined;
    if (!r) throw new ExportError(`There is no server ${id} in this panel (GET /api/servers lists them).`);
    return {
      name: String(r.name),
      root: id === FIRST_SERVER ? config.factorioDir : String(r.root),
      port: Number(r.port),
    };
  } finally {
    db.close();
  }
}

/** The server's schedules and player history, from its database (panel.db for the first server). */
function serverRows(file: string): { schedules: ReturnType<typeof scheduleOf>[]; history: ExportedHistory } {
  const db = readOnly(file);
  try {
    const all = (sql: string) => db.prepare(sql).all() as Row[];
    return {
      schedules: all("SELECT * FROM schedules ORDER BY id").map(scheduleOf),
      history: {
        sessions: all(
          "SELECT name, joined_at, left_at, end_reason FROM player_sessions ORDER BY id",
        ) as never,
        chat: all("SELECT at, name, message FROM player_chat ORDER BY id") as never,
        counts: all("SELECT at, count FROM player_counts ORDER BY at") as never,
      },
    };
  } catch (e) {
    if (e instanceof ExportError) throw e;
    throw new ExportError(`Cannot read the database ${file}: ${(e as Error).message}`);
  } finally {
    db.close();
  }
}

/** Writes server `id`'s archive to `file` (owner-only: server-settings.json holds its game password). */
export async function exportServer(
  config: Config,
  file: string,
  id: number,
  opts: { backups: boolean },
  now = Date.now(),
): Promise<Manifest> {
  const record = serverRecord(config, id);
  const dataDir = serverDataDir(config, id);
  const rows = serverRows(id === FIRST_SERVER ? join(dataDir, "panel.db") : join(dataDir, "server.db"));
  const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v, null, 2) + "\n");
  const parts: Part[] = [
    { path: SCHEDULES, bytes: json(rows.schedules) },
    { path: HISTORY, bytes: json(rows.history) },
  ];
  const settings = SETTINGS_FILES.filter((f) => existsSync(join(dataDir, f)));
  for (const f of settings) parts.push({ path: SETTINGS_PREFIX + f, file: join(dataDir, f) });
  const savesDir = join(record.root, "saves");
  const saves = zipsIn(savesDir);
  for (const s of saves) parts.push({ path: SAVES_PREFIX + s, file: join(savesDir, s) });
  const modsDir = join(record.root, "mods");
  const mods = [...zipsIn(modsDir), ...MOD_FILES.filter((f) => existsSync(join(modsDir, f)))];
  for (const m of mods) parts.push({ path: MODS_PREFIX + m, file: join(modsDir, m) });
  const configFiles = CONFIG_FILES.filter((f) => existsSync(join(record.root, "config", f)));
  for (const f of configFiles) parts.push({ path: CONFIG_PREFIX + f, file: join(record.root, "config", f) });
  const backupsDir = serverBackupsDir(config, id);
  const backups = opts.backups ? zipsIn(backupsDir) : [];
  for (const b of backups) parts.push({ path: BACKUPS_PREFIX + b, file: join(backupsDir, b) });

  const server: ExportedServer = {
    id,
    name: record.name,
    port: record.port,
    version: activeVersion(record.root)?.version ?? "",
  };
  const manifest: Manifest = {
    format: FORMAT,
    format_version: SERVER_FORMAT_VERSION,
    panel_version: PANEL_VERSION,
    created: new Date(now).toISOString(),
    secrets: false,
    contents: {
      users: [],
      schedules: rows.schedules.map((s) => s.name),
      alert_channels: [],
      settings,
      mod_packs: [],
      saves,
      backups,
      mods,
      config: configFiles,
    },
    server,
    files: [],
  };
  await writeArchive(file, parts, manifest, now, 0o600);
  return manifest;
}

/** What was written, for the console. */
export function describeServerExport(file: string, m: Manifest): string[] {
  const c = m.contents;
  const list = (what: string, names: string[]) => `  ${what}: ${names.length ? names.join(", ") : "none"}`;
  return [
    `Exported server ${m.server?.id} (${m.server?.name}) to ${file}:`,
    list("saves", c.saves),
    list("mod files", c.mods ?? []),
    list("game settings and player lists", c.config ?? []),
    list("panel settings", c.settings),
    list("schedules", c.schedules),
    list("backups", c.backups),
    "  With its player history. Its server-settings.json holds the game password: the file is readable only by you.",
    "  Import it into another panel as a new server with POST /api/servers/import.",
  ];
}
