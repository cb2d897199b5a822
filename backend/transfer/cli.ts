// The command-line side of export and import: `--export FILE` (writes, prints, exits), `--import FILE`
// (checks the whole archive before the panel is built; with --dry-run prints the plan and exits; else
// run.ts imports it before the first user would be created, then starts as usual).

import { existsSync } from "node:fs";
import type { Config } from "../boot/config.ts";
import type { AppContext } from "../boot/context.ts";
import { StartupError } from "../lib/errors.ts";
import { describeExport, ExportError, exportPanel } from "./export.ts";
import { describeServerExport, exportServer } from "./serverexport.ts";
import { openArchive, type OpenedArchive } from "./archive.ts";
import { ArchiveError } from "./format.ts";
import { applyImport, describeImport, ImportRefused, planImport } from "./apply.ts";
import { dryRunTarget } from "./dryrun.ts";
import { TRANSFER_MSG } from "../../shared/transfer.ts";

/** `--export FILE`: the exit code. */
export async function exportCommand(config: Config, file: string): Promise<number> {
  try {
    if (config.exportServer) {
      const m = await exportServer(config, file, config.exportServer, { backups: config.exportBackups });
      console.log(describeServerExport(file, m).join("\n"));
      return 0;
    }
    const m = await exportPanel(config, file, {
      secrets: config.exportSecrets,
      saves: config.exportSaves,
      backups: config.exportBackups,
    });
    console.log(describeExport(file, m).join("\n"));
    return 0;
  } catch (e) {
    if (
      !(e instanceof ExportError) && !(e instanceof Deno.errors.NotFound) &&
      !(e instanceof Deno.errors.PermissionDenied)
    ) throw e;
    console.error(`factorio-panel: nothing was exported. ${(e as Error).message}`);
    return 1;
  }
}

/** Opens and checks `--import FILE`; an exit code when the panel must not start. */
export async function openImport(config: Config, file: string): Promise<OpenedArchive | number> {
  if (!existsSync(file)) {
    console.error(`factorio-panel: nothing was imported. ${file} does not exist.`);
    return 1;
  }
  let a: OpenedArchive;
  try {
    a = await openArchive(file);
  } catch (e) {
    if (!(e instanceof ArchiveError)) throw e;
    console.error(`factorio-panel: nothing was imported. ${file}: ${e.message}`);
    return 1;
  }
  // Added as a server by a running panel only: a start with --import left in its command line would
  // add it again at every start.
  if (a.manifest.server) {
    console.error(
      `factorio-panel: nothing was imported. ${TRANSFER_MSG.serverArchive(a.manifest.server.name)}`,
    );
    await a.close();
    return 1;
  }
  if (config.dryRun) {
    console.log(describeImport(a, planImport(dryRunTarget(config), a), true).join("\n"));
    await a.close();
    return 0;
  }
  return a;
}

/** Runs in createContext's beforeBootstrap: imports, prints what it did. */
export async function importBeforeStart(ctx: AppContext, a: OpenedArchive): Promise<void> {
  try {
    console.log(
      describeImport(a, await applyImport(ctx, a, { merge: ctx.config.importMerge }), false).join("\n"),
    );
  } catch (e) {
    if (e instanceof ImportRefused || e instanceof ArchiveError) {
      throw new StartupError(`nothing was imported. ${e.message}`);
    }
    throw e;
  } finally {
    await a.close();
  }
}
