// Where an import from the old panel lands in this one: the users table, the mod packs folder, the mod
// portal credentials and a new server for its Factorio directory, through what the panel itself uses.

import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Config } from "../boot/config.ts";
import type { AppContext } from "../boot/context.ts";
import {
  applyFsmImport,
  type FsmImportReport,
  type FsmImportTargets,
  type FsmSource,
  OLD_PANEL_SERVER,
  type ServerFolder,
} from "./fsm.ts";
import { checkFactorioFolder } from "../servers/folders.ts";
import { Conflict, Invalid } from "../lib/errors.ts";
import { freeName } from "../transfer/serverimport.ts";
import type { NewServer } from "../../shared/contract/servers.ts";

/** Adds a server as POST /api/servers does; answers its id (http/servers.ts addServerNow). */
export type AddServer = (body: NewServer) => Promise<number>;

const real = (p: string) => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/** The old panel's Factorio directory against this panel's servers (their names and directories). */
export function folderAsServer(dir: string, servers: { name: string; root: string }[]): ServerFolder | null {
  if (!existsSync(dir)) return null;
  const same = servers.find((s) => real(s.root) === real(dir));
  if (same) return { action: "exists", name: same.name };
  try {
    checkFactorioFolder(dir, servers);
    return { action: "import" };
  } catch (e) {
    if (e instanceof Invalid || e instanceof Conflict) return { action: "unusable", why: e.message };
    throw e;
  }
}

/** The server steps of an import into the running panel `ctx`. */
export function serverTargets(
  ctx: AppContext,
  add: AddServer,
): Pick<FsmImportTargets, "serverFolder" | "addServer"> {
  const servers = () =>
    ctx.servers.all().map((s) => ({ name: ctx.servers.nameOf(s.id), root: s.paths.root }));
  return {
    serverFolder: (dir) => folderAsServer(dir, servers()),
    addServer: async (dir) => {
      const name = freeName(OLD_PANEL_SERVER, servers().map((s) => s.name));
      const id = await add({ name, from: { folder: dir } });
      return { id, name: ctx.servers.nameOf(id) };
    },
  };
}

const PACKS = "mod-packs";

/** Targets for a dry run: what is there already, read without changing (or creating) anything. */
export function dryRunTargets(
  config: Config,
): Pick<FsmImportTargets, "userExists" | "packsDir" | "portalLoggedIn" | "serverFolder"> {
  const names = new Set<string>();
  const servers = [{ name: "Server 1", root: config.factorioDir }];
  const dbFile = join(config.dataDir, "panel.db");
  if (existsSync(dbFile)) {
    const db = new DatabaseSync(dbFile, { readOnly: true });
    try {
      for (const r of db.prepare("SELECT username FROM users").all() as { username: string }[]) {
        names.add(r.username.toLowerCase());
      }
      const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'servers'").get();
      const rows = table
        ? db.prepare("SELECT id, name, root FROM servers ORDER BY id").all() as {
          id: number;
          name: string;
          root: string;
        }[]
        : [];
      for (const r of rows) {
        if (r.id === 1) servers[0].name = r.name;
        else servers.push({ name: r.name, root: r.root });
      }
    } finally {
      db.close();
    }
  }
  return {
    userExists: (u) => names.has(u.toLowerCase()),
    serverFolder: (dir) => folderAsServer(dir, servers),
    packsDir: join(config.dataDir, PACKS),
    portalLoggedIn: () => existsSync(join(config.dataDir, "mod-portal.json")),
  };
}

export function importFsm(ctx: AppContext, src: FsmSource, add: AddServer): Promise<FsmImportReport> {
  return applyFsmImport(
    src,
    {
      userExists: (u) => ctx.accounts.users.byName(u) !== undefined,
      addUser: (u) => ctx.accounts.users.insert(u, ctx.now()),
      packsDir: join(ctx.config.dataDir, PACKS),
      portalLoggedIn: () => ctx.portal.loggedIn(),
      savePortalCredentials: (username, token) => ctx.portal.saveToken(username, token),
      ...serverTargets(ctx, add),
    },
    async (from, to) => {
      await ctx.mods.packs.importFolder(to.split("/").pop(), from);
    },
  );
}
