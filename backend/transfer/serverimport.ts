// Importing one server's archive (serverexport.ts) into this panel: it becomes a new server beside those
// here, never replacing one. Its name (with " (2)" ... when taken), its game port when free (else the next
// free one), its game version when installed here (else the first server's). Its files are unpacked into
// the new server's directory as the servers' own adds build one (a hidden folder renamed into place), its
// rows go into its new server.db before it is built, so its schedules and player history are there from
// its start; a failure leaves no server and nothing the import made.

import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { AppContext } from "../boot/context.ts";
import { writeFileAtomic } from "../lib/fsutil.ts";
import { openDb, transaction } from "../store/db.ts";
import { inside } from "../factorio/paths.ts";
import { ScheduleStore } from "../factorio/schedules/store.ts";
import { activeVersion, installedVersions } from "../factorio/versions/store.ts";
import { serverBackupsDir, serverDataDir } from "../servers/build.ts";
import { buildAtomically } from "../servers/folders.ts";
import { type OtherServer, serverPorts } from "../servers/create.ts";
import type { Build } from "../servers/service.ts";
import { SERVER_NAME_MAX } from "../../shared/servers.ts";
import type { OpenedArchive } from "./archive.ts";
import { ArchiveError } from "./format.ts";

export interface ServerImport {
  id: number;
  name: string;
  lines: string[];
}

/** The archive's name, or with " (2)", " (3)" ... when a server here has it. */
export function freeName(name: string, taken: string[]): string {
  const lower = new Set(taken.map((n) => n.toLowerCase()));
  if (!lower.has(name.toLowerCase())) return name;
  for (let i = 2;; i++) {
    const suffix = ` (${i})`;
    const candidate = name.slice(0, SERVER_NAME_MAX - suffix.length) + suffix;
    if (!lower.has(candidate.toLowerCase())) return candidate;
  }
}

/** Adds the archive's server; `others`: the servers here (ports, folders), `build`: as POST /api/servers. */
export async function importServerArchive(
  ctx: AppContext,
  a: OpenedArchive,
  others: OtherServer[],
  build: Build,
): Promise<ServerImport> {
  const from = a.manifest.server;
  if (!from) throw new ArchiveError("it is a whole panel's export, not one server's");
  const name = freeName(from.name, others.map((o) => o.name));
  const ports = await serverPorts({ port: from.port }, others).catch(() => serverPorts({}, others));
  const installed = installedVersions(ctx.paths.versionsHome);
  const version = from.version && installed.includes(from.version)
    ? from.version
    : activeVersion(ctx.paths.root)?.version ?? null;
  let backupsDir: string | null = null;
  const server = await ctx.servers.add(
    { name, port: ports.port, rconPort: ports.rconPort, version },
    async (id) => {
      const root = ctx.servers.newRoot(id);
      const dataDir = serverDataDir(ctx.config, id);
      backupsDir = serverBackupsDir(ctx.config, id);
      await buildAtomically(root, async (staging) => {
        for (const f of ["saves", "mods", "config"]) mkdirSync(join(staging, f));
        for (const s of a.saves) await a.extract(s.entry, inside(join(staging, "saves"), s.name));
        for (const m of a.mods) await a.extract(m.entry, inside(join(staging, "mods"), m.name));
        // server-settings.json holds the game password: owner-only, as the game's own config is kept.
        for (const c of a.config) await a.extract(c.entry, inside(join(staging, "config"), c.name), 0o600);
      });
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      for (const [f, bytes] of a.settings) writeFileAtomic(join(dataDir, f), bytes);
      const db = openDb(join(dataDir, "server.db"));
      try {
        const now = ctx.now();
        transaction(db, () => {
          const schedules = new ScheduleStore(db);
          for (const s of a.schedules) schedules.insert(s, now);
          const h = a.history;
          for (const s of h?.sessions ?? []) {
            db.prepare(
              "INSERT INTO player_sessions (name, joined_at, left_at, end_reason) VALUES (?, ?, ?, ?)",
            )
              .run(s.name, s.joined_at, s.left_at, s.end_reason);
          }
          for (const l of h?.chat ?? []) {
            db.prepare("INSERT INTO player_chat (at, name, message) VALUES (?, ?, ?)").run(
              l.at,
              l.name,
              l.message,
            );
          }
          for (const c of h?.counts ?? []) {
            db.prepare("INSERT INTO player_counts (at, count) VALUES (?, ?)").run(c.at, c.count);
          }
        });
      } finally {
        db.close();
      }
      // Indexed by the server's backups when it is built (their index repairs from the files).
      mkdirSync(backupsDir, { recursive: true, mode: 0o700 });
      for (const b of a.backups) await a.extract(b.entry, inside(backupsDir, b.name), 0o600);
      return { root, owned: true };
    },
    build,
  ).catch((e) => {
    if (backupsDir) rmSync(backupsDir, { recursive: true, force: true });
    throw e;
  });
  const lines = [
    `Server ${from.name} (server ${from.id} of a panel ${a.manifest.panel_version}, exported ${a.manifest.created}) is now server ${server.id}, "${name}", on port ${ports.port}.`,
    `  saves: ${a.saves.length}, mod files: ${a.mods.length}, schedules: ${a.schedules.length}, backups: ${a.backups.length}, players in its history: ${
      new Set(a.history?.sessions.map((s) => s.name)).size
    }`,
  ];
  if (from.port !== ports.port) lines.push(`  Port ${from.port} is taken here, so it got ${ports.port}.`);
  if (from.version && version !== from.version) {
    lines.push(
      `  It ran Factorio ${from.version}, which is not installed here: it runs ${
        version ?? "the first server's game"
      } until you install ${from.version} and switch it under Versions.`,
    );
  }
  ctx.log.info("Imported a server", { file: a.path, id: server.id, name });
  return { id: server.id, name, lines };
}
