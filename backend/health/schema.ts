// The health tables (issue 51), kept apart from store.ts so that store/db.ts can list the migration
// without loading the store.

export const SERIES = ["ups", "cpu", "memory", "players", "disk"] as const;
export type Series = (typeof SERIES)[number];

/** The resolutions: bucket length and how long its points are kept (the issue's 10 s for a day, 1 minute for a week, 15 minutes for 90 days). */
export const TIERS = [
  { stepMs: 10_000, keepMs: 24 * 3600_000 },
  { stepMs: 60_000, keepMs: 7 * 24 * 3600_000 },
  { stepMs: 15 * 60_000, keepMs: 90 * 24 * 3600_000 },
] as const;

/**
 * Points: one row per server, resolution (tier: the index in TIERS) and bucket start (at, ms), with the
 * count of samples (n), of those with the game up and paused, and per series its own count, sum, minimum
 * and maximum. Events: what to mark on a chart's time axis.
 */
export const HEALTH_MIGRATION = {
  id: "051-health",
  sql: `
    CREATE TABLE health_points (
      server INTEGER NOT NULL,
      tier INTEGER NOT NULL,
      at INTEGER NOT NULL,
      n INTEGER NOT NULL,
      up_n INTEGER NOT NULL,
      paused_n INTEGER NOT NULL,
      ${
    SERIES.map((s) => `${s}_n INTEGER NOT NULL, ${s}_sum REAL, ${s}_min REAL, ${s}_max REAL`).join(
      ",\n      ",
    )
  },
      PRIMARY KEY (server, tier, at)
    ) WITHOUT ROWID;
    CREATE TABLE health_events (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      server INTEGER NOT NULL,
      at INTEGER NOT NULL,
      kind TEXT NOT NULL,
      detail TEXT NOT NULL DEFAULT ''
    );
    CREATE INDEX health_events_server_at ON health_events(server, at);
  `,
};
