// Health points in the panel's database (its real migrations, a file in a temp dir): samples downsampled
// into each resolution as they come, gaps, events, retention purged in small batches.

import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "../store/db.ts";
import { type HealthSample, HealthStore, TIERS } from "./store.ts";

const T0 = Date.UTC(2026, 10, 1, 12, 0, 0); // on a 15-minute boundary
const MIN = 60_000;

function withStore(fn: (store: HealthStore, db: ReturnType<typeof openDb>) => Promise<void> | void) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "health-store-"));
    const db = openDb(join(dir, "panel.db"));
    try {
      await fn(new HealthStore(db), db);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

const sample = (at: number, over: Partial<HealthSample> = {}): HealthSample => ({
  at,
  up: true,
  paused: false,
  ups: 60,
  cpu: 50,
  memory: 1e9,
  players: 2,
  disk: 5e10,
  ...over,
});

Deno.test(
  "a sample lands in its bucket at every resolution: averages, minimums and maximums per series",
  withStore((store) => {
    // Two minutes of samples every 10 s: UPS 60, 54, 60, 48, ... CPU rising, one sample without UPS.
    for (let i = 0; i < 12; i++) {
      store.add(
        1,
        sample(T0 + i * 10_000, {
          ups: i === 3 ? null : i % 2 ? 54 : 60,
          cpu: 10 * i,
          players: i < 6 ? 1 : 3,
        }),
      );
    }
    store.add(2, sample(T0, { ups: 1 })); // another server's points stay its own

    const hour = store.range(1, "hour", T0 + 2 * MIN);
    assert.equal(hour.stepMs, 10_000);
    assert.deepEqual(hour.at, Array.from({ length: 12 }, (_, i) => T0 + i * 10_000));
    assert.deepEqual(hour.series.cpu.avg, Array.from({ length: 12 }, (_, i) => 10 * i));
    assert.equal(hour.series.ups.avg[3], null, "no UPS in that sample");

    const week = store.range(1, "week", T0 + 2 * MIN);
    assert.equal(week.stepMs, MIN);
    assert.deepEqual(week.at, [T0, T0 + MIN]);
    // First minute: UPS 60, 54, 60, (none), 60, 54 -> five values.
    assert.equal(week.series.ups.avg[0], (60 + 54 + 60 + 60 + 54) / 5);
    assert.deepEqual([week.series.ups.min[0], week.series.ups.max[0]], [54, 60]);
    assert.deepEqual([week.series.cpu.min[1], week.series.cpu.max[1]], [60, 110]);
    assert.deepEqual(week.series.players.avg, [1, 3]);

    const quarter = store.range(1, "90d", T0 + 2 * MIN);
    assert.equal(quarter.stepMs, 15 * MIN);
    assert.deepEqual(quarter.at, [T0]);
    assert.equal(quarter.series.cpu.avg[0], 55);
    assert.equal(quarter.series.ups.max[0], 60);
    assert.equal(store.range(2, "90d", T0 + MIN).series.ups.avg[0], 1);
  }),
);

Deno.test(
  "up and paused shares, a series with no value in a whole bucket, and a gap where nothing was sampled",
  withStore((store) => {
    store.add(1, sample(T0, { paused: true, ups: null }));
    store.add(1, sample(T0 + 10_000, { paused: true, ups: null }));
    store.add(1, sample(T0 + 20_000));
    store.add(1, sample(T0 + 30_000, { up: false, ups: null, cpu: null, memory: null, players: null }));
    // Nothing from T0 + 40 s to T0 + 5 min (the panel was stopped), then samples again.
    store.add(1, sample(T0 + 5 * MIN));
    store.add(1, sample(T0 + 5 * MIN + 10_000));

    const week = store.range(1, "week", T0 + 5 * MIN + 20_000);
    assert.deepEqual(
      week.at,
      [T0, T0 + MIN, T0 + 5 * MIN],
      "one null point after the last bucket before the gap",
    );
    assert.deepEqual(week.up, [0.75, null, 1]);
    assert.deepEqual(week.paused, [0.5, null, 0]);
    assert.deepEqual(week.series.ups.avg, [60, null, 60]);

    const hour = store.range(1, "hour", T0 + 5 * MIN + 20_000);
    assert.deepEqual(
      hour.series.ups.avg,
      [null, null, 60, null, null, 60, 60],
      "paused and stopped samples have no UPS; then the gap",
    );
    assert.deepEqual(hour.series.cpu.avg.slice(3), [null, null, 50, 50]);
    assert.equal(hour.at[4], T0 + 40_000);

    // Nothing since: the line ends after the last point.
    const later = store.range(1, "hour", T0 + 30 * MIN);
    assert.equal(later.at.at(-1), T0 + 5 * MIN + 20_000);
    assert.equal(later.series.ups.avg.at(-1), null);
  }),
);

Deno.test(
  "events are marked in the range they fall in",
  withStore((store) => {
    store.mark(1, T0 - 2 * 3600_000, "start");
    store.mark(1, T0 + 1000, "backup", "before update");
    store.mark(1, T0 + 2000, "update", "2.0.72 -> 2.0.73");
    store.mark(2, T0 + 3000, "crash");
    store.add(1, sample(T0));
    assert.deepEqual(store.range(1, "hour", T0 + MIN).events, [
      { at: T0 + 1000, kind: "backup", detail: "before update" },
      { at: T0 + 2000, kind: "update", detail: "2.0.72 -> 2.0.73" },
    ]);
    assert.equal(store.range(1, "day", T0 + MIN).events[0].kind, "start");
  }),
);

Deno.test(
  "purge: each resolution keeps its time, in batches that let other writes in between",
  withStore(async (store, db) => {
    const now = T0 + 100 * 24 * 3600_000;
    const count = (tier: number) =>
      (db.prepare("SELECT COUNT(*) AS n FROM health_points WHERE tier = ?").get(tier) as { n: number }).n;
    const insert = db.prepare(
      "INSERT INTO health_points (server, tier, at, n, up_n, paused_n, ups_n, cpu_n, memory_n, players_n, disk_n) VALUES (?, ?, ?, 1, 1, 0, 0, 0, 0, 0, 0)",
    );
    db.exec("BEGIN");
    // Per tier: 1500 points just past its retention (to go) and 10 just inside it (to stay), for two servers.
    for (const [tier, { stepMs, keepMs }] of TIERS.entries()) {
      for (const server of [1, 2]) {
        for (let i = 1; i <= 1500; i++) insert.run(server, tier, now - keepMs - i * stepMs);
        for (let i = 0; i < 10; i++) insert.run(server, tier, now - keepMs + i * stepMs);
      }
    }
    db.exec("COMMIT");
    store.mark(1, now - 91 * 24 * 3600_000, "start");
    store.mark(1, now - 89 * 24 * 3600_000, "stop");

    let seenMidway = -1;
    setTimeout(() => {
      seenMidway = count(0) + count(1) + count(2);
      store.add(1, sample(now)); // a sample written while the purge runs
    }, 0);
    const deleted = await store.purge(now);
    assert.equal(deleted, 3 * 2 * 1500 + 1);
    assert.ok(
      seenMidway > 3 * 2 * 10 && seenMidway < 3 * 2 * 1510,
      `the purge let others in between batches: ${seenMidway} rows then`,
    );
    assert.deepEqual([count(0), count(1), count(2)], [21, 21, 21], "10 kept per server, and the new sample");
    assert.deepEqual(store.range(1, "90d", now).events.map((e) => e.kind), ["stop"]);
  }),
);
