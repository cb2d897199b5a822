// The health sampler (issue 51): every --health-sample-seconds (10 s), one round over the running games:
// one `ps` for all their pids (CPU, resident memory), the game's clock over RCON (UPS: ups.ts), the
// players online, the free disk where saves and backups are; the round goes to the store in one
// transaction, to the health alerts, and is what GET /api/health, /metrics and the public status answer.
// Each Factorio server has its own sampler (servers/build.ts), keyed by the server's health id.

import { join } from "node:path";
import { existsSync, readFileSync } from "node:fs";
import type { ServerState } from "../../shared/api.ts";
import type { HealthNow, HealthSettings, UpsState } from "../../shared/contract/health.ts";
import type { Logger } from "../lib/log.ts";
import { writeJsonAtomic } from "../lib/fsutil.ts";
import { freeSpace } from "../alerts/panel.ts";
import { type Clock, readClock, UpsEstimator } from "./ups.ts";
import { CpuMeter, PsUnavailable, sampleProcesses } from "./process.ts";
import type { HealthSample, HealthStore } from "./store.ts";
import type { ServerHealth } from "./metrics.ts";

/** A game server as health sees it: its id (URLs, the metrics' server label) and its key in the store. */
export interface HealthServer {
  id: string;
  key: number;
}

/**
 * Server 1 as health knows it: "default" in URLs (/status/default) and the metrics' server label, as
 * before there were several servers; server N is "N". Each server keeps its points in its own database,
 * under key 1.
 */
export const DEFAULT_SERVER: HealthServer = { id: "default", key: 1 };

/** The health id of server `id`. */
export function healthServer(id: number): HealthServer {
  return id === 1 ? DEFAULT_SERVER : { id: String(id), key: 1 };
}

/** What the sampler needs of a game server. */
export interface SampledGame {
  readonly state: ServerState;
  readonly pid: number | null;
  rcon(command: string): Promise<string>;
  /** Names of the players online (over RCON). */
  online(): Promise<string[]>;
}

export const DEFAULT_HEALTH_SETTINGS: HealthSettings = {
  exact_ups: false,
  public_status: false,
  public_players: true,
  public_address: "",
};

/** The admin's choices (exact UPS, the public status page), in <data-dir>/health-settings.json. */
export class HealthSettingsFile {
  #value: HealthSettings;
  readonly #file: string;

  constructor(dataDir: string) {
    this.#file = join(dataDir, "health-settings.json");
    let read: Partial<HealthSettings> = {};
    try {
      if (existsSync(this.#file)) read = JSON.parse(readFileSync(this.#file, "utf8"));
    } catch {
      read = {};
    }
    const v = { ...DEFAULT_HEALTH_SETTINGS };
    if (typeof read.exact_ups === "boolean") v.exact_ups = read.exact_ups;
    if (typeof read.public_status === "boolean") v.public_status = read.public_status;
    if (typeof read.public_players === "boolean") v.public_players = read.public_players;
    if (typeof read.public_address === "string") v.public_address = read.public_address;
    this.#value = v;
  }

  get(): HealthSettings {
    return { ...this.#value };
  }

  set(value: HealthSettings): void {
    writeJsonAtomic(this.#file, value, 0o600);
    this.#value = { ...value };
  }
}

export interface SamplerDeps {
  game: SampledGame;
  store: HealthStore;
  log: Logger;
  now: () => number;
  settings: () => HealthSettings;
  /** Folders whose free space is reported (the saves and the backups). */
  diskPaths: string[];
  intervalMs: number;
  /** The server sampled (default: server 1). */
  server?: HealthServer;
  /** Told of every round (the health alerts). */
  onSample?: (server: HealthServer, now: HealthNow) => void;
}

/** How long one RCON question may take before the game counts as not answering. */
const ANSWER_WAIT_MS = 5_000;

/** Per server: the meters that span rounds. */
interface Meters {
  clock: Clock;
  ups: UpsEstimator;
  cpu: CpuMeter;
  pid: number | null;
  /** A question to the game still waiting for its answer: no second one is sent behind it. */
  pending: Promise<unknown> | null;
  cpuSecondsTotal: number | null;
  players: string[] | null;
}

export class HealthSampler {
  #timer: ReturnType<typeof setInterval> | undefined;
  #meters = new Map<string, Meters>();
  #latest = new Map<string, HealthNow>();
  #psWarned = false;
  #running: Promise<void> | null = null;

  constructor(private readonly deps: SamplerDeps) {}

  start(): void {
    this.#timer = setInterval(() => void this.round(), this.deps.intervalMs);
  }

  close(): void {
    clearInterval(this.#timer);
  }

  /** The last round's figures of a server (a stopped one's until the first round). */
  get server(): HealthServer {
    return this.deps.server ?? DEFAULT_SERVER;
  }

  latest(server: HealthServer = this.server): HealthNow {
    return this.#latest.get(server.id) ??
      emptyNow(server, this.deps.game.state, this.deps.now(), this.deps.settings().exact_ups);
  }

  /** The last round's figures as the metrics module takes them. */
  metrics(): ServerHealth[] {
    return [this.server].map((s) => {
      const h = this.latest(s);
      return {
        server: s.id,
        up: h.state !== "stopped",
        paused: h.ups_state === "paused",
        ups: h.ups_state === "running" ? h.ups : null,
        playersOnline: h.players_online,
        mapAgeSeconds: h.map_age_s,
        cpuSecondsTotal: this.#meters.get(s.id)?.cpuSecondsTotal ?? null,
        residentMemoryBytes: h.memory_bytes,
        diskFreeBytes: h.disk_free_bytes,
      };
    });
  }

  /** Names of the players online at the last round (null when not known). */
  players(server: HealthServer = this.server): string[] | null {
    return this.#meters.get(server.id)?.players ?? null;
  }

  /** One round over every server; rounds never overlap (a slow one makes the next wait). */
  round(): Promise<void> {
    if (this.#running) return this.#running;
    this.#running = this.#round().catch((e) =>
      this.deps.log.warn("Health sampling failed", { error: String(e) })
    )
      .finally(() => (this.#running = null));
    return this.#running;
  }

  async #round(): Promise<void> {
    const { game, now, settings } = this.deps;
    const server = this.server;
    const at = now();
    const exact = settings().exact_ups;
    const clock: Clock = exact ? "tick" : "map-age";
    let m = this.#meters.get(server.id);
    const pid = game.state === "running" ? game.pid : null;
    // Another run (or another clock) says nothing about this one.
    if (!m || m.pid !== pid || m.clock !== clock) {
      m = {
        clock,
        ups: new UpsEstimator(clock),
        cpu: new CpuMeter(),
        pid,
        pending: null,
        cpuSecondsTotal: null,
        players: null,
      };
      this.#meters.set(server.id, m);
    }
    const disk = await this.#diskFree();
    if (pid === null) {
      m.players = null;
      m.cpuSecondsTotal = null;
      const h = { ...emptyNow(server, game.state, at, exact), disk_free_bytes: disk };
      this.#record(server, h);
      return;
    }
    // One ps for every game's pid (one game today).
    const [usage, reading] = await Promise.all([
      this.#ps([pid]),
      readClock(clock, (cmd) => this.#ask(m!, () => game.rcon(cmd)), now),
    ]);
    const proc = usage?.usage.get(pid) ?? null;
    if (proc) {
      m.cpu.add(usage!.at, proc.cpuSeconds);
      m.cpuSecondsTotal = proc.cpuSeconds;
    }
    m.ups.add(reading);
    // The players are asked only of a game that just answered (a hung one would hold the question).
    m.players = reading.value === null ? null : await this.#ask(m, () => game.online()).catch(() => null);
    const cpu = m.cpu.current();
    const ups = m.ups.current();
    let upsState: UpsState;
    if (ups.state === "running") upsState = ups.settled ? "running" : "measuring";
    else if (ups.state === "unknown") upsState = "measuring";
    else upsState = ups.state;
    const h: HealthNow = {
      server: server.id,
      at: new Date(at).toISOString(),
      state: game.state,
      ups: ups.state === "running" ? round1(ups.ups) : null,
      ups_state: upsState,
      ups_error: ups.state === "running" ? round1(ups.error) : null,
      no_answer_since: ups.state === "no-answer" ? new Date(ups.since).toISOString() : null,
      exact_ups: exact,
      cpu_percent: cpu.state === "measured" ? round1(Math.max(0, cpu.percent)) : null,
      memory_bytes: proc?.rssBytes ?? null,
      disk_free_bytes: disk,
      players_online: m.players?.length ?? null,
      map_age_s: reading.value === null
        ? null
        : clock === "tick"
        ? Math.floor(reading.value / 60)
        : reading.value,
    };
    this.#record(server, h);
  }

  #record(server: HealthServer, h: HealthNow): void {
    this.#latest.set(server.id, h);
    const sample: HealthSample = {
      at: Date.parse(h.at),
      up: h.state !== "stopped",
      paused: h.ups_state === "paused",
      // Only a settled estimate is a point: the first minute of a run would draw noise.
      ups: h.ups_state === "running" ? h.ups : null,
      cpu: h.cpu_percent,
      memory: h.memory_bytes,
      players: h.players_online,
      disk: h.disk_free_bytes,
    };
    try {
      this.deps.store.addAll([[server.key, sample]]);
    } catch (e) {
      this.deps.log.warn("Could not store a health sample", { error: String(e) });
    }
    this.deps.onSample?.(server, h);
  }

  /** Asks the game, unless an earlier question still waits; a question unanswered in time is no answer. */
  #ask<T>(m: Meters, fn: () => Promise<T>): Promise<T> {
    if (m.pending) return Promise.reject(new Error("the game has not answered the last question yet"));
    const asked = fn();
    m.pending = asked;
    asked.then(
      () => m.pending === asked && (m.pending = null),
      () => m.pending === asked && (m.pending = null),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error("no answer in time")),
        Math.min(ANSWER_WAIT_MS, this.deps.intervalMs),
      );
    });
    return Promise.race([asked, late]).finally(() => clearTimeout(timer));
  }

  async #ps(pids: number[]) {
    try {
      return await sampleProcesses(pids);
    } catch (e) {
      if (!this.#psWarned) {
        this.#psWarned = true;
        this.deps.log.warn(
          e instanceof PsUnavailable ? e.message : `Could not measure the game's CPU and memory: ${e}`,
        );
      }
      return null;
    }
  }

  /** The least free space of the folders (the one that fills first). */
  async #diskFree(): Promise<number | null> {
    let least: number | null = null;
    for (const path of this.deps.diskPaths) {
      try {
        const { free } = await freeSpace(path);
        least = least === null ? free : Math.min(least, free);
      } catch {
        // A folder that cannot be read says nothing; the others still do.
      }
    }
    return least;
  }
}

function round1(v: number): number {
  return Math.round(v * 10) / 10;
}

function emptyNow(server: HealthServer, state: ServerState, at: number, exact: boolean): HealthNow {
  return {
    server: server.id,
    at: new Date(at).toISOString(),
    state,
    ups: null,
    ups_state: state === "stopped" ? "stopped" : "measuring",
    ups_error: null,
    no_answer_since: null,
    exact_ups: exact,
    cpu_percent: null,
    memory_bytes: null,
    disk_free_bytes: null,
    players_online: null,
    map_age_s: null,
  };
}
