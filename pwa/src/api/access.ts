// Accounts and access: roles, the activity log, API tokens, sessions and second factors.

import { api } from "./client.ts";
import type { Role, User } from "../../../shared/api.ts";
import type {
  ActivityEntry,
  ApiToken,
  NewApiToken,
  Passkey,
  SecondFactorRequired,
  SessionEntry,
  TotpSetup,
  TwoFactorStatus,
} from "../../../shared/access.ts";

export interface ActivityFilter {
  user?: string;
  action?: string;
  from?: string;
  to?: string;
  limit?: number;
  /** The id older records are read below (the next page). */
  before?: number;
}

export function activityQuery(f: ActivityFilter, csv = false): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v !== undefined && v !== "") q.set(k, String(v));
  if (csv) q.set("format", "csv");
  return `/api/activity?${q}`;
}

export const accessApi = {
  setRole: (username: string, role: Role) => api.post<string>("/api/user/role", { username, role }),
  activity: (f: ActivityFilter) => api.get<ActivityEntry[]>(activityQuery(f)),
  tokens: (all = false) => api.get<ApiToken[]>(`/api/user/tokens${all ? "?all=1" : ""}`),
  createToken: (t: NewApiToken) => api.post<ApiToken & { token: string }>("/api/user/tokens", t),
  revokeToken: (id: number) => api.post<string>(`/api/user/tokens/${id}/revoke`),
  sessions: (all: boolean) => api.get<SessionEntry[]>(`/api/user/sessions${all ? "?all=1" : ""}`),
  revokeSession: (id: number) => api.post<string>(`/api/user/sessions/${id}/revoke`),
  twoFactor: () => api.get<TwoFactorStatus>("/api/user/2fa"),
  totpSetup: () => api.post<TotpSetup>("/api/user/2fa/totp/setup"),
  totpConfirm: (code: string) => api.post<{ recovery_codes: string[] }>("/api/user/2fa/totp/confirm", { code }),
  totpDisable: (password: string) => api.post<string>("/api/user/2fa/totp/disable", { password }),
  newRecoveryCodes: (password: string) => api.post<{ recovery_codes: string[] }>("/api/user/2fa/recovery", { password }),
  passkeys: () => api.get<Passkey[]>("/api/user/passkeys"),
  // deno-lint-ignore no-explicit-any
  passkeyOptions: () => api.post<any>("/api/user/passkeys/options"),
  addPasskey: (name: string, response: unknown) => api.post<Passkey>("/api/user/passkeys", { name, response }),
  renamePasskey: (id: string, name: string) => api.post<Passkey[]>(`/api/user/passkeys/${encodeURIComponent(id)}`, { name }),
  removePasskey: (id: string) => api.post<Passkey[]>(`/api/user/passkeys/${encodeURIComponent(id)}/remove`),
};

/** The sign-in steps after the password. A 401 is an answer here (wrong code), not a lost session. */
export const signInApi = {
  secondFactor: (body: { code: string } | { recovery_code: string }) =>
    api.post<User>("/api/login/second-factor", body, { expect401: true }),
  // deno-lint-ignore no-explicit-any
  passkeyOptions: () => api.post<any>("/api/login/passkey/options", {}, { expect401: true }),
  passkey: (response: unknown) => api.post<User>("/api/login/passkey", { response }, { expect401: true }),
};

export function isSecondFactor(v: unknown): v is SecondFactorRequired {
  return typeof v === "object" && v !== null && (v as SecondFactorRequired).second_factor === true;
}
