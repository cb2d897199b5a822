// Signing in and out, the session user, and the panel's users (admins manage them; everyone changes their
// own password).

import { z } from "zod";
import { MSG } from "../messages.ts";
import { ACCESS_MSG } from "../access.ts";
import { ROLES } from "../api.ts";
import { Message, type Routes } from "./route.ts";
import { ServerStatus } from "./server.ts";

// A request's unknown role is named in the refusal (ACCESS_MSG.roleUnknown).
export const Role = z.enum(ROLES, { error: (iss) => ACCESS_MSG.roleUnknown(String(iss.input ?? "")) });

/** What GET /api/user/status, POST /api/login and GET /api/user/list answer per user. Never a hash. */
export const User = z.object({
  username: z.string(),
  role: Role,
  email: z.string(),
  /** Only on the signed-in user, when the panel requires a second factor this admin has not set up. */
  must_enrol: z.boolean().optional(),
  /** Only on the session user: true while they still use the password the first start generated. */
  generated_password: z.boolean().optional(),
  /**
   * A viewer's or operator's role on each server they may see, by server id (an admin has every server and
   * this is absent). `role` is their role on server 1, as the old panel knew it.
   */
  servers: z.record(z.string(), Role).optional(),
}).meta({ id: "User" });
export type User = z.infer<typeof User>;

/** POST /api/login answers this instead of the user when a second step is needed. */
export const SecondFactorRequired = z.object({
  second_factor: z.literal(true),
  methods: z.array(z.enum(["totp", "recovery", "passkey"])),
}).meta({ id: "SecondFactorRequired" });
export type SecondFactorRequired = z.infer<typeof SecondFactorRequired>;

/**
 * POST /api/login's answer: the second step, or the user with the game server's status (when their
 * session may read it), so the first page shows without one more round trip on a slow network.
 */
export const LoginAnswer = z.union([
  User.extend({ server_status: ServerStatus.optional() }),
  SecondFactorRequired,
]);
export type LoginAnswer = z.infer<typeof LoginAnswer>;

// Each field's refusal is the spec's words (shared/validation.ts says the same of an empty one).
export const LoginRequest = z.object({
  username: z.string({ error: MSG.usernameRequired }),
  password: z.string({ error: MSG.passwordRequired }),
});
export type LoginRequest = z.infer<typeof LoginRequest>;

/** POST /api/user/add. Without a role the user is an admin (the old wire format, from when all were). */
export const NewUser = z.object({
  username: z.string({ error: MSG.usernameRequired }),
  role: Role.optional(),
  email: z.string({ error: MSG.emailRequired }),
  password: z.string({ error: MSG.passwordRequired }),
  password_confirmation: z.string({ error: MSG.passwordConfirmationMismatch }),
  /** A viewer's or operator's role per server id (absent: `role` on server 1). Not for an admin. */
  servers: z.record(z.string(), Role, { error: ACCESS_MSG.serverRolesShape }).optional(),
});
export type NewUser = z.infer<typeof NewUser>;

export const PasswordChange = z.object({
  old_password: z.string({ error: MSG.oldPasswordRequired }),
  new_password: z.string({ error: MSG.newPasswordRequired }),
  new_password_confirmation: z.string({ error: MSG.newPasswordConfirmationRequired }),
});
export type PasswordChange = z.infer<typeof PasswordChange>;

export const RoleChange = z.object({ username: z.string({ error: MSG.usernameRequired }), role: Role });
export type RoleChange = z.infer<typeof RoleChange>;

/** POST /api/user/servers: a user's role per server id; null takes the server away from them. */
export const ServerRolesChange = z.object({
  username: z.string({ error: MSG.usernameRequired }),
  servers: z.record(z.string(), Role.nullable(), { error: ACCESS_MSG.serverRolesShape }),
});
export type ServerRolesChange = z.infer<typeof ServerRolesChange>;

export const authRoutes = {
  "POST /api/login": {
    summary:
      "Sign in with a user name and password: the user (and the game's status), or the second step due",
    public: true,
    body: LoginRequest,
    answer: LoginAnswer,
  },
  "GET /api/logout": {
    summary: "Sign out this session",
    role: "viewer",
    changesState: true,
    answer: Message,
  },
  "GET /api/user/status": { summary: "The signed-in user", role: "viewer", answer: User },
} satisfies Routes;

export const userRoutes = {
  "GET /api/user/list": { summary: "The panel's users", role: "admin", answer: z.array(User) },
  "POST /api/user/add": { summary: "Add a panel user", role: "admin", body: NewUser, answer: Message },
  "POST /api/user/remove": {
    summary: "Remove a panel user (not yourself, not the last admin)",
    role: "admin",
    body: z.object({ username: z.string({ error: MSG.usernameRequired }) }),
    answer: Message,
  },
  "POST /api/user/password": {
    summary: "Change your own password: ends your other sessions and revokes your API tokens",
    role: "viewer",
    interactive: true,
    body: PasswordChange,
    answer: z.literal(true),
  },
  "POST /api/user/role": {
    summary: "Change a user's role (a viewer's or operator's: their role on server 1)",
    role: "admin",
    body: RoleChange,
    answer: Message,
  },
  "POST /api/user/servers": {
    summary: "Set a viewer's or operator's role on servers (null: no access)",
    role: "admin",
    body: ServerRolesChange,
    answer: Message,
  },
} satisfies Routes;
