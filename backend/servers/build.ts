// One Factorio server as the panel holds it: its directory, its game process, and everything that works
// on that game (players, settings, saves, versions, mods, backups, schedules, player history, health),
// with its own event bus (whose events reach the panel bus naming the server). boot/context.ts builds
// server 1 this way at start-up, and every other server in the registry; servers added later are built
// the same way (servers/service.ts).

import { join } from "node:path";
import { existsSync } from "node:fs";
import type { Config } from "../boot/config.ts";
import { type Logger, withFields } from "../lib/log.ts";
import { EventBus, type ServerRef } from "../lib/events.ts";
import type { Db } from "../store/db.ts";
import { openDb } from "../store/db.ts";
import { ensureDir } from "../lib/fsutil.ts";
import { LOAD_LATEST, type ServerState } from "../../shared/api.ts";
import type { ProcessRow } from "../factorio/game/liveness.ts";
import { type FactorioPaths, factorioPaths } from "../factorio/layout.ts";
import { gameBinaryIn } from "../factorio/versions/store.ts";
import type { Hub } from "../ws/hub.ts";
import { GameServer } from "../factorio/game/supervisor.ts";
import { GameDirLease } from "../factorio/game/lease.ts";
import { GameOps } from "../factorio/game/ops.ts";
import { Players } from "../factorio/players/lists.ts";
import { ServerSettings } from "../factorio/settings/serversettings.ts";
import { PlayerHistory } from "../factorio/players/history.ts";
import { Saves } from "../factorio/saves/service.ts";
import { FactorioVersions } from "../factorio/versions/service.ts";
import { Updater } from "../factorio/versions/update.ts";
import type { ModPortal } from "../factorio/mods/portal.ts";
import { ModManager } from "../factorio/mods/manager.ts";
import { MOD_PINS_FILE, ModPins } from "../factorio/mods/pins.ts";
import { Backups } from "../factorio/backups/service.ts";
import { Scheduler } from "../factorio/schedules/scheduler.ts";
import { ScheduleStore } from "../factorio/schedules/store.ts";
import { type Clock, systemClock } from "../factorio/schedules/clock.ts";
import { Health } from "../health/service.ts";
import { healthServer } from "../health/sampler.ts";
import type { ServerRecord } from "./store.ts";
import { removeStaleTempFiles } from "../boot/tempfiles.ts";

/** What every server shares: the panel's configuration, log, database, bus, hub and mod portal. */
export interface PanelParts {
  config: Config;
  log: Logger;
  /** panel.db: server 1's backups index, schedules, player history and health points live there. */
  db: Db;
  bus: EventBus;
  hub: Hub;
  portal: ModPortal;
  now: () => number;
  /** The machine's processes listed once at start-up (finding games an earlier panel left running). */
  processes?: Promise<ProcessRow[]>;
  clock?: Clock;
  freeBytes?: (dir: string) => number | Promise<number>;
  /** The name of another server whose active version is `version`, or null (a shared download in use). */
  versionUsedElsewhere: (serverId: number, version: string) => string | null;
  /** The first server's versions, whose check of factorio.com the others share (unset while it is built). */
  firstVersions?: () => FactorioVersions | undefined;
}

/** The parts of one server: what a per-server route's handler finds on its context. */
export interface ServerParts {
  /** The server's own configuration: the panel's, with its directories and ports. */
  config: Config;
  /** This server's event bus (its events reach the panel bus with `ref`). */
  bus: EventBus;
  paths: FactorioPaths;
  game: GameServer;
  gameOps: GameOps;
  players: Players;
  settings: ServerSettings;
  playerHistory: PlayerHistory;
  saves: Saves;
  versions: FactorioVersions;
  updater: Updater;
  mods: ModManager;
  backups: Backups;
  schedules: Scheduler;
  health: Health;
  serverState: () => ServerState;
}

export interface Server extends ServerParts {
  readonly id: number;
  /** Its id and current name, as events carry it. */
  readonly ref: ServerRef;
  record(): ServerRecord;
  /** Lets go of the server: timers stop, the game is left running (detached), its database closed. */
  close(): Promise<void>;
}

/** The folder of server `id`'s own panel files (game-process.json, game-output.log, rcon.json, server.db). */
export function serverDataDir(config: Config, id: number): string {
  return id === 1 ? config.dataDir : join(config.dataDir, "servers", String(id));
}

/** The folder of server `id`'s backups. */
export function serverBackupsDir(config: Config, id: number): string {
  return id === 1 ? config.backupsDir : join(config.backupsDir, "servers", String(id));
}

/** The panel's configuration as server `record` sees it: its directories and its RCON port. */
export function serverConfig(config: Config, record: ServerRecord): Config {
  if (record.id === 1) return config;
  const root = record.root;
  return {
    ...config,
    factorioDir: root,
    dataDir: serverDataDir(config, record.id),
    backupsDir: serverBackupsDir(config, record.id),
    rconPort: record.rconPort,
    // A folder with its own game (unpacked by hand) runs it; otherwise the shared versions or the first
    // server's hand-installed game, started with this server's config.ini.
    factorioBinary: existsSync(gameBinaryIn(root)) ? gameBinaryIn(root) : config.factorioBinary,
    // --factorio-version installs once, for the first server.
    factorioVersion: "",
  };
}

/**
 * Builds server `record`. `name` reads its current name (renames show in every message). Parts that
 * need closing register with `onClose`; on a failure the caller lets go of what was registered.
 */
export async function buildServer(
  panel: PanelParts,
  record: ServerRecord,
  name: () => string,
  build: <T>(what: string, make: () => T | Promise<T>) => Promise<T>,
): Promise<Server> {
  const closers: (() => void | Promise<void>)[] = [];
  const onClose = (fn: () => void | Promise<void>) => void closers.push(fn);
  const { now, hub, portal } = panel;
  const id = record.id;
  // With several servers the panel log says which server a line is about; server 1's lines stay as they were.
  const log = id === 1 ? panel.log : withFields(panel.log, () => ({ server: id }));
  const config = serverConfig(panel.config, record);
  const ref: ServerRef = {
    id,
    get name() {
      return name();
    },
  };
  const bus = new EventBus(log, { parent: panel.bus, server: ref });
  const what = (part: string) => id === 1 ? part : `server ${id} (${name()}): ${part}`;
  try {
    let db = panel.db;
    if (id !== 1) {
      db = await build(what("its folders"), () => {
        ensureDir(config.dataDir, 0o700);
        removeStaleTempFiles([config.dataDir, config.factorioDir, join(config.factorioDir, "saves")], log);
        return openDb(join(config.dataDir, "server.db"));
      });
      const own = db;
      onClose(() => own.close());
    }
    const paths = factorioPaths(config, panel.config.factorioDir);
    const built: { serverState?: () => ServerState } = {};
    const lease = new GameDirLease(() => built.serverState ? built.serverState() : game.state);
    const game: GameServer = await build(what("the game server"), async () => {
      const g = new GameServer({ config, paths, bus, log, now, lease, processes: panel.processes });
      await g.ready;
      return g;
    });
    // Let go of first at shutdown: it keeps running and the next panel process finds it.
    onClose(() => game.detach());
    const gameOps = new GameOps();
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
    onClose(() => playerHistory.close());
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
    onClose(() => saves.close());
    const serverState = () => built.serverState ? built.serverState() : game.state;
    const versions = new FactorioVersions({
      config,
      paths,
      bus,
      log,
      now,
      serverState,
      whileStopped: (label, fn) => game.whileStopped(label, fn),
      refreshGame: () => game.versionInfo(),
      // Backups are built below; a switch only happens on a request, after the panel started.
      backupBeforeSwitch: (save) => backups.before("before-update", ["mods", "settings"], save ?? undefined),
      usedElsewhere: (version) => panel.versionUsedElsewhere(id, version),
      latest: id === 1 ? undefined : panel.firstVersions?.()?.latest,
    });
    onClose(() => versions.close());
    const updater = new Updater({
      versions,
      game,
      ops: gameOps,
      bus,
      log,
      warnings: config.updateWarnings.map(Number),
    });
    const mods = new ModManager(paths, join(panel.config.dataDir, "mod-packs"), portal, log);
    mods.live.pins = new ModPins(join(config.dataDir, MOD_PINS_FILE));
    // Failed backups and scheduled tasks are alerts like any other: the dispatcher sends them to the push
    // devices and channels that asked for them.
    const alert = (title: string, body: string, url: string) =>
      bus.emit("alert", { kind: url === "/backups" ? "backup-failed" : "task-failed", title, body, url });
    const backups: Backups = await build(what("backups"), async () => {
      const b = new Backups({
        dir: config.backupsDir,
        dataDir: config.dataDir,
        paths,
        db,
        log,
        bus,
        game,
        saveTimeoutMs: config.backupSaveTimeout * 1000,
        now,
        freeBytes: panel.freeBytes,
        alert: (title, body) => alert(title, body, "/backups"),
      });
      await b.ready;
      return b;
    });
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
      clock: panel.clock ?? systemClock,
      saveTimeoutMs: config.backupSaveTimeout * 1000,
    });
    schedules.start();
    onClose(() => schedules.close());
    const health = new Health({
      config,
      bus,
      log,
      db,
      now,
      game: {
        get state() {
          return game.state;
        },
        get pid() {
          return game.pid;
        },
        rcon: (c) => game.rcon(c),
        online: () => players.online(),
      },
      diskPaths: [paths.saves, config.backupsDir],
      server: healthServer(id),
      backupTimes: () => backups.list().map((b) => ({ at: Date.parse(b.created), detail: b.reason })),
    });
    onClose(() => health.close());
    void hub;

    let closed = false;
    const server: Server = {
      id,
      ref,
      record: () => ({ ...record, name: name() }),
      config,
      bus,
      paths,
      game,
      gameOps,
      players,
      settings,
      playerHistory,
      saves,
      versions,
      updater,
      mods,
      backups,
      schedules,
      health,
      serverState,
      close: async () => {
        if (closed) return;
        closed = true;
        await closeAll(closers, log);
      },
    };
    // Tests pose a game state through the context (boot/context.ts sets it for server 1).
    Object.defineProperty(server, "serverState", {
      get: () => serverState,
      set: (fn: () => ServerState) => void (built.serverState = fn),
    });
    return server;
  } catch (e) {
    await closeAll(closers, log);
    throw e;
  }
}

async function closeAll(closers: (() => void | Promise<void>)[], log: Logger): Promise<void> {
  for (const fn of closers.splice(0).reverse()) {
    try {
      await fn();
    } catch (e) {
      log.error("Shutdown step failed", { error: String(e) });
    }
  }
}
