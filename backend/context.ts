// Builds everything the panel is made of (database, accounts, event bus, live channel, and the domain
// services of each area) from a Config. run.ts and the test harness both start from here, so tests run
// the same wiring as production. The live side (live.ts: the game, the /ws hub, players, push, alerts)
// is built by loadLive(): run.ts asks for it once the panel has answered its first request (the session
// check, the PWA's files: they need none of it); the services no first answer needs (services.ts) load a
// second later, or at the first request or import that needs one. Either loads at once for a request
// that needs it (app.ts).

import { join } from "node:path";
import type { Config } from "./config.ts";
import { createLogger, type Logger } from "./log.ts";
import { EventBus } from "./events.ts";
import { type Db, openDb } from "./store/db.ts";
import { Accounts, type GeneratedAdmin } from "./auth/accounts.ts";
import { ensureDir } from "./fsutil.ts";
import { removeStaleTempFiles } from "./tempfiles.ts";
import type { ServerState } from "../shared/api.ts";
import { startupProcesses } from "./factorio/game/liveness.ts";
import { type FactorioPaths, factorioPaths } from "./factorio/layout.ts";
import { ActivityLog } from "./activity/log.ts";
import { ApiTokens } from "./auth/tokens.ts";
import { Access } from "./auth/access.ts";
import { SecondFactor } from "./auth/secondfactor.ts";
import { Passkeys } from "./auth/passkeys.ts";
import type { Clock } from "./factorio/schedules/clock.ts";
import type { Services } from "./services.ts";
import type { Live } from "./live.ts";
import { liveModule, servicesModule } from "./modules.ts";

export interface AppContext {
  config: Config;
  log: Logger;
  bus: EventBus;
  db: Db;
  accounts: Accounts;
  /** Who did what (state-changing requests, console commands, sign-ins), kept --activity-days. */
  activity: ActivityLog;
  /** API tokens for scripts. */
  tokens: ApiTokens;
  /** Resolves a request's cookie or bearer token to a session; lists and revokes sessions. */
  access: Access;
  /** TOTP, recovery codes and the pending second sign-in step. */
  secondFactor: SecondFactor;
  passkeys: Passkeys;
  paths: FactorioPaths;
  // The live side (live.ts): reading one of these before loadLive() has finished is a programming error
  // (it throws). Only the session check and the PWA's files are answered before (app.ts).
  hub: Live["hub"];
  /** The game server process (start/stop/kill, status, console). Other areas use it as a GameControl. */
  game: Live["game"];
  /** One queue of game operations (start, stop, restart, backups, updates, scheduled tasks); kill skips it. */
  gameOps: Live["gameOps"];
  /** The admin, white and ban lists (the game's files), live over RCON while the game runs. */
  players: Live["players"];
  /** server-settings.json. */
  settings: Live["settings"];
  /** Web Push: VAPID keys, devices, and the notifier that alerts them on status changes. */
  push: Live["push"];
  /** Alerts: the dispatcher that fans "alert" bus events out to push devices and channels, and the channels. */
  alerts: Live["alerts"];
  /** Who played when, and the chat, from the game's console lines. */
  playerHistory: Live["playerHistory"];
  /** Builds the live side (once; run.ts asks for it right after the first answer). */
  loadLive(): Promise<void>;
  // The services of services.ts: reading one before loadServices() has finished is a programming error
  // (it throws). Routes of the lazily loaded areas read them only after it (app.ts).
  saves: Services["saves"];
  versions: Services["versions"];
  updater: Services["updater"];
  portal: Services["portal"];
  mods: Services["mods"];
  backups: Services["backups"];
  schedules: Services["schedules"];
  /** Loads and starts the services of services.ts (once; a second after start-up at the latest), after the live side. */
  loadServices(): Promise<void>;
  now: () => number;
  /** State of the game server; changes that need it stopped hold the game directory (game.whileStopped). */
  serverState: () => ServerState;
  /** Registers work to do on shutdown (in reverse order of registration). */
  onClose(fn: () => void | Promise<void>): void;
  close(): Promise<void>;
}

export interface ContextOptions {
  now?: () => number;
  /** Log to the file only (tests). */
  quiet?: boolean;
  /** Password of the first user; otherwise PANEL_ADMIN_PASSWORD or a generated one. */
  adminPassword?: string;
  /** The schedules' clock (tests move it by hand). */
  clock?: Clock;
  /** Free bytes in a folder, for the backups' space floor (tests stand in a full disk). */
  freeBytes?: (dir: string) => number | Promise<number>;
  /** Runs before the first user would be created (an import brings its own users). */
  beforeBootstrap?: (ctx: AppContext) => Promise<void>;
}

export interface Bootstrap {
  /** The first admin's generated password while it is unchanged (made by this start or an earlier one), to print. */
  generatedAdmin: GeneratedAdmin | null;
}

/** How long after start-up the services of services.ts load when no request asked for them first. */
const SERVICES_DELAY_MS = 1000;

export async function createContext(
  config: Config,
  opts: ContextOptions = {},
): Promise<{ ctx: AppContext; bootstrap: Bootstrap }> {
  // The machine's processes, for finding a game this panel did not start: main.ts started the `ps` before
  // it loaded the panel's modules (else it starts here and runs while the rest is built); the game server
  // (live.ts) awaits it.
  const processes = startupProcesses();
  ensureDir(config.dataDir, 0o700);
  const log = createLogger({ file: join(config.dataDir, "panel.log"), quiet: opts.quiet });
  const now = opts.now ?? Date.now;
  const bus = new EventBus(log);
  // Before anything writes: what a killed panel left half-written goes (it cannot be in use yet).
  // The saves folder on its own too: a mod's scenario is converted in saves/<mod>/ (two levels down).
  removeStaleTempFiles([join(config.dataDir, "mod-packs"), config.dataDir, config.factorioDir, join(config.factorioDir, "saves")], log);
  const db = openDb(join(config.dataDir, "panel.db"));
  const accounts = new Accounts(db, { bus, log, now, sessionDays: config.sessionDays, dataDir: config.dataDir });
  const activity = new ActivityLog(db, now, config.activityDays);
  const tokens = new ApiTokens(db, now);
  const access = new Access(accounts, tokens, bus, now);
  accounts.revokeTokens = (userId) => tokens.revokeAll(userId);
  const secondFactor = new SecondFactor(db, accounts, { now, log, requiredForAdmins: config.require2faAdmins });
  const passkeys = new Passkeys(db, now);
  secondFactor.extraMethods.push((userId) => (passkeys.count(userId) > 0 ? ["passkey"] : []));
  bus.on("console.command", (e) =>
    activity.record({
      username: e.username,
      via: e.via,
      address: e.address,
      userAgent: e.userAgent,
      action: "console",
      detail: e.text,
      status: e.allowed ? 200 : 403,
    })
  );
  const paths = factorioPaths(config);
  const closers: (() => void | Promise<void>)[] = [];
  let services: Services | null = null;
  let servicesTimer: ReturnType<typeof setTimeout> | null = null;
  let loading: Promise<void> | null = null;
  let closed = false;
  let live: Live | null = null;
  let liveLoading: Promise<void> | null = null;
  const alive = (): Live => {
    if (!live) throw new Error("The panel's live side is not loaded yet (AppContext.loadLive)");
    return live;
  };
  const loadLive = (): Promise<void> => {
    if (closed && !liveLoading) return Promise.reject(new Error("The panel is shutting down"));
    return liveLoading ??= liveModule().then(({ createLive }) =>
      createLive({
        config,
        log,
        bus,
        db,
        now,
        paths,
        processes,
        // The directory lease asks ctx.serverState (not the game directly), so area tests can pose a game state.
        serverState: () => ctx.serverState(),
        onClose: (fn) => closers.push(fn),
      })
    ).then((l) => {
      live = l;
    }, (e) => {
      log.error("The panel's live side (the game, /ws, push, alerts) could not start", { error: String(e?.stack ?? e) });
      throw e;
    });
  };
  const loaded = (): Services => {
    if (!services) throw new Error("The panel's services are not loaded yet (AppContext.loadServices)");
    return services;
  };
  const loadServices = (): Promise<void> => {
    // Not after shutdown began: the database and the game are going away.
    if (closed && !loading) return Promise.reject(new Error("The panel is shutting down"));
    return loading ??= Promise.all([servicesModule(), loadLive()]).then(([{ createServices }]) =>
      createServices({
        config,
        log,
        bus,
        db,
        hub: ctx.hub,
        game: ctx.game,
        gameOps: ctx.gameOps,
        paths,
        now,
        serverState: () => ctx.serverState(),
        onClose: (fn) => closers.push(fn),
        clock: opts.clock,
        freeBytes: opts.freeBytes,
      })
    ).then((s) => {
      services = s;
    }, (e) => {
      // Kept as it is, not tried again: a second try would subscribe the first one's listeners twice.
      log.error("The panel's services could not start", { error: String(e?.stack ?? e) });
      throw e;
    });
  };
  const ctx: AppContext = {
    config,
    log,
    bus,
    db,
    accounts,
    activity,
    tokens,
    access,
    secondFactor,
    passkeys,
    paths,
    get hub() {
      return alive().hub;
    },
    get game() {
      return alive().game;
    },
    get gameOps() {
      return alive().gameOps;
    },
    get players() {
      return alive().players;
    },
    get settings() {
      return alive().settings;
    },
    get push() {
      return alive().push;
    },
    get alerts() {
      return alive().alerts;
    },
    get playerHistory() {
      return alive().playerHistory;
    },
    loadLive,
    get saves() {
      return loaded().saves;
    },
    get versions() {
      return loaded().versions;
    },
    get updater() {
      return loaded().updater;
    },
    get portal() {
      return loaded().portal;
    },
    get mods() {
      return loaded().mods;
    },
    get backups() {
      return loaded().backups;
    },
    get schedules() {
      return loaded().schedules;
    },
    loadServices,
    now,
    serverState: () => alive().game.state,
    onClose: (fn) => closers.push(fn),
    close: async () => {
      if (closed) return;
      closed = true;
      clearTimeout(servicesTimer ?? undefined);
      // The live side and services still loading register their shutdown steps when they are built:
      // wait for that.
      await liveLoading?.catch(() => {});
      await loading?.catch(() => {});
      for (const fn of closers.reverse()) {
        try {
          await fn();
        } catch (e) {
          log.error("Shutdown step failed", { error: String(e) });
        }
      }
    },
  };

  // Before the live side and the services can load, so that their shutdown steps (registered when they
  // are built) run first and the database closes last.
  ctx.onClose(() => db.close());

  if (opts.beforeBootstrap) {
    await loadServices();
    await opts.beforeBootstrap(ctx);
  }
  const generatedAdmin = await accounts.bootstrap(opts.adminPassword ?? Deno.env.get("PANEL_ADMIN_PASSWORD"));
  activity.sweep();
  // Before the database closes (closers run in reverse order): the last counts of refused sign-ins.
  ctx.onClose(() => activity.flush());

  // Expired sessions are refused on use anyway; the sweep keeps the table small and ends their sockets.
  const sweep = setInterval(() => {
    accounts.sweepExpired();
    activity.sweep();
  // Before the database closes (closers run in reverse order): the last counts of refused sign-ins.
  ctx.onClose(() => activity.flush());
    tokens.sweep();
    secondFactor.sweep();
    // Sockets opened with an API token carry "token:<id>" as their session id.
    live?.hub.sweep((id) =>
      id.startsWith("token:") ? tokens.live(Number(id.slice(6))) : accounts.sessions.get(id) !== undefined
    );
  }, 10 * 60_000);
  ctx.onClose(() => clearInterval(sweep));

  // The services no first answer needs load a second after start-up (schedules, the update check and
  // a first-start install begin then), or earlier at the first request that needs one (app.ts).
  servicesTimer = setTimeout(() => void loadServices().catch(() => {}), SERVICES_DELAY_MS);

  return { ctx, bootstrap: { generatedAdmin } };
}
