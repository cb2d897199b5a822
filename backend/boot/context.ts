// Builds everything the panel is made of, in order, from a Config: the logger, event bus, database and
// accounts; the game server, the /ws hub, players, settings, push and alerts; then saves, versions, mods,
// backups and schedules. run.ts and the test harness both start from here, so tests run the same wiring
// as production. Everything is built before the panel listens; a part that cannot be built ends the start
// with one line naming it (StartupError), after what was built is let go of.

import { join } from "node:path";
import type { Config } from "./config.ts";
import { createLogger, type Logger } from "../lib/log.ts";
import { EventBus } from "../lib/events.ts";
import { type Db, openDb } from "../store/db.ts";
import { Accounts, type GeneratedAdmin } from "../auth/accounts.ts";
import { ensureDir } from "../lib/fsutil.ts";
import { removeStaleTempFiles } from "./tempfiles.ts";
import { listProcesses } from "../factorio/game/liveness.ts";
import type { FactorioPaths } from "../factorio/layout.ts";
import { ActivityLog } from "../activity/log.ts";
import { ApiTokens } from "../auth/tokens.ts";
import { Access } from "../auth/access.ts";
import { SecondFactor } from "../auth/secondfactor.ts";
import { Passkeys } from "../auth/passkeys.ts";
import { StartupError } from "../lib/errors.ts";
import { Hub } from "../ws/hub.ts";
import { connectServersToHub } from "../factorio/game/hub.ts";
import { Servers } from "../servers/service.ts";
import { PUSH_MSG } from "../../shared/messages.ts";
import type { Server } from "../servers/build.ts";
import type { SessionInfo } from "../auth/accounts.ts";
import type { Role, ServerState } from "../../shared/api.ts";
import { FIRST_SERVER } from "../../shared/contract/servers.ts";
import { ServerStore } from "../servers/store.ts";
import type { GameOps } from "../factorio/game/ops.ts";
import type { GameServer } from "../factorio/game/supervisor.ts";
import type { Players } from "../factorio/players/lists.ts";
import type { ServerSettings } from "../factorio/settings/serversettings.ts";
import type { PlayerHistory } from "../factorio/players/history.ts";
import type { Saves } from "../factorio/saves/service.ts";
import type { Updater } from "../factorio/versions/update.ts";
import type { ModManager } from "../factorio/mods/manager.ts";
import type { Clock } from "../factorio/schedules/clock.ts";
import { PushService } from "../push/service.ts";
import { Alerts } from "../alerts/service.ts";
import type { FactorioVersions } from "../factorio/versions/service.ts";
import { ModPortal } from "../factorio/mods/portal.ts";
import type { Backups } from "../factorio/backups/service.ts";
import type { Scheduler } from "../factorio/schedules/scheduler.ts";
import { CertificateManager } from "../https/manager.ts";
import type { Health } from "../health/service.ts";

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
  /** The HTTPS certificate: ACME, --https-cert/--https-key, or the local CA (https/manager.ts). run.ts
   * starts it (after the alerts listen, so a failed first issuance alerts) and serves with it. */
  https: CertificateManager;
  hub: Hub;
  /** The game server process (start/stop/kill, status, console). Other areas use it as a GameControl. */
  game: GameServer;
  /** One queue of game operations (start, stop, restart, backups, updates, scheduled tasks); kill skips it. */
  gameOps: GameOps;
  /** The admin, white and ban lists (the game's files), live over RCON while the game runs. */
  players: Players;
  /** server-settings.json. */
  settings: ServerSettings;
  /** Web Push: VAPID keys, devices, and the notifier that alerts them on status changes. */
  push: PushService;
  /** Alerts: the dispatcher that fans "alert" bus events out to push devices and channels, and the channels. */
  alerts: Alerts;
  /** Who played when, and the chat, from the game's console lines. */
  playerHistory: PlayerHistory;
  saves: Saves;
  /** Game versions from factorio.com: install, activate, delete, update check. */
  versions: FactorioVersions;
  /** Update (& restart) of the game to another version, with rollback. */
  updater: Updater;
  /** The Factorio mod portal and auth server (token owner-only in the data dir). */
  portal: ModPortal;
  /** Installed mods, portal installs and updates, mod packs. */
  mods: ModManager;
  backups: Backups;
  schedules: Scheduler;
  /** Server health: the sampler (CPU, memory, disk, players, UPS), its points and alerts, the public status choices. */
  health: Health;
  /** Every Factorio server of the panel; the fields above are server 1's (the old addresses lead there). */
  servers: Servers;
  /** The caller's role on a server; null: they may not see it (per-server routes answer 404). */
  roleOn: (session: SessionInfo, serverId: number) => Role | null;
  now: () => number;
  /** State of the game server; changes that need it stopped hold the game directory (game.whileStopped). */
  serverState: () => ServerState;
  /** Registers work to do on shutdown (in reverse order of registration). */
  onClose(fn: () => void | Promise<void>): void;
  close(): Promise<void>;
}

/**
 * The context a server's routes see: the panel's, with that server's parts (its configuration, bus,
 * game, saves, mods ...). Server 1's is the panel context itself.
 */
export function serverContext(ctx: AppContext, server: Server): AppContext {
  if (server === ctx.servers.first) return ctx;
  const { id: _id, ref: _ref, record: _record, close: _close, ...parts } = server;
  return { ...ctx, ...parts, serverState: server.serverState };
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

/** Runs the shutdown steps, the last registered first; a step that fails is logged and the rest still run. */
async function runClosers(closers: (() => void | Promise<void>)[], log: Logger | null): Promise<void> {
  for (const fn of closers.splice(0).reverse()) {
    try {
      await fn();
    } catch (e) {
      log?.error("Shutdown step failed", { error: String(e) });
    }
  }
}

export async function createContext(
  config: Config,
  opts: ContextOptions = {},
): Promise<{ ctx: AppContext; bootstrap: Bootstrap }> {
  const closers: (() => void | Promise<void>)[] = [];
  const onClose = (fn: () => void | Promise<void>) => void closers.push(fn);
  let logger: Logger | null = null;
  /** `make()`, or the start ends naming `what` (a StartupError already says what it is about). */
  const build = async <T>(what: string, make: () => T | Promise<T>): Promise<T> => {
    try {
      return await make();
    } catch (e) {
      // What was built so far is let go of (the database closed, the game detached, timers cleared).
      await runClosers(closers, logger);
      if (e instanceof StartupError) throw e;
      throw new StartupError(`could not start: ${what}: ${(e as Error)?.message ?? String(e)}`);
    }
  };

  // The machine's processes, for finding a game this panel did not start; listed while the rest is built.
  const processes = listProcesses();
  processes.catch(() => {});
  const now = opts.now ?? Date.now;
  const core = await build("the data directory", () => {
    ensureDir(config.dataDir, 0o700);
    const logger = createLogger({ file: join(config.dataDir, "panel.log"), quiet: opts.quiet });
    // Before anything writes: what a killed panel left half-written goes (it cannot be in use yet).
    // The saves folder on its own too: a mod's scenario is converted in saves/<mod>/ (two levels down).
    removeStaleTempFiles([
      join(config.dataDir, "mod-packs"),
      config.dataDir,
      config.factorioDir,
      join(config.factorioDir, "saves"),
    ], logger);
    return { logger, db: openDb(join(config.dataDir, "panel.db")) };
  });
  const log = logger = core.logger;
  const db = core.db;
  // Closed last (shutdown steps run in reverse).
  onClose(() => db.close());
  const bus = new EventBus(log);
  const accounts = new Accounts(db, {
    bus,
    log,
    now,
    sessionDays: config.sessionDays,
    dataDir: config.dataDir,
    // Asked on requests only, once the servers below are built.
    serverExists: (id) => servers.get(id) !== null,
  });
  const activity = new ActivityLog(db, now, config.activityDays);
  // Before the database closes: the last counts of refused sign-ins.
  onClose(() => activity.flush());
  const tokens = new ApiTokens(db, now);
  const access = new Access(accounts, tokens, bus, now);
  accounts.revokeTokens = (userId) => tokens.revokeAll(userId);
  const secondFactor = new SecondFactor(db, accounts, {
    now,
    log,
    requiredForAdmins: config.require2faAdmins,
  });
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
    }));
  // The live side: the /ws hub, push and alerts listening before the games are looked for (a game found
  // ended at start-up is announced too), then the servers and what reads them.
  const hub = new Hub(bus, log);
  const push = await build("push notifications", () => PushService.open({ config, db, log, now }));
  onClose(() => push.close());
  const alerts = await build(
    "alerts",
    () =>
      new Alerts({
        config,
        bus,
        log,
        db,
        now,
        push: push.notifier,
        diskPaths: [join(config.factorioDir, "saves"), config.dataDir],
      }),
  );
  onClose(() => alerts.close());
  // Built after the alerts, which turn its failures into alerts; started by run.ts before it listens.
  const https = new CertificateManager({ config, bus, log, now });
  onClose(() => https.close());

  const portal = new ModPortal({
    portalUrl: config.modPortalUrl,
    authUrl: config.authUrl,
    listCacheMs: config.modPortalCacheMinutes * 60_000,
    dataDir: config.dataDir,
    maxDownloadBytes: config.maxUploadMb * 1024 * 1024,
    log,
    now,
  });
  // The Factorio servers: server 1 is --factorio-dir, the others are in the registry (servers/).
  const servers = new Servers({
    panel: {
      config,
      log,
      db,
      bus,
      hub,
      portal,
      now,
      processes,
      clock: opts.clock,
      freeBytes: opts.freeBytes,
    },
    store: new ServerStore(db),
    log,
  });
  // Let go of first at shutdown: the games keep running and the next panel process finds them.
  onClose(() => servers.close());
  onClose(() => hub.closeAll());
  await servers.start(build);
  const first = servers.first;
  // A new game version found by the update check is an alert like any other (the first server's check
  // speaks for the shared downloads; the others' would say the same).
  bus.on("factorio.versions", (m, server) => {
    if (m.kind !== "update-available" || (server && server.id !== FIRST_SERVER)) return;
    bus.emit("alert", {
      kind: "factorio-update",
      title: PUSH_MSG.titleUpdate,
      body:
        `Factorio ${m.info.latest} is out (${m.info.channel}); the server has ${m.info.current}. Update it from Controls.`,
      key: m.info.latest,
      url: "/",
    });
  });
  connectServersToHub(servers, hub);
  // Who may see which server: admins every one, others where they have a role (auth/access.ts).
  const roleOn = (session: SessionInfo, serverId: number): Role | null => access.roleOn(session, serverId);
  hub.roleOn = roleOn;
  const serverExists = (id: number) => servers.get(id) !== null;
  const canSee = (userId: number, serverId: number) => {
    const user = accounts.users.byId(userId);
    if (!user || !serverExists(serverId)) return false;
    return user.role === "admin" || accounts.users.serverRoles(userId).has(serverId);
  };
  Object.assign(alerts.servers, { serverExists, serverName: (id: number) => servers.nameOf(id), canSee });
  Object.assign(push.servers, { serverExists, canSee });

  // Expired sessions are refused on use anyway; the sweep keeps the tables small and ends their sockets.
  const sweep = setInterval(() => {
    accounts.sweepExpired();
    activity.sweep();
    tokens.sweep();
    secondFactor.sweep();
    // Sockets opened with an API token carry "token:<id>" as their session id.
    hub.sweep((id) =>
      id.startsWith("token:") ? tokens.live(Number(id.slice(6))) : accounts.sessions.get(id) !== undefined
    );
  }, 10 * 60_000);
  onClose(() => clearInterval(sweep));

  let closed = false;
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
    https,
    hub,
    push,
    alerts,
    portal,
    servers,
    roleOn,
    // Server 1's parts: the old addresses (/api/R) and the panel-wide areas (import, export) use them.
    paths: first.paths,
    game: first.game,
    gameOps: first.gameOps,
    players: first.players,
    settings: first.settings,
    playerHistory: first.playerHistory,
    saves: first.saves,
    versions: first.versions,
    updater: first.updater,
    mods: first.mods,
    backups: first.backups,
    schedules: first.schedules,
    health: first.health,
    serverState: first.serverState,
    now,
    onClose,
    close: async () => {
      if (closed) return;
      closed = true;
      await runClosers(closers, log);
    },
  };
  // Tests pose a game state on the context: it is server 1's.
  Object.defineProperty(ctx, "serverState", {
    get: () => first.serverState,
    set: (fn: () => ServerState) => void (first.serverState = fn),
  });

  // An import brings its own users (and writes through the services above).
  if (opts.beforeBootstrap) await build("the import", () => opts.beforeBootstrap!(ctx));
  const generatedAdmin = await build(
    "the first admin",
    () => accounts.bootstrap(opts.adminPassword ?? Deno.env.get("PANEL_ADMIN_PASSWORD")),
  );
  activity.sweep();
  // --factorio-version: a scripted setup gets its game on the first start (progress in the panel log).
  if (config.factorioVersion && !first.versions.gameFound()) {
    log.info("No game found: installing Factorio", { version: config.factorioVersion });
    first.versions.install(config.factorioVersion, { activate: true }).catch((e) =>
      log.error("The first-start install could not start", { error: String(e) })
    );
  }
  return { ctx, bootstrap: { generatedAdmin } };
}
