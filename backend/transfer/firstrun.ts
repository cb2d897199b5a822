// The first-run import: what the empty panel's admin can take over from the browser, through the same code
// as the command line (migrate/fsm.ts for the old panel's directory, apply.ts for an export archive).
// Only while the panel is fresh (panelIsFresh): a set-up panel is never overwritten from here.

import { join } from "node:path";
import type { AppContext } from "../boot/context.ts";
import { Conflict, Invalid } from "../lib/errors.ts";
import {
  applyFsmImport,
  describeFsmImport,
  FsmImportError,
  type FsmSource,
  planFsmImport,
  readFsm,
} from "../migrate/fsm.ts";
import { openArchive, type OpenedArchive } from "./archive.ts";
import { type AddServer, serverTargets } from "../migrate/targets.ts";
import type { ServerImport } from "./serverimport.ts";
import { applyImport, describeImport, ImportRefused } from "./apply.ts";
import { panelIsFresh, requireFresh } from "./fresh.ts";
import type { Role } from "../../shared/api.ts";
import { ArchiveError } from "./format.ts";
import { INITIAL_PASSWORD_FILE } from "../auth/accounts.ts";
import { rmSync } from "node:fs";
import type { ImportResult } from "../../shared/transfer.ts";
import { TRANSFER_MSG } from "../../shared/transfer.ts";

export { requireFresh };

function readOld(dir: unknown): FsmSource {
  if (typeof dir !== "string" || dir.trim() === "") throw new Invalid(TRANSFER_MSG.dirRequired);
  try {
    return readFsm(dir.trim());
  } catch (e) {
    if (e instanceof FsmImportError) throw new Invalid(TRANSFER_MSG.oldPanelUnusable(e.message));
    throw e;
  }
}

/**
 * Where the old panel's users land. The first-start admin (fresh panel) is taken over by an old user of
 * the same name: its old password replaces the generated one (its other sessions end; the importing one stays).
 */
function fsmTargets(ctx: AppContext, add: AddServer, replaced: { value: boolean }, keepSession?: string) {
  const firstAdmin = panelIsFresh(ctx) ? ctx.accounts.users.byName("admin") : undefined;
  const isFirst = (name: string) => firstAdmin !== undefined && name.toLowerCase() === "admin";
  return {
    userExists: (u: string) => !isFirst(u) && ctx.accounts.users.byName(u) !== undefined,
    addUser: (u: { username: string; passwordHash: string; role: Role; email: string }) => {
      if (isFirst(u.username) && firstAdmin) {
        const now = ctx.now();
        ctx.accounts.users.setPassword(firstAdmin.id, u.passwordHash, now);
        ctx.accounts.users.setRole(firstAdmin.id, u.role, now);
        ctx.db.prepare("UPDATE users SET email = ? WHERE id = ?").run(u.email, firstAdmin.id);
        ctx.bus.emit("sessions.revoked", {
          sessionIds: ctx.accounts.sessions.deleteForUser(firstAdmin.id, keepSession),
        });
        rmSync(join(ctx.config.dataDir, INITIAL_PASSWORD_FILE), { force: true });
        replaced.value = true;
      } else ctx.accounts.users.insert(u, ctx.now());
    },
    packsDir: join(ctx.config.dataDir, "mod-packs"),
    portalLoggedIn: () => ctx.portal.loggedIn(),
    savePortalCredentials: (username: string, token: string) => ctx.portal.saveToken(username, token),
    ...serverTargets(ctx, add),
  };
}

export function previewOldPanel(ctx: AppContext, dir: unknown, add: AddServer): ImportResult {
  requireFresh(ctx);
  const src = readOld(dir);
  return {
    lines: describeFsmImport(src, planFsmImport(src, fsmTargets(ctx, add, { value: false })), true),
    passwords: [],
    admin_password_replaced: false,
  };
}

export async function importOldPanel(
  ctx: AppContext,
  dir: unknown,
  add: AddServer,
  keepSession?: string,
): Promise<ImportResult> {
  requireFresh(ctx);
  const src = readOld(dir);
  const replaced = { value: false };
  const report = await applyFsmImport(src, fsmTargets(ctx, add, replaced, keepSession), async (from, to) => {
    await ctx.mods.packs.importFolder(to.split("/").pop(), from);
  });
  ctx.log.info("Imported the old panel", { dir: src.dir });
  return {
    lines: describeFsmImport(src, report, false),
    passwords: [],
    admin_password_replaced: replaced.value,
  };
}

/**
 * Imports an uploaded archive (a temp file the caller removes afterwards); it is checked whole first. One
 * server's archive becomes a new server (`addServer`); a whole panel's goes into a fresh panel only, and
 * not at all with `only: "server"` (POST /api/servers/import).
 */
export async function importArchiveFile(
  ctx: AppContext,
  file: string,
  keepSession: string | undefined,
  addServer: (a: OpenedArchive) => Promise<ServerImport>,
  only?: "server",
): Promise<ImportResult> {
  let a;
  try {
    a = await openArchive(file);
  } catch (e) {
    if (e instanceof ArchiveError) throw new Invalid(TRANSFER_MSG.archiveUnusable(e.message));
    throw e;
  }
  try {
    if (a.manifest.server) {
      const added = await addServer(a);
      return { lines: added.lines, passwords: [], admin_password_replaced: false, server: added.id };
    }
    if (only === "server") throw new Invalid(TRANSFER_MSG.panelArchive);
    requireFresh(ctx);
    const r = await ctx.gameOps.run("import", () => applyImport(ctx, a, { merge: false, keepSession }));
    // The passwords go in their own list: the page shows them once, apart from the summary.
    return {
      lines: describeImport(a, { ...r, passwords: [] }, false),
      passwords: r.passwords,
      admin_password_replaced: r.adminPasswordReplaced,
    };
  } catch (e) {
    if (e instanceof ImportRefused) throw new Conflict(e.message);
    if (e instanceof ArchiveError) throw new Invalid(TRANSFER_MSG.archiveUnusable(e.message));
    throw e;
  } finally {
    await a.close();
  }
}
