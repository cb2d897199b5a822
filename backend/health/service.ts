// The health area as the context holds it: the store, the admin's choices, the sampler with its alerts,
// and the marks on the charts' time axis (starts, stops and crashes from the game's status, finished
// updates from the versions' progress; backups are read from the backups' own list when a range is asked).

import type { Config } from "../boot/config.ts";
import type { EventBus } from "../lib/events.ts";
import type { Logger } from "../lib/log.ts";
import type { Db } from "../store/db.ts";
import type { HealthHistory, HealthRange } from "../../shared/contract/health.ts";
import { HealthStore } from "./store.ts";
import {
  DEFAULT_SERVER,
  HealthSampler,
  type HealthServer,
  HealthSettingsFile,
  type SampledGame,
} from "./sampler.ts";
import { HealthAlerts } from "./alerts.ts";

export interface HealthDeps {
  config: Config;
  bus: EventBus;
  log: Logger;
  db: Db;
  now: () => number;
  game: SampledGame;
  diskPaths: string[];
  /** When backups were made (ms), for the charts' marks. */
  backupTimes: () => { at: number; detail: string }[];
  /** The server (default: server 1). */
  server?: HealthServer;
}

export class Health {
  readonly store: HealthStore;
  readonly settings: HealthSettingsFile;
  readonly sampler: HealthSampler;
  readonly alerts: HealthAlerts;
  #unsubscribe: (() => void)[] = [];
  #purge: ReturnType<typeof setInterval>;

  constructor(private readonly deps: HealthDeps) {
    const { config, bus, log, db, now } = deps;
    this.store = new HealthStore(db);
    this.settings = new HealthSettingsFile(config.dataDir);
    this.alerts = new HealthAlerts(bus, {
      upsBelow: config.alertUpsBelow,
      upsSamples: config.alertUpsSamples,
      upsCooldownMs: config.alertUpsCooldownMinutes * 60_000,
      hungMs: config.alertHungSeconds * 1000,
      memoryBytes: config.alertMemoryMb * 1024 * 1024,
    });
    this.sampler = new HealthSampler({
      game: deps.game,
      store: this.store,
      log,
      now,
      settings: () => this.settings.get(),
      diskPaths: deps.diskPaths,
      intervalMs: config.healthSampleSeconds * 1000,
      server: deps.server,
      onSample: (server, h) => this.alerts.observe(server, h),
    });
    const key = (deps.server ?? DEFAULT_SERVER).key;
    this.#unsubscribe.push(bus.on("server.status", ({ status, previous, exit }) => {
      if (status.status === "running" && previous !== "running") {
        this.store.mark(key, now(), "start", status.savefile);
      }
      if (exit) {
        this.store.mark(
          key,
          now(),
          exit.reason === "stopped" || exit.reason === "killed" ? "stop" : "crash",
          exit.reason,
        );
      }
    }));
    this.#unsubscribe.push(bus.on("factorio.versions", (m) => {
      if (m.kind === "update" && m.update.phase === "done") {
        this.store.mark(key, now(), "update", `${m.update.from} → ${m.update.to}`);
      }
    }));
    this.sampler.start();
    // Old points go once an hour, in small batches.
    this.#purge = setInterval(
      () =>
        void this.store.purge(now()).catch((e) =>
          log.warn("Could not purge health points", { error: String(e) })
        ),
      3600_000,
    );
  }

  /** The points of a range with every mark, backups included. */
  history(range: HealthRange, server: HealthServer = this.sampler.server): HealthHistory {
    const points = this.store.range(server.key, range, this.deps.now());
    const backups = this.deps.backupTimes().filter((b) => b.at >= points.from && b.at <= points.to)
      .map((b) => ({ at: b.at, kind: "backup" as const, detail: b.detail }));
    return { ...points, events: [...points.events, ...backups].sort((a, b) => a.at - b.at) };
  }

  close(): void {
    this.sampler.close();
    clearInterval(this.#purge);
    for (const u of this.#unsubscribe) u();
  }
}
