import { api } from "./client.ts";
import type { LoginAnswer, LoginRequest, NewUser, PasswordChange, User } from "../../../shared/api.ts";

export const usersApi = {
  /** The user, or a second step to take (see api/access.ts). */
  login: (body: LoginRequest) => api.post<LoginAnswer>("/api/login", body, { expect401: true }),
  logout: () => api.get<string>("/api/logout"),
  status: () => api.get<User>("/api/user/status", { quiet: true }),
  list: () => api.get<User[]>("/api/user/list"),
  add: (user: NewUser) => api.post<string>("/api/user/add", user),
  remove: (username: string) => api.post<string>("/api/user/remove", { username }),
  changePassword: (body: PasswordChange) => api.post<boolean>("/api/user/password", body),
};
