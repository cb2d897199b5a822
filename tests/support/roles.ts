// Test helpers for roles: users of each role signed in, and API token clients.

import { Client, type TestPanel } from "./harness.ts";
import type { Role } from "../../shared/api.ts";

export const ROLE_PASSWORD = "role-test-password";

/** Adds a user with `role` (through the API, as an admin would) and signs them in. */
export async function userWithRole(
  p: TestPanel,
  admin: Client,
  username: string,
  role: Role,
): Promise<Client> {
  const r = await admin.post("/api/user/add", {
    username,
    role,
    email: `${username}@example.org`,
    password: ROLE_PASSWORD,
    password_confirmation: ROLE_PASSWORD,
  });
  if (r.status !== 200) throw new Error(`adding ${username}: ${r.status} ${r.text}`);
  return await p.login(username, ROLE_PASSWORD);
}

/** A script's client: no cookie, no Origin, the token in Authorization. */
export class TokenClient extends Client {
  constructor(base: string, readonly token: string) {
    super(base, base);
  }

  override request(method: string, path: string, init: Parameters<Client["request"]>[2] = {}) {
    return super.request(method, path, {
      noOrigin: true,
      ...init,
      headers: { Authorization: `Bearer ${this.token}`, ...init.headers },
    });
  }
}

/** Makes a token for the signed-in `owner` and answers a client that uses it. */
export async function tokenClient(p: TestPanel, owner: Client, role: Role, days = 30): Promise<TokenClient> {
  const r = await owner.post("/api/user/tokens", { name: `${role} script`, role, expires_days: days });
  if (r.status !== 200) throw new Error(`making a token: ${r.status} ${r.text}`);
  return new TokenClient(p.url, r.body.token);
}
