import { call } from "./client.ts";
import type { LoginRequest, NewUser, PasswordChange } from "../../../shared/api.ts";

export const usersApi = {
  /** The user, or a second step to take (see api/access.ts). */
  login: (body: LoginRequest) => call("POST /api/login", { body }, { expect401: true }),
  logout: () => call("GET /api/logout"),
  status: () => call("GET /api/user/status", {}, { quiet: true }),
  list: () => call("GET /api/user/list"),
  add: (user: NewUser) => call("POST /api/user/add", { body: user }),
  remove: (username: string) => call("POST /api/user/remove", { body: { username } }),
  changePassword: (body: PasswordChange) => call("POST /api/user/password", { body }),
};
