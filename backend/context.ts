// Builds everything the panel is made of (database, accounts, event bus, live channel, and the domain
// services of each area) from a Config. run.ts and the test harness both start from here, so tests run
// the same wiring as production.

import { join } from "./path.ts";
import type { Config } from "./config.ts";
import { createLogger, type Logger } from "./log.ts";
import { EventBus } from "./events.ts";
import { type Db, openDb } from "./store/db.ts";
import { Accounts } from "./auth/accounts.ts";
import { Hub } from "./ws/hub.ts";
import { ensureDir } from "./fsutil.ts";
import { PUSH_MSG } from "../shared/messages.ts";
import { removeStaleTempFiles } from "./tempfiles.ts";
import { LOAD_LATEST, type ServerState } from "../shared/api.ts";
import { GameServer } from "./factorio/game/supervisor.ts";
import { startupProcesses } from "./factorio/game/liveness.ts";
import { connectGameToHub } from "./factorio/game/hub.ts";
import { GameDirLease } from "./factorio/game/lease.ts";
import { GameOps } from "./factorio/game/ops.ts";
import { type FactorioPaths, factorioPaths } from "./factorio/layout.ts";
import { Players } from "./factorio/players.ts";
import { ServerSettings } from "./factorio/settings.ts";
import { PushService } from "./push/service.ts";
import { Saves } from "./factorio/saves.ts";
import { FactorioVersions } from "./factorio/versions/service.ts";
import { Updater } from "./factorio/versions/update.ts";
import { connectVersionsToHub } from "./factorio/versions/hub.ts";
import { Alerts } from "./alerts/service.ts";
import { PlayerHistory } from "./factorio/playerlog/history.ts";
import { ActivityLog } from "./activity/log.ts";
import { ApiTokens } from "./auth/tokens.ts";
import { Access } from "./auth/access.ts";
import { SecondFactor } from "./auth/secondfactor.ts";
import { Passkeys } from "./auth/passkeys.ts";
import { ModPortal } from "./factorio/portal.ts";
import { ModManager } from "./factorio/modmanager.ts";
import { MOD_PINS_FILE, ModPins } from "./factorio/modpins.ts";
import { Backups } from "./factorio/backups/service.ts";
import { Scheduler } from "./factorio/schedules/scheduler.ts";
import { ScheduleStore } from "./factorio/schedules/store.ts";
import { type Clock, systemClock } from "./factorio/schedules/clock.ts";
import { clearInterval, setInterval } from "./timers.ts";

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
  hub: Hub;
  /** The game server process (start/stop/kill, status, console). Other areas use it as a GameControl. */
  game: GameServer;
  /** One queue of game operations (start, stop, restart, backups, updates, scheduled tasks); kill skips it. */
  gameOps: GameOps;
  paths: FactorioPaths;
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
  /** Set on the very first start: the generated admin password, to print once. */
  createdAdmin: { username: string; password: string | null } | null;
}

export async function createContext(
  config: Config,
  opts: ContextOptions = {},
): Promise<{ ctx: AppContext; bootstrap: Bootstrap }> {
  // The machine's processes, for finding a game this panel did not start: main.ts started the `ps` before
  // it loaded the panel's modules (else it starts here and runs while the rest is built); the game server
  // below awaits it.
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
  const hub = new Hub(bus, log);
  const activity = new ActivityLog(db, now, config.activityDays);
  const tokens = new ApiTokens(db, now);
  const access = new Access(accounts, tokens, bus, now);
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
  // Listening before the game is looked for, so a game found ended at start-up is announced too.
  const push = await PushService.open({ config, db, log, now });
  const alerts = new Alerts({
    config,
    bus,
    log,
    db,
    now,
    push: push.notifier,
    diskPaths: [join(config.factorioDir, "saves"), config.dataDir],
  });
  // The directory lease asks ctx.serverState (not the game directly), so area tests can pose a game state.
  const lease = new GameDirLease(() => ctx.serverState());
  const paths = factorioPaths(config);
  const game = new GameServer({ config, paths, bus, log, now, lease, processes });
  const gameOps = new GameOps();
  await game.ready;
  connectGameToHub(game, hub);
  const players = new Players({ paths, dataDir: config.dataDir, game, bus, log });
  game.addLaunchArgs(() => players.launchArgs());
  const settings = new ServerSettings(paths, players);
  const playerHistory = new PlayerHistory({
    bus,
    db,
    log,
    now,
    gameState: () => game.state,
    onlineNow: () => players.online(),
    countDays: config.playerCountDays,
  });

  const saves = new Saves({
    paths,
    log,
    // The save the running game has loaded (the game server resolves "Load Latest" to the file it chose).
    inUse: () => {
      const s = game.status();
      return s.status !== "stopped" && s.savefile && s.savefile !== LOAD_LATEST ? s.savefile : null;
    },
    createTimeoutMs: config.saveCreateTimeout * 1000,
  });

  const versions = new FactorioVersions({
    config,
    paths,
    bus,
    log,
    now,
    serverState: () => ctx.serverState(),
    whileStopped: (label, fn) => game.whileStopped(label, fn),
    refreshGame: () => game.versionInfo(),
    // Backups are built below; a switch only happens on a request, after the context is complete.
    backupBeforeSwitch: (save) => backups.before("before-update", ["mods", "settings"], save ?? undefined),
  });
  connectVersionsToHub(versions, bus, hub);
  const updater = new Updater({ versions, game, ops: gameOps, bus, log, warnings: config.updateWarnings.map(Number) });
  const portal = new ModPortal({
    portalUrl: config.modPortalUrl,
    authUrl: config.authUrl,
    listCacheMs: config.modPortalCacheMinutes * 60_000,
    dataDir: config.dataDir,
    maxDownloadBytes: config.maxUploadMb * 1024 * 1024,
    log,
    now,
  });
  const mods = new ModManager(paths, join(config.dataDir, "mod-packs"), portal, log);
  mods.live.pins = new ModPins(join(config.dataDir, MOD_PINS_FILE));
  // Failed backups and scheduled tasks are alerts like any other: the dispatcher sends them to the push
  // devices and channels that asked for them.
  const alert = (title: string, body: string, url: string) =>
    bus.emit("alert", { kind: url === "/backups" ? "backup-failed" : "task-failed", title, body, url });
  // So is a new game version found by the update check.
  bus.on("factorio.versions", (m) => {
    if (m.kind !== "update-available") return;
    bus.emit("alert", {
      kind: "factorio-update",
      title: PUSH_MSG.titleUpdate,
      body: `Factorio ${m.info.latest} is out (${m.info.channel}); the server has ${m.info.current}. Update it from Controls.`,
      key: m.info.latest,
      url: "/",
    });
  });
  const backups = new Backups({
    dir: config.backupsDir,
    dataDir: config.dataDir,
    paths,
    db,
    log,
    bus,
    game,
    saveTimeoutMs: config.backupSaveTimeout * 1000,
    now,
    freeBytes: opts.freeBytes,
    alert: (title, body) => alert(title, body, "/backups"),
  });
  await backups.ready;
  const schedules = new Scheduler({
    store: new ScheduleStore(db),
    log,
    // Read when a schedule needs it: the system's default costs ICU's start-up (config.ts lazyDefault).
    get timeZone() {
      return config.timeZone;
    },
    alert: (title, body) => alert(title, body, "/schedules"),
    game,
    ops: gameOps,
    bus,
    backups,
    mods,
    clock: opts.clock ?? systemClock,
    saveTimeoutMs: config.backupSaveTimeout * 1000,
  });

  const closers: (() => void | Promise<void>)[] = [];
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
    hub,
    game,
    gameOps,
    paths,
    players,
    settings,
    push,
    alerts,
    playerHistory,
    saves,
    versions,
    updater,
    portal,
    mods,
    backups,
    schedules,
    now,
    serverState: () => game.state,
    onClose: (fn) => closers.push(fn),
    close: async () => {
      if (closed) return;
      closed = true;
      for (const fn of closers.reverse()) {
        try {
          await fn();
        } catch (e) {
          log.error("Shutdown step failed", { error: String(e) });
        }
      }
    },
  };

  await opts.beforeBootstrap?.(ctx);
  const createdAdmin = await accounts.bootstrap(opts.adminPassword ?? Deno.env.get("PANEL_ADMIN_PASSWORD"));
  activity.sweep();

  // Expired sessions are refused on use anyway; the sweep keeps the table small and ends their sockets.
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
  ctx.onClose(() => db.close());
  schedules.start();
  ctx.onClose(() => schedules.close());
  ctx.onClose(() => push.close());
  ctx.onClose(() => versions.close());
  // --factorio-version: a scripted setup gets its game on the first start (progress in the panel log).
  if (config.factorioVersion && !versions.gameFound()) {
    log.info("No game found: installing Factorio", { version: config.factorioVersion });
    versions.install(config.factorioVersion, { activate: true }).catch((e) => log.error("The first-start install could not start", { error: String(e) }));
  }
  ctx.onClose(() => alerts.close());
  ctx.onClose(() => playerHistory.close());
  ctx.onClose(() => clearInterval(sweep));
  ctx.onClose(() => hub.closeAll());
  ctx.onClose(() => saves.close());
  // Shutting the panel down lets go of the game; it keeps running and the next panel process finds it.
  ctx.onClose(() => game.detach());

  return { ctx, bootstrap: { createdAdmin } };
}
