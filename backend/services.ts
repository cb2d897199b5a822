// The services no first answer needs: saves, game versions and updates, the mod portal and mods, backups
// and schedules. createContext loads this module a second after start-up, or at once when a request,
// an import or a test needs one of them (AppContext.loadServices), so a start answers its first request
// without loading and running their ~28 modules first (docs/architecture.md, Speed).

import { join } from "node:path";
import type { Config } from "./config.ts";
import type { Logger } from "./log.ts";
import type { EventBus } from "./events.ts";
import type { Db } from "./store/db.ts";
import type { Hub } from "./ws/hub.ts";
import { PUSH_MSG } from "../shared/messages.ts";
import { LOAD_LATEST, type ServerState } from "../shared/api.ts";
import type { GameServer } from "./factorio/game/supervisor.ts";
import type { GameOps } from "./factorio/game/ops.ts";
import type { FactorioPaths } from "./factorio/layout.ts";
import { Saves } from "./factorio/saves.ts";
import { FactorioVersions } from "./factorio/versions/service.ts";
import { Updater } from "./factorio/versions/update.ts";
import { connectVersionsToHub } from "./factorio/versions/hub.ts";
import { ModPortal } from "./factorio/portal.ts";
import { ModManager } from "./factorio/modmanager.ts";
import { MOD_PINS_FILE, ModPins } from "./factorio/modpins.ts";
import { Backups } from "./factorio/backups/service.ts";
import { Scheduler } from "./factorio/schedules/scheduler.ts";
import { ScheduleStore } from "./factorio/schedules/store.ts";
import { type Clock, systemClock } from "./factorio/schedules/clock.ts";

export interface Services {
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
}

export interface ServiceDeps {
  config: Config;
  log: Logger;
  bus: EventBus;
  db: Db;
  hub: Hub;
  game: GameServer;
  gameOps: GameOps;
  paths: FactorioPaths;
  now: () => number;
  serverState: () => ServerState;
  /** Registers work to do on shutdown (before what was registered earlier). */
  onClose(fn: () => void | Promise<void>): void;
  clock?: Clock;
  freeBytes?: (dir: string) => number | Promise<number>;
}

/** Builds the services and starts their own work (backup index repair, schedules, a first-start install). */
export async function createServices(d: ServiceDeps): Promise<Services> {
  const { config, log, bus, db, hub, game, gameOps, paths, now } = d;
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
  // Each shutdown step is registered as soon as its service exists, so one built before a later step
  // fails (the backup index repair, say) is still closed when the panel stops.
  d.onClose(() => saves.close());

  const versions = new FactorioVersions({
    config,
    paths,
    bus,
    log,
    now,
    serverState: d.serverState,
    whileStopped: (label, fn) => game.whileStopped(label, fn),
    refreshGame: () => game.versionInfo(),
    // Backups are built below; a switch only happens on a request, after this function returned.
    backupBeforeSwitch: (save) => backups.before("before-update", ["mods", "settings"], save ?? undefined),
  });
  d.onClose(() => versions.close());
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
    freeBytes: d.freeBytes,
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
    clock: d.clock ?? systemClock,
    saveTimeoutMs: config.backupSaveTimeout * 1000,
  });

  schedules.start();
  d.onClose(() => schedules.close());
  // --factorio-version: a scripted setup gets its game on the first start (progress in the panel log).
  if (config.factorioVersion && !versions.gameFound()) {
    log.info("No game found: installing Factorio", { version: config.factorioVersion });
    versions.install(config.factorioVersion, { activate: true }).catch((e) => log.error("The first-start install could not start", { error: String(e) }));
  }
  return { saves, versions, updater, portal, mods, backups, schedules };
}
