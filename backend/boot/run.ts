// The panel's command (main.ts runs it): read the configuration, build the panel, serve it, and shut
// down cleanly on a signal. Stopping the panel never stops the game: the game server runs on its own.

import { existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "./config.ts";
import { type AppContext, createContext } from "./context.ts";
import { createApp } from "../http/app.ts";
import { addServerNow } from "../http/servers.ts";
import { INITIAL_PASSWORD_FILE } from "../auth/accounts.ts";
import { StartupError } from "../lib/errors.ts";
import { describeFsmImport, FsmImportError, type FsmSource, planFsmImport, readFsm } from "../migrate/fsm.ts";
import { dryRunTargets, importFsm } from "../migrate/targets.ts";
import { exportCommand, importBeforeStart, openImport } from "../transfer/cli.ts";
import type { OpenedArchive } from "../transfer/archive.ts";
import { type CertificateServer, serveWithCertificates } from "../https/listener.ts";
import { generatedPasswordLines, lowPortHint, startupLines } from "./startup.ts";

/** The machine's addresses; an empty list where the system will not tell (the panel still starts). */
function networkInterfaces(): { family: string; address: string; internal?: boolean }[] {
  try {
    return Deno.networkInterfaces().map((i) => ({
      family: i.family,
      address: i.address,
      internal: i.address.startsWith("127."),
    }));
  } catch {
    return [];
  }
}

export async function main(): Promise<number> {
  let result;
  try {
    result = loadConfig(Deno.args, Deno.env.toObject());
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`factorio-panel: ${e.message}`);
      return 2;
    }
    throw e;
  }
  if (result.kind === "help") {
    console.log(result.text);
    return 0;
  }
  const config = result.config;
  for (const warning of result.warnings) console.error(`factorio-panel: ${warning}`);
  if (config.exportFile) return await exportCommand(config, config.exportFile);
  let archive: OpenedArchive | null = null;
  if (config.importFile) {
    const opened = await openImport(config, config.importFile);
    if (typeof opened === "number") return opened;
    archive = opened;
  }
  let fsm: FsmSource | null = null;
  if (config.importFsm) {
    try {
      fsm = readFsm(config.importFsm);
    } catch (e) {
      if (!(e instanceof FsmImportError)) throw e;
      console.error(`factorio-panel: nothing was imported. ${e.message}`);
      return 1;
    }
  }
  if (config.dryRun) {
    if (!fsm) {
      console.error("factorio-panel: --dry-run needs --import-fsm DIR or --import FILE");
      return 2;
    }
    console.log(describeFsmImport(fsm, planFsmImport(fsm, dryRunTargets(config)), true).join("\n"));
    return 0;
  }
  const imports = async (ctx: AppContext) => {
    if (fsm) {
      const report = await importFsm(ctx, fsm, (body) => addServerNow(ctx, body));
      console.log(describeFsmImport(fsm, report, false).join("\n"));
    }
    if (archive) await importBeforeStart(ctx, archive);
  };
  let made;
  try {
    made = await createContext(config, { beforeBootstrap: fsm || archive ? imports : undefined });
  } catch (e) {
    if (e instanceof StartupError) {
      console.error(`factorio-panel: ${e.message}`);
      return 1;
    }
    throw e;
  }
  const { ctx, bootstrap } = made;
  const { app } = createApp(ctx);
  // The certificate before listening (kept, read from --https-cert/--https-key, or got now): the first
  // answer is then over HTTPS already. The alerts listen by now, so a failed first issuance alerts; the
  // panel then serves plain HTTP and moves to HTTPS when a later try succeeds (https/listener.ts).
  try {
    await ctx.https.start();
  } catch (e) {
    console.error(`factorio-panel: ${(e as Error).message}`);
    await ctx.close();
    return 1;
  }

  let stopping = false;
  let server: CertificateServer | undefined;
  /** Stops answering: lets the requests in hand finish, for 5 s at most. */
  const closeServer = async () => {
    if (server) {
      await Promise.race([
        server.shutdown().catch(() => {}),
        new Promise<void>((r) => setTimeout(r, 5000)),
      ]);
    }
  };
  // Heard before the panel says it listens: a SIGTERM sent as soon as it does (a service manager, a
  // test) must shut it down cleanly, not end it as the signal's default would.
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    if (config.stopGameOnExit && ctx.game.state !== "stopped") {
      ctx.log.info(`Received ${signal}: saving and stopping the game, then shutting down`);
      await ctx.game.stop().catch((e) => ctx.log.error("Could not stop the game", { error: String(e) }));
    } else {
      ctx.log.info(`Received ${signal}, shutting down (the game server keeps running)`);
    }
    ctx.hub.closeAll();
    await closeServer();
    await ctx.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
  try {
    server = serveWithCertificates({
      handler: app.fetch,
      certificates: ctx.https,
      bus: ctx.bus,
      hostname: config.bind,
      port: config.port,
      openWebSockets: () => ctx.hub.clientCount,
      log: ctx.log,
    });
  } catch (e) {
    const why = e instanceof Deno.errors.AddrInUse
      ? `port ${config.port} is already in use (choose another with --port)`
      : e instanceof Deno.errors.PermissionDenied
      ? `not allowed to listen on ${config.bind}:${config.port}${
        config.port > 0 && config.port < 1024 ? `. ${lowPortHint()}` : ""
      }`
      : (e as Error).message;
    console.error(`factorio-panel: cannot listen on ${config.bind}:${config.port}: ${why}`);
    if (bootstrap.generatedAdmin) {
      console.error(
        `The admin's generated password is in ${
          join(config.dataDir, INITIAL_PASSWORD_FILE)
        }; the next start prints it too.`,
      );
    }
    await ctx.close();
    return 1;
  }
  const port = server.addr.port;
  const scheme = server.served() ? "https" : "http";
  const https = ctx.https.state();
  console.log(
    startupLines({
      scheme,
      https: https.mode === "off" ? undefined : {
        names: https.mode === "acme" ? https.acme.domains : [],
        waiting: scheme === "http" ? https.last_error?.message ?? "not got yet" : null,
        plainHttpPort: config.acmeHttpPort,
        plainHttpProblem: ctx.https.plainHttpProblem(),
      },
      bind: config.bind,
      port,
      interfaces: networkInterfaces(),
      factorioDir: config.factorioDir,
      // The game's own paths: a version the panel installed lives under <factorio-dir>/versions.
      factorioBinary: ctx.paths.binary,
      binaryFound: existsSync(ctx.paths.binary),
    }).join("\n"),
  );
  ctx.log.info("Listening", { bind: config.bind, port, scheme });
  if (bootstrap.generatedAdmin) {
    console.log(
      generatedPasswordLines(bootstrap.generatedAdmin, join(config.dataDir, INITIAL_PASSWORD_FILE)).join(
        "\n",
      ),
    );
  }

  try {
    await server.finished;
    return 0;
  } catch (e) {
    // Deno's server stops for good when accepting a connection fails (out of open files: "Too many open
    // files (os error 24)"); it has closed its connections by then. The panel ends, and the launcher
    // starts it again; the game keeps running and is found again then.
    if (stopping) return 0;
    stopping = true;
    const why = (e as Error)?.message ?? String(e);
    if (!/os error 24|too many open files/i.test(why) || outOfFilesNotSaidLately(config.dataDir)) {
      ctx.log.error(`The web server stopped (${why}); the panel ends, to be started again`);
    }
    await ctx.close();
    return 1;
  }
}

/**
 * Out of open files is logged at most once a minute, across the restarts a flood causes too: the time it
 * was last said is the modification time of a marker file in the data dir.
 */
function outOfFilesNotSaidLately(dataDir: string): boolean {
  const marker = join(dataDir, ".out-of-files-logged");
  try {
    if (Date.now() - (statSync(marker, { throwIfNoEntry: false })?.mtimeMs ?? 0) < 60_000) return false;
    writeFileSync(marker, "");
  } catch {
    // Said, then, rather than not at all.
  }
  return true;
}
