// Accounts and access: roles, the activity log, API tokens, sessions and second factors.

import { ApiError, call } from "./client.ts";
import type { Role } from "../../../shared/api.ts";
import type { NewApiToken, SecondFactorRequired } from "../../../shared/access.ts";

export interface ActivityFilter {
  user?: string;
  action?: string;
  from?: string;
  to?: string;
  /** A server's id: only its records ("" or absent: all). */
  server?: string;
  limit?: number;
  /** The id older records are read below (the next page). */
  before?: number;
}

/** The filter's fields that are set (an empty text field filters nothing). */
function activityParams(f: ActivityFilter): ActivityFilter {
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== undefined && v !== ""));
}

export function activityQuery(f: ActivityFilter, csv = false): string {
  const q = new URLSearchParams(Object.entries(activityParams(f)).map(([k, v]) => [k, String(v)]));
  if (csv) q.set("format", "csv");
  return `/api/activity?${q}`;
}

/** A server as the role and token forms name it. */
export interface ServerName {
  id: number;
  name: string;
}

/** What a panel without a servers list (GET /api/servers answers 404) has: its one server. */
export const ONLY_SERVER: ServerName[] = [{ id: 1, name: "Server 1" }];

/** The servers the caller may see, by name; a panel that does not list servers has server 1 only. */
export async function serverNames(): Promise<ServerName[]> {
  try {
    const list = await call("GET /api/servers", {}, { quiet: true });
    return list.map(({ id, name }) => ({ id, name }));
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return ONLY_SERVER;
    throw e;
  }
}

export const accessApi = {
  setRole: (username: string, role: Role) => call("POST /api/user/role", { body: { username, role } }),
  /** A viewer's or operator's role per server id; null takes the server away. */
  setServers: (username: string, servers: Record<string, "operator" | "viewer" | null>) =>
    call("POST /api/user/servers", { body: { username, servers } }),
  activity: (f: ActivityFilter) => call("GET /api/activity", { query: activityParams(f) }),
  tokens: (all = false) => call("GET /api/user/tokens", { query: { all: all ? "1" : undefined } }),
  createToken: (t: NewApiToken) => call("POST /api/user/tokens", { body: t }),
  revokeToken: (id: number) => call("POST /api/user/tokens/:id/revoke", { params: { id } }),
  sessions: (all: boolean) => call("GET /api/user/sessions", { query: { all: all ? "1" : undefined } }),
  revokeSession: (id: number) => call("POST /api/user/sessions/:id/revoke", { params: { id } }),
  twoFactor: () => call("GET /api/user/2fa"),
  totpSetup: () => call("POST /api/user/2fa/totp/setup"),
  totpConfirm: (code: string) => call("POST /api/user/2fa/totp/confirm", { body: { code } }),
  totpDisable: (password: string) => call("POST /api/user/2fa/totp/disable", { body: { password } }),
  newRecoveryCodes: (password: string) => call("POST /api/user/2fa/recovery", { body: { password } }),
  passkeys: () => call("GET /api/user/passkeys"),
  passkeyOptions: () => call("POST /api/user/passkeys/options"),
  addPasskey: (name: string, response: { id: string }) =>
    call("POST /api/user/passkeys", { body: { name, response } }),
  renamePasskey: (id: string, name: string) =>
    call("POST /api/user/passkeys/:id", { params: { id }, body: { name } }),
  removePasskey: (id: string) => call("POST /api/user/passkeys/:id/remove", { params: { id } }),
};

/** The sign-in steps after the password. A 401 is an answer here (wrong code), not a lost session. */
export const signInApi = {
  secondFactor: (body: { code: string } | { recovery_code: string }) =>
    call("POST /api/login/second-factor", { body }, { expect401: true }),
  passkeyOptions: () => call("POST /api/login/passkey/options", {}, { expect401: true }),
  passkey: (response: { id: string }) =>
    call("POST /api/login/passkey", { body: { response } }, { expect401: true }),
};

export function isSecondFactor(v: unknown): v is SecondFactorRequired {
  return typeof v === "object" && v !== null && (v as SecondFactorRequired).second_factor === true;
}
