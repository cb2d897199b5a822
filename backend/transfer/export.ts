// `--export FILE`: the panel's state in one archive (format.ts), read straight from the data dir with the
// database opened read-only, so an export works beside a running panel and changes nothing of it. The
// archive streams into a hidden temp file beside FILE and is renamed into place only when complete;
// saves and backups pass through in chunks, never whole in memory.

import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Buffer } from "node:buffer";
import type { Config } from "../boot/config.ts";
import { factorioPaths } from "../factorio/layout.ts";
import { filesUnder, readWhole } from "../factorio/backups/archive.ts";
import { type ZipSource, zipStream } from "../lib/zip.ts";
import { writeStreamAtomic } from "../lib/fsutil.ts";
import {
  BACKUPS_PREFIX,
  CHANNELS,
  type ExportedChannel,
  type ExportedSchedule,
  type ExportedUser,
  FORMAT,
  FORMAT_VERSION,
  MANIFEST,
  type Manifest,
  PACKS_PREFIX,
  SAVES_PREFIX,
  SCHEDULES,
  SECRET_SETTINGS_FILES,
  SETTINGS_FILES,
  SETTINGS_PREFIX,
  USERS,
} from "./format.ts";
import pkg from "../../package.json" with { type: "json" };

export const PANEL_VERSION: string = pkg.version;

export interface ExportOptions {
  secrets: boolean;
  saves: boolean;
  backups: boolean;
}

export class ExportError extends Error {}

export type Row = Record<string, unknown>;

function readRows(
  dbFile: string,
  secrets: boolean,
): { users: ExportedUser[]; schedules: ExportedSchedule[]; channels: ExportedChannel[] } {
  if (!existsSync(dbFile)) {
    throw new ExportError(`There is no panel database at ${dbFile}: check --data-dir.`);
  }
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(dbFile, { readOnly: true });
  } catch (e) {
    throw new ExportError(`Cannot open the panel database ${dbFile}: ${(e as Error).message}`);
  }
  try {
    const all = (sql: string, ...p: (number | string)[]) => db.prepare(sql).all(...p) as Row[];
    const users = all("SELECT id, username, password_hash, role, email FROM users ORDER BY id").map(
      (r): ExportedUser => {
        const u: ExportedUser = {
          username: String(r.username),
          role: r.role as ExportedUser["role"],
          email: String(r.email),
        };
        if (!secrets) return u;
        const id = Number(r.id);
        u.password_hash = String(r.password_hash);
        const totp = all("SELECT secret, confirmed_at, last_step FROM totp WHERE user_id = ?", id)[0];
        if (totp) {
          u.totp = {
            secret: String(totp.secret),
            confirmed_at: totp.confirmed_at as number | null,
            last_step: Number(totp.last_step),
          };
        }
        const codes = all("SELECT code_hash, used_at FROM recovery_codes WHERE user_id = ? ORDER BY id", id);
        if (codes.length) {
          u.recovery_codes = codes.map((c) => ({
            code_hash: String(c.code_hash),
            used_at: c.used_at as number | null,
          }));
        }
        const keys = all("SELECT * FROM passkeys WHERE user_id = ? ORDER BY created_at", id);
        if (keys.length) {
          u.passkeys = keys.map((k) => ({
            id: String(k.id),
            name: String(k.name),
            public_key: Buffer.from(k.public_key as Uint8Array).toString("base64"),
            counter: Number(k.counter),
            transports: String(k.transports),
            created_at: Number(k.created_at),
            last_used_at: k.last_used_at as number | null,
          }));
        }
        return u;
      },
    );
    const schedules = all("SELECT * FROM schedules ORDER BY id").map(scheduleOf);
    const channels = all("SELECT * FROM alert_channels ORDER BY id").map((c): ExportedChannel => {
      const out: ExportedChannel = {
        type: c.type as ExportedChannel["type"],
        name: String(c.name),
        events: String(c.events).split(",").filter((e) => e !== "") as ExportedChannel["events"],
        enabled: c.enabled === 1,
        priority: c.priority as number | null,
      };
      // A Discord or Slack webhook URL and an ntfy topic are as good as passwords.
      if (secrets) Object.assign(out, { url: c.url, topic: c.topic, token: c.token, secret: c.secret });
      return out;
    });
    return { users, schedules, channels };
  } catch (e) {
    if (e instanceof ExportError) throw e;
    throw new ExportError(`Cannot read the panel database ${dbFile}: ${(e as Error).message}`);
  } finally {
    db.close();
  }
}

/** A schedules row as an archive carries it. */
export function scheduleOf(s: Row): ExportedSchedule {
  return {
    name: String(s.name),
    cron: String(s.cron),
    condition: s.condition as ExportedSchedule["condition"],
    enabled: s.enabled === 1,
    run_missed: s.run_missed === 1,
    tasks: JSON.parse(String(s.tasks)),
  };
}

/** An entry of an archive: bytes made here, or a file streamed from the disk. */
export type Part = { path: string; bytes: Uint8Array } | { path: string; file: string };

/**
 * Writes `parts` and then `manifest` (its `files` filled in with each part's size and SHA-256 as it
 * streams) to `file`, through a hidden temp file renamed into place when complete.
 */
export async function writeArchive(
  file: string,
  parts: Part[],
  manifest: Manifest,
  now: number,
  mode: number,
): Promise<void> {
  const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v, null, 2) + "\n");
  async function* sources(): AsyncIterable<ZipSource> {
    for (const part of parts) {
      const hash = createHash("sha256");
      let size = 0;
      const from = "bytes" in part ? [part.bytes] : readWhole(part.file);
      const data = (async function* () {
        for await (const chunk of from) {
          hash.update(chunk);
          size += chunk.length;
          yield chunk;
        }
      })();
      const zipped = /\.zip$/i.test(part.path);
      const mtime = "file" in part ? statSync(part.file).mtime : new Date(now);
      yield {
        name: part.path,
        data,
        mtime,
        method: zipped ? "store" : "deflate",
        ...("bytes" in part ? { size: part.bytes.length } : {}),
      };
      manifest.files.push({ path: part.path, size, sha256: hash.digest("hex") });
    }
    const m = json(manifest);
    yield { name: MANIFEST, data: m, size: m.length, method: "deflate", mtime: new Date(now) };
  }
  await writeStreamAtomic(file, zipStream(sources()), undefined, mode);
}

/** Plain files directly in `dir` ending in .zip, not hidden (our temp files start with a dot). */
export function zipsIn(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) =>
      e.isFile() && !e.name.startsWith(".") && e.name.toLowerCase().endsWith(".zip") &&
      !e.name.toLowerCase().endsWith(".tmp.zip")
    )
    .map((e) => e.name)
    .sort();
}

/** Writes the archive to `file`; answers its manifest. FILE is owner-only when it holds secrets or backups. */
export async function exportPanel(
  config: Config,
  file: string,
  opts: ExportOptions,
  now = Date.now(),
): Promise<Manifest> {
  const rows = readRows(join(config.dataDir, "panel.db"), opts.secrets);
  const json = (v: unknown) => new TextEncoder().encode(JSON.stringify(v, null, 2) + "\n");
  const parts: Part[] = [
    { path: USERS, bytes: json(rows.users) },
    { path: SCHEDULES, bytes: json(rows.schedules) },
    { path: CHANNELS, bytes: json(rows.channels) },
  ];
  const settings = [...SETTINGS_FILES, ...(opts.secrets ? SECRET_SETTINGS_FILES : [])].filter((f) =>
    existsSync(join(config.dataDir, f))
  );
  for (const f of settings) {
    parts.push({ path: SETTINGS_PREFIX + f, bytes: readFileSync(join(config.dataDir, f)) });
  }
  const packsDir = join(config.dataDir, "mod-packs");
  const packs = existsSync(packsDir)
    ? readdirSync(packsDir, { withFileTypes: true }).filter((e) => e.isDirectory() && !e.name.startsWith("."))
      .map((e) => e.name).sort()
    : [];
  for (const pack of packs) {
    for (const rel of await filesUnder(join(packsDir, pack))) {
      parts.push({ path: `${PACKS_PREFIX}${pack}/${rel}`, file: join(packsDir, pack, rel) });
    }
  }
  const savesDir = factorioPaths(config).saves;
  const saves = opts.saves ? zipsIn(savesDir) : [];
  for (const s of saves) parts.push({ path: SAVES_PREFIX + s, file: join(savesDir, s) });
  const backups = opts.backups ? zipsIn(config.backupsDir) : [];
  for (const b of backups) parts.push({ path: BACKUPS_PREFIX + b, file: join(config.backupsDir, b) });

  const manifest: Manifest = {
    format: FORMAT,
    format_version: FORMAT_VERSION,
    panel_version: PANEL_VERSION,
    created: new Date(now).toISOString(),
    secrets: opts.secrets,
    contents: {
      users: rows.users.map((u) => u.username),
      schedules: rows.schedules.map((s) => s.name),
      alert_channels: rows.channels.map((c) => c.name),
      settings,
      mod_packs: packs,
      saves,
      backups,
    },
    files: [],
  };
  // Backups hold the game's server-settings.json, with its game password and factorio.com token.
  await writeArchive(file, parts, manifest, now, opts.secrets || opts.backups ? 0o600 : 0o644);
  return manifest;
}

/** What was written, for the console. */
export function describeExport(file: string, m: Manifest): string[] {
  const c = m.contents;
  const list = (what: string, names: string[]) => `  ${what}: ${names.length ? names.join(", ") : "none"}`;
  return [
    `Exported to ${file}:`,
    list("users", c.users),
    list("schedules", c.schedules),
    list("alert channels", c.alert_channels),
    list("settings", c.settings),
    list("mod packs", c.mod_packs),
    list("saves", c.saves),
    list("backups", c.backups),
    m.secrets
      ? "  With secrets (password hashes, second factors, channel URLs and tokens): the file is readable only by you; keep it safe."
      : "  Without secrets: users get new passwords on import, alert channels need their URLs again (--export-secrets to include them).",
  ];
}
