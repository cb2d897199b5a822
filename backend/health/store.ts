// Server health over time in SQLite (migration 051-health): points of UPS, CPU, memory, players and free
// disk per server, at three resolutions kept for different times (the issue's: 10 s for a day, 1 minute for
// a week, 15 minutes for 90 days), and events (start, stop, crash, update, backup) to mark on a chart's time
// axis. Times are the panel's clock in ms.
//
// Each sample is added to its bucket at every resolution at once (an upsert per resolution: count, sum,
// minimum and maximum per series), so the coarser points are downsampled as the samples come, with no job
// that reads the fine points back, and a bucket still filling is already current. A series may be missing
// from a sample (null: UPS of a paused or silent game, CPU of a stopped one); each series counts its own
// samples, so an average is over the values there were. `n` counts every sample, `up_n` those taken while
// the game ran and `paused_n` those that found it paused, so a point also says how much of it the game was
// up. Old points go in small batches (purge): never one long delete holding the write lock.

import type { StatementSync } from "node:sqlite";
import { type Db, transaction } from "../store/db.ts";
import { SERIES, type Series, TIERS } from "./schema.ts";

export { SERIES, type Series, TIERS };

/** One sample of a server's health. */
export interface HealthSample {
  at: number;
  /** The game process is running. */
  up: boolean;
  /** Answering, with a clock that stands still (auto_pause with nobody online, for one). */
  paused: boolean;
  /** Updates per second; null when unknown (paused, no answer, stopped, still measuring). */
  ups: number | null;
  /** CPU of the game process, % of one core. */
  cpu: number | null;
  /** Resident memory of the game process, bytes. */
  memory: number | null;
  players: number | null;
  /** Free bytes where the server's saves and backups are. */
  disk: number | null;
}

export const EVENT_KINDS = ["start", "stop", "crash", "update", "backup"] as const;
export type HealthEventKind = (typeof EVENT_KINDS)[number];

export interface HealthEvent {
  at: number;
  kind: HealthEventKind;
  detail: string;
}

/** The chart's ranges, each drawn from the finest resolution kept that long. */
export const RANGES = {
  hour: { ms: 3600_000, tier: 0 },
  day: { ms: 24 * 3600_000, tier: 0 },
  week: { ms: 7 * 24 * 3600_000, tier: 1 },
  "90d": { ms: 90 * 24 * 3600_000, tier: 2 },
} as const;
export type HealthRange = keyof typeof RANGES;

/**
 * A range of points as columns (a chart library's usual input: one array of times, one per series). A
 * bucket without samples where the one before had some (the panel or the game was not running) is a null
 * point, so a line breaks there instead of joining across the gap.
 */
export interface HealthPoints {
  range: HealthRange;
  stepMs: number;
  from: number;
  to: number;
  at: number[];
  /** Share of the bucket's samples with the game running, and paused (0..1). */
  up: (number | null)[];
  paused: (number | null)[];
  series: Record<Series, { avg: (number | null)[]; min: (number | null)[]; max: (number | null)[] }>;
  events: HealthEvent[];
}

/** Rows one purge statement deletes at most: each is a short write, others get the lock in between. */
const PURGE_BATCH = 500;

// SQLite's min()/max() of a NULL is NULL: a missing value on either side must not wipe the other.
const keep = (fn: "MIN" | "MAX", col: string) =>
  `${col} = ${fn}(COALESCE(${col}, excluded.${col}), COALESCE(excluded.${col}, ${col}))`;

const UPSERT = `
  INSERT INTO health_points (server, tier, at, n, up_n, paused_n, ${
  SERIES.map((s) => `${s}_n, ${s}_sum, ${s}_min, ${s}_max`).join(", ")
})
  VALUES (?, ?, ?, 1, ?, ?, ${SERIES.map(() => "?, ?, ?, ?").join(", ")})
  ON CONFLICT (server, tier, at) DO UPDATE SET
    n = n + 1, up_n = up_n + excluded.up_n, paused_n = paused_n + excluded.paused_n,
    ${
  SERIES.map((s) =>
    `${s}_n = ${s}_n + excluded.${s}_n, ${s}_sum = COALESCE(${s}_sum, 0) + COALESCE(excluded.${s}_sum, 0), ` +
    `${keep("MIN", `${s}_min`)}, ${keep("MAX", `${s}_max`)}`
  ).join(",\n    ")
}`;

// Averages are worked out here, and rows come as arrays: a 90-day range is 8,640 rows, and node:sqlite
// builds an object per row otherwise (bench/health.mjs: 71 -> 30 ms).
const SELECT = `
  SELECT at, CAST(up_n AS REAL) / n, CAST(paused_n AS REAL) / n,
    ${SERIES.map((s) => `${s}_sum / NULLIF(${s}_n, 0), ${s}_min, ${s}_max`).join(", ")}
  FROM health_points WHERE server = ? AND tier = ? AND at >= ? AND at <= ? ORDER BY at`;

export class HealthStore {
  #upsert: StatementSync;
  #select: StatementSync;
  #mark: StatementSync;
  #events: StatementSync;

  constructor(private readonly db: Db) {
    this.#upsert = db.prepare(UPSERT);
    this.#select = db.prepare(SELECT);
    this.#select.setReturnArrays(true);
    this.#mark = db.prepare("INSERT INTO health_events (server, at, kind, detail) VALUES (?, ?, ?, ?)");
    this.#events = db.prepare(
      "SELECT at, kind, detail FROM health_events WHERE server = ? AND at >= ? AND at <= ? ORDER BY at, id",
    );
  }

  /** Adds a sample to its bucket at each resolution. */
  add(server: number, sample: HealthSample): void {
    this.addAll([[server, sample]]);
  }

  /**
   * Adds several servers' samples in one transaction: a sampling round of every server costs one commit
   * (in WAL mode a commit waits for the disk: bench/health.mjs).
   */
  addAll(samples: readonly (readonly [number, HealthSample])[]): void {
    transaction(this.db, () => {
      for (const [server, s] of samples) {
        const values = SERIES.flatMap((name) => {
          const v = s[name];
          return v === null || !Number.isFinite(v) ? [0, null, null, null] : [1, v, v, v];
        });
        for (const [tier, { stepMs }] of TIERS.entries()) {
          this.#upsert.run(
            server,
            tier,
            Math.floor(s.at / stepMs) * stepMs,
            s.up ? 1 : 0,
            s.paused ? 1 : 0,
            ...values,
          );
        }
      }
    });
  }

  /** Marks an event on the server's time axis. */
  mark(server: number, at: number, kind: HealthEventKind, detail = ""): void {
    this.#mark.run(server, at, kind, detail);
  }

  /** The points of `range` ending at `now`, with the events in it. */
  range(server: number, range: HealthRange, now = Date.now()): HealthPoints {
    const { ms, tier } = RANGES[range];
    const { stepMs } = TIERS[tier];
    const from = Math.floor((now - ms) / stepMs) * stepMs;
    const rows = this.#select.all(server, tier, from, now) as unknown as (number | null)[][];
    const out: HealthPoints = {
      range,
      stepMs,
      from,
      to: now,
      at: [],
      up: [],
      paused: [],
      series: Object.fromEntries(
        SERIES.map((s) => [s, { avg: [], min: [], max: [] }]),
      ) as unknown as HealthPoints["series"],
      events: (this.#events.all(server, from, now) as unknown as HealthEvent[]).map((e) => ({ ...e })),
    };
    const columns = [
      out.up,
      out.paused,
      ...SERIES.flatMap((s) => [out.series[s].avg, out.series[s].min, out.series[s].max]),
    ];
    const point = (at: number, row: (number | null)[] | null) => {
      out.at.push(at);
      for (let i = 0; i < columns.length; i++) columns[i].push(row ? row[i + 1] : null);
    };
    let last = -Infinity;
    for (const row of rows) {
      const at = row[0] as number;
      // No samples in the buckets between (the game or the panel was not running): a null point breaks the line.
      if (at - last > stepMs && last !== -Infinity) point(last + stepMs, null);
      last = at;
      point(at, row);
    }
    // Nothing since the last point (the game or the panel stopped): the line ends there.
    if (rows.length > 0 && now - last > 2 * stepMs) point(last + stepMs, null);
    return out;
  }

  /**
   * Deletes what each resolution no longer keeps, and events older than the longest, PURGE_BATCH rows per
   * statement with a pause between statements for other writers. Returns how many rows went.
   */
  async purge(now = Date.now()): Promise<number> {
    let deleted = 0;
    const servers =
      (this.db.prepare("SELECT DISTINCT server FROM health_points").all() as { server: number }[])
        .map((r) => r.server);
    const batches: [string, (number | string)[]][] = [];
    for (const server of servers) {
      for (const [tier, { keepMs }] of TIERS.entries()) {
        batches.push([
          `DELETE FROM health_points WHERE server = ? AND tier = ? AND at IN
             (SELECT at FROM health_points WHERE server = ? AND tier = ? AND at < ? ORDER BY at LIMIT ${PURGE_BATCH})`,
          [server, tier, server, tier, now - keepMs],
        ]);
      }
    }
    batches.push([
      `DELETE FROM health_events WHERE id IN (SELECT id FROM health_events WHERE at < ? LIMIT ${PURGE_BATCH})`,
      [now - TIERS[TIERS.length - 1].keepMs],
    ]);
    for (const [sql, args] of batches) {
      const statement = this.db.prepare(sql);
      while (true) {
        const changes = Number(statement.run(...args).changes);
        deleted += changes;
        if (changes < PURGE_BATCH) break;
        await new Promise<void>((r) => setTimeout(r, 0));
      }
    }
    return deleted;
  }
}
