// Where an import from the old panel lands in this one: the users table, the mod packs folder and the mod
// portal credentials, through the same stores the panel itself uses.

import { existsSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import type { Config } from "../boot/config.ts";
import type { AppContext } from "../boot/context.ts";
import { applyFsmImport, type FsmImportReport, type FsmImportTargets, type FsmSource } from "./fsm.ts";

const PACKS = "mod-packs";

/** Targets for a dry run: what is there already, read without changing (or creating) anything. */
export function dryRunTargets(
  config: Config,
): Pick<FsmImportTargets, "userExists" | "packsDir" | "portalLoggedIn"> {
  const names = new Set<string>();
  const dbFile = join(config.dataDir, "panel.db");
  if (existsSync(dbFile)) {
    const db = new DatabaseSync(dbFile, { readOnly: true });
    try {
      for (const r of db.prepare("SELECT username FROM users").all() as { username: string }[]) {
        names.add(r.username.toLowerCase());
      }
    } finally {
      db.close();
    }
  }
  return {
    userExists: (u) => names.has(u.toLowerCase()),
    packsDir: join(config.dataDir, PACKS),
    portalLoggedIn: () => existsSync(join(config.dataDir, "mod-portal.json")),
  };
}

export function importFsm(ctx: AppContext, src: FsmSource): Promise<FsmImportReport> {
  return applyFsmImport(
    src,
    {
      userExists: (u) => ctx.accounts.users.byName(u) !== undefined,
      addUser: (u) => ctx.accounts.users.insert(u, ctx.now()),
      packsDir: join(ctx.config.dataDir, PACKS),
      portalLoggedIn: () => ctx.portal.loggedIn(),
      savePortalCredentials: (username, token) => ctx.portal.saveToken(username, token),
    },
    async (from, to) => {
      await ctx.mods.packs.importFolder(to.split("/").pop(), from);
    },
  );
}
