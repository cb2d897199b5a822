// The panel's command (main.ts loads it): read the configuration, build the panel, serve it, and shut
// down cleanly on a signal. Stopping the panel never stops the game: the game server runs on its own.

import { ConfigError, loadConfig } from "./config.ts";
import { createContext } from "./context.ts";
import { createApp } from "./app.ts";
import { INITIAL_PASSWORD_FILE } from "./auth/accounts.ts";
import { join } from "node:path";
import { Gate, type GateHandler, gateLimits } from "./serve/gate.ts";
import { StartupError } from "./errors.ts";
import type { FsmSource } from "./migrate/fsm.ts";
import { existsSync } from "node:fs";
import { generatedPasswordLines, startupLines } from "./startup.ts";
import { later } from "./later.ts";
import type { OpenedArchive } from "./transfer/archive.ts";
import { readServingModules } from "./modules.ts";

// --export, --import and --import-fsm load their modules only when given (by later(), see later.ts): an
// ordinary start does not read, load or compile them.
const transferCli = () => import(later("./transfer/cli.ts")) as Promise<typeof import("./transfer/cli.ts")>;
// (migrate/fsm.ts also serves the first-run import page, so Deno reads it at start anyway.)
const fsmImport = () => import("./migrate/fsm.ts");
const fsmTargets = () => import(later("./migrate/targets.ts")) as Promise<typeof import("./migrate/targets.ts")>;

/** How long after listening the live side is built when no request came first (see main()). */
const LIVE_DELAY_MS = 100;
/** Connections the panel holds at most while it builds the live side (a browser opens up to 6). */
const STARTING_CONNECTIONS = 32;

/** The machine's addresses; an empty list where the system will not tell (the panel still starts). */
function networkInterfaces(): { family: string; address: string; internal?: boolean }[] {
  try {
    return Deno.networkInterfaces().map((i) => ({ family: i.family, address: i.address, internal: i.address.startsWith("127.") }));
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
  if (config.exportFile) return await (await transferCli()).exportCommand(config, config.exportFile);
  let archive: OpenedArchive | null = null;
  if (config.importFile) {
    const opened = await (await transferCli()).openImport(config, config.importFile);
    if (typeof opened === "number") return opened;
    archive = opened;
  }
  let fsm: FsmSource | null = null;
  const migrate = config.importFsm ? await fsmImport() : null;
  if (config.importFsm && migrate) {
    try {
      fsm = migrate.readFsm(config.importFsm);
    } catch (e) {
      if (!(e instanceof migrate.FsmImportError)) throw e;
      console.error(`factorio-panel: nothing was imported. ${e.message}`);
      return 1;
    }
  }
  if (config.dryRun) {
    if (!fsm || !migrate) {
      console.error("factorio-panel: --dry-run needs --import-fsm DIR or --import FILE");
      return 2;
    }
    const { dryRunTargets } = await fsmTargets();
    console.log(migrate.describeFsmImport(fsm, migrate.planFsmImport(fsm, dryRunTargets(config)), true).join("\n"));
    return 0;
  }
  let made;
  try {
    made = await createContext(config, {
      // Only for an import: it loads the services an import writes through (context.ts), which an
      // ordinary start loads a second after it answers.
      beforeBootstrap: fsm || archive
        ? async (ctx) => {
          if (fsm && migrate) console.log(migrate.describeFsmImport(fsm, await (await fsmTargets()).importFsm(ctx, fsm), false).join("\n"));
          if (archive) await (await transferCli()).importBeforeStart(ctx, archive);
        }
        : undefined,
    });
  } catch (e) {
    if (e instanceof StartupError) {
      console.error(`factorio-panel: ${e.message}`);
      return 1;
    }
    throw e;
  }
  const { ctx, bootstrap } = made;
  const { app } = createApp(ctx);

  const tls = config.httpsCert && config.httpsKey
    ? { cert: Deno.readTextFileSync(config.httpsCert), key: Deno.readTextFileSync(config.httpsKey) }
    : undefined;
  const scheme: "http" | "https" = config.httpsCert ? "https" : "http";

  // The live side (the game, the sockets, players, push, alerts: live.ts) is built right after the panel
  // has answered its first request, or LIVE_DELAY_MS after it listens if none came: the first answers
  // (the session check, the PWA's files) need none of it, and its modules would otherwise load while the
  // first request waits. A request that needs it builds it at once (app.ts). With it, the modules of
  // everything else the panel loads while it serves are read (modules.ts). A part that cannot be built
  // or read ends the panel, as a failed start did before the panel listened.
  let stopping = false;
  // Unset until the panel listens; a signal before that has no server to shut down.
  let server: Gate | undefined;
  /** Stops answering: lets the requests in hand finish, for 5 s at most. */
  const closeServer = async () => {
    if (server) await Promise.race([server.shutdown(), new Promise<void>((r) => setTimeout(r, 5000))]);
  };
  const liveBuilt = Promise.withResolvers<void>();
  const buildLive = () => {
    clearTimeout(liveTimer);
    Promise.all([ctx.loadLive(), readServingModules()]).then(() => liveBuilt.resolve(), async (e) => {
      if (stopping) return;
      stopping = true;
      console.error(`factorio-panel: could not start: ${e instanceof Error ? e.message : String(e)}`);
      await closeServer();
      await ctx.close();
      Deno.exit(1);
    });
  };
  let answer: GateHandler = (req, info) => {
    answer = (r, i) => app.fetch(r, i);
    const res = app.fetch(req, info);
    const next = () => void setTimeout(buildLive, 0);
    Promise.resolve(res).then(next, next);
    return res;
  };

  // Heard before the panel says it listens: a SIGTERM sent as soon as it does (a service manager, a
  // test) must shut it down cleanly, not end it as the signal's default would.
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // A signal that comes before the live side is built builds it first (a few tens of ms): a game may be
    // running, which --stop-game-on-exit saves and stops, and what the live side holds is let go of in order.
    const live = await ctx.loadLive().then(() => true, () => false);
    if (live && config.stopGameOnExit && ctx.game.state !== "stopped") {
      ctx.log.info(`Received ${signal}: saving and stopping the game, then shutting down`);
      await ctx.game.stop().catch((e) => ctx.log.error("Could not stop the game", { error: String(e) }));
    } else {
      ctx.log.info(`Received ${signal}, shutting down (the game server keeps running)`);
    }
    if (live) ctx.hub.closeAll();
    await closeServer();
    await ctx.close();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => stop("SIGINT"));
  Deno.addSignalListener("SIGTERM", () => stop("SIGTERM"));
  try {
    server = new Gate({
      port: config.port,
      hostname: config.bind,
      tls,
      limits: gateLimits(config),
      log: ctx.log,
      handler: (req, info) => answer(req, info),
      onError: (err) => {
        ctx.log.error("Request failed", { error: String(err) });
        return new Response(JSON.stringify("Internal error"), { status: 500 });
      },
    });
    // Until the live side is built and the later modules read, a few connections at most: both read files
    // (keys, the game's records, the modules), which a flood holding every open file must not make fail.
    server.holdUntil(liveBuilt.promise, STARTING_CONNECTIONS);
    const port = server.addr.port;
    console.log(startupLines({
      scheme,
      bind: config.bind,
      port,
      interfaces: networkInterfaces(),
      factorioDir: config.factorioDir,
      // The game's own paths: a version the panel installed lives under <factorio-dir>/versions.
      factorioBinary: ctx.paths.binary,
      binaryFound: existsSync(ctx.paths.binary),
    }).join("\n"));
    ctx.log.info("Listening", { bind: config.bind, port, scheme });
    if (bootstrap.generatedAdmin) {
      console.log(generatedPasswordLines(bootstrap.generatedAdmin, join(config.dataDir, INITIAL_PASSWORD_FILE)).join("\n"));
    }
  } catch (e) {
    const why = e instanceof Deno.errors.AddrInUse
      ? `port ${config.port} is already in use (choose another with --port)`
      : e instanceof Deno.errors.PermissionDenied
      ? `not allowed to listen on ${config.bind}:${config.port}`
      : (e as Error).message;
    console.error(`factorio-panel: cannot listen on ${config.bind}:${config.port}: ${why}`);
    if (bootstrap.generatedAdmin) {
      console.error(`The admin's generated password is in ${join(config.dataDir, INITIAL_PASSWORD_FILE)}; the next start prints it too.`);
    }
    await ctx.close();
    return 1;
  }

  // (Armed before any request can be answered: that needs this function to return to the event loop.)
  const liveTimer = setTimeout(buildLive, LIVE_DELAY_MS);
  await server.finished;
  return 0;
}
