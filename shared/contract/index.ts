// The API contract: every route of the panel's API, by "METHOD /path", with what it takes and answers
// (shared/contract/route.ts says what a route holds). The backend's route table must match it
// (backend/http/contract_test.ts), the app's client is typed by it (pwa/src/api/client.ts), and
// openapi.ts makes the OpenAPI document of it.

import { authRoutes, userRoutes } from "./auth.ts";
import { activityRoutes } from "./activity.ts";
import { secondFactorRoutes } from "./secondfactor.ts";
import { passkeyRoutes } from "./passkeys.ts";
import { tokenRoutes } from "./tokens.ts";
import { serverRoutes } from "./server.ts";
import { logRoutes } from "./logs.ts";
import { saveRoutes } from "./saves.ts";
import { modRoutes } from "./mods.ts";
import { portalRoutes } from "./portal.ts";
import { modPackRoutes } from "./modpacks.ts";
import { modSettingsRoutes } from "./modsettings.ts";
import { worldRoutes } from "./world.ts";
import { settingsRoutes } from "./settings.ts";
import { playerRoutes } from "./players.ts";
import { playerHistoryRoutes } from "./playerhistory.ts";
import { pushRoutes } from "./push.ts";
import { versionRoutes } from "./versions.ts";
import { backupRoutes } from "./backups.ts";
import { scheduleRoutes } from "./schedules.ts";
import { alertRoutes } from "./alerts.ts";
import { transferRoutes } from "./transfer.ts";
import { httpsRoutes } from "./https.ts";
import { referenceRoutes } from "./reference.ts";
import { healthRoutes } from "./health.ts";
import { serversRoutes } from "./servers.ts";
import type { z } from "zod";
import { routeList, type Routes } from "./route.ts";

/**
 * The areas, as the reference groups them (OpenAPI tags). The same objects make the contract below; a key
 * in two of them would be lost there, which contract_test.ts checks.
 */
export const AREAS: Record<string, Routes> = {
  "Signing in": { ...authRoutes, ...secondFactorRoutes },
  "Panel users": userRoutes,
  "API tokens and sessions": tokenRoutes,
  Passkeys: passkeyRoutes,
  Activity: activityRoutes,
  "Game server": serverRoutes,
  "Game log": logRoutes,
  Saves: saveRoutes,
  Mods: modRoutes,
  "Mod portal": portalRoutes,
  "Mod packs": modPackRoutes,
  "Mod settings": modSettingsRoutes,
  World: worldRoutes,
  "Server settings": settingsRoutes,
  Players: playerRoutes,
  "Player history": playerHistoryRoutes,
  "Push notifications": pushRoutes,
  "Game versions": versionRoutes,
  Backups: backupRoutes,
  Schedules: scheduleRoutes,
  "Alert channels": alertRoutes,
  Import: transferRoutes,
  HTTPS: httpsRoutes,
  Reference: referenceRoutes,
  "Server health": healthRoutes,
  Servers: serversRoutes,
};

export const contract = {
  ...authRoutes,
  ...secondFactorRoutes,
  ...userRoutes,
  ...tokenRoutes,
  ...passkeyRoutes,
  ...activityRoutes,
  ...serverRoutes,
  ...logRoutes,
  ...saveRoutes,
  ...modRoutes,
  ...portalRoutes,
  ...modPackRoutes,
  ...modSettingsRoutes,
  ...worldRoutes,
  ...settingsRoutes,
  ...playerRoutes,
  ...playerHistoryRoutes,
  ...pushRoutes,
  ...versionRoutes,
  ...backupRoutes,
  ...scheduleRoutes,
  ...alertRoutes,
  ...transferRoutes,
  ...httpsRoutes,
  ...referenceRoutes,
  ...healthRoutes,
  ...serversRoutes,
};

export type Contract = typeof contract;

/**
 * The areas whose routes act on one Factorio server: each is served as /api/R for server 1 and as
 * /api/servers/{id}/R for any server. The rest (sign-in, users, tokens, push, alert channels, HTTPS, the
 * servers list itself) are the panel's own.
 */
export const SERVER_AREAS = [
  serverRoutes,
  logRoutes,
  saveRoutes,
  modRoutes,
  portalRoutes,
  modPackRoutes,
  modSettingsRoutes,
  worldRoutes,
  settingsRoutes,
  playerRoutes,
  playerHistoryRoutes,
  versionRoutes,
  backupRoutes,
  scheduleRoutes,
  healthRoutes,
] as const satisfies readonly Routes[];

/** The routes that act on one server (a call may name its server: the app's client types it so). */
export type ServerRouteKey = KeysOf<(typeof SERVER_AREAS)[number]>;
type KeysOf<T> = T extends unknown ? keyof T : never;

/** Whether route `key` acts on one server (served under /api/servers/{id} too). */
export function isServerRoute(key: string): boolean {
  return SERVER_AREAS.some((area) => key in area);
}

/** Every route of the contract, method and path taken apart. */
export const contractRoutes = routeList(contract);

// ---- Types of a route, for callers (the app's client, tests) ----

export type RouteKey = keyof Contract;

/** The answer of a route that answers JSON (a file's route has none: it is a link). */
export type AnswerOf<K extends RouteKey> = Contract[K]["answer"] extends z.ZodType
  ? z.output<Contract[K]["answer"]>
  : never;

/** The JSON body a route takes (undefined: none). */
export type BodyOf<K extends RouteKey> = Contract[K] extends { body: infer B extends z.ZodType } ? z.input<B>
  : undefined;

/** The query a route reads (undefined: none). */
export type QueryOf<K extends RouteKey> = Contract[K] extends { query: infer Q extends z.ZodType }
  ? z.input<Q>
  : undefined;

/** The names of a path's parameters: "/api/mods/packs/:pack/mod/delete" has "pack". */
type ParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | ParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}` ? Name
  : never;

/** The values of a route's path parameters (undefined: it has none). */
export type ParamsOf<K extends RouteKey> = [ParamNames<K>] extends [never] ? undefined
  : Record<ParamNames<K>, string | number>;
