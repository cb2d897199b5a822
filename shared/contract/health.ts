// Server health (issue 51): the live figures of the game (CPU, memory, disk, players, map age, UPS), their
// history for the charts, and the admin's choices (exact UPS, the public status page). /metrics and the
// public /status/{server} pages are outside /api (Prometheus and anyone may read them) and not here.

import { z } from "zod";
import type { Routes } from "./route.ts";
import { ServerState } from "./server.ts";

/**
 * How the UPS figure stands: "measuring" until the window is long enough to be within 2%, "paused" when
 * the game answers with a clock that stands still (auto_pause with nobody online), "no-answer" when the
 * process runs and the console does not answer (hung, past the alert's seconds).
 */
export const UpsState = z.enum(["stopped", "measuring", "running", "paused", "no-answer"]);
export type UpsState = z.infer<typeof UpsState>;

/** GET /api/health: the last sample of the server. */
export const HealthNow = z.object({
  server: z.string(),
  at: z.string(),
  state: ServerState,
  ups: z.number().nullable(),
  ups_state: UpsState,
  /** The most the UPS figure can be off (from the clock's resolution over the window). */
  ups_error: z.number().nullable(),
  no_answer_since: z.string().nullable(),
  exact_ups: z.boolean(),
  /** CPU of the game process, % of one core, over the last minute. */
  cpu_percent: z.number().nullable(),
  memory_bytes: z.number().nullable(),
  /** Free bytes on the fuller of the saves' and backups' volumes. */
  disk_free_bytes: z.number().nullable(),
  players_online: z.number().nullable(),
  map_age_s: z.number().nullable(),
}).meta({ id: "HealthNow" });
export type HealthNow = z.infer<typeof HealthNow>;

export const HealthRange = z.enum(["hour", "day", "week", "90d"]);
export type HealthRange = z.infer<typeof HealthRange>;

const Column = z.array(z.number().nullable());
const SeriesPoints = z.object({ avg: Column, min: Column, max: Column });

export const HealthEventKind = z.enum(["start", "stop", "crash", "update", "backup"]);

/** GET /api/health/history?range=: columns of points (one array of times, one per series) and the marks. */
export const HealthHistory = z.object({
  range: HealthRange,
  stepMs: z.number(),
  from: z.number(),
  to: z.number(),
  at: z.array(z.number()),
  up: Column,
  paused: Column,
  series: z.object({
    ups: SeriesPoints,
    cpu: SeriesPoints,
    memory: SeriesPoints,
    players: SeriesPoints,
    disk: SeriesPoints,
  }),
  events: z.array(z.object({ at: z.number(), kind: HealthEventKind, detail: z.string() })),
}).meta({ id: "HealthHistory" });
export type HealthHistory = z.infer<typeof HealthHistory>;

/** The admin's choices. */
export const HealthSettings = z.object({
  /** UPS from game.tick over RCON (a Lua command: achievements are off for that save from then on). */
  exact_ups: z.boolean(),
  /** /status/{server}, .json and .svg answer without sign-in. */
  public_status: z.boolean(),
  /** The public status names the players online (else only their count). */
  public_players: z.boolean(),
  /** The address players join with, shown on the public page ("" shows the game's own). */
  public_address: z.string(),
}).meta({ id: "HealthSettings" });
export type HealthSettings = z.infer<typeof HealthSettings>;

export const healthRoutes = {
  "GET /api/health": {
    summary: "The game's health now: CPU, memory, free disk, players online, map age and UPS",
    role: "viewer",
    answer: HealthNow,
  },
  "GET /api/health/history": {
    summary:
      "Health points over ?range= (hour, day, week or 90d) with starts, stops, crashes, updates and backups",
    role: "viewer",
    query: z.object({ range: z.string().optional() }),
    answer: HealthHistory,
  },
  "GET /api/health/settings": {
    summary: "Exact UPS and the public status page: what is switched on",
    role: "viewer",
    answer: HealthSettings,
  },
  "POST /api/health/settings": {
    summary: "Switch exact UPS or the public status page (and what it shows)",
    role: "admin",
    body: HealthSettings.partial(),
    answer: HealthSettings,
  },
} satisfies Routes;
