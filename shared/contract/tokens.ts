// The caller's own API tokens and signed-in sessions (admins may list and end everyone's with ?all=1).

import { z } from "zod";
import { ACCESS_MSG, TOKEN_MAX_DAYS } from "../access.ts";
import { Message, type Routes } from "./route.ts";
import { Role } from "./auth.ts";

export const ApiToken = z.object({
  id: z.number(),
  name: z.string(),
  role: Role,
  created_at: z.string(),
  expires_at: z.string(),
  last_used_at: z.string().nullable(),
  last_used_address: z.string(),
  /** Expired or revoked tokens are listed until they are swept, so their owner sees what happened. */
  state: z.enum(["active", "expired", "revoked"]),
  /** The owner, in an admin's list of everyone's tokens (?all=1). */
  username: z.string().optional(),
  /** The servers the token may act on (null: every server its owner may). */
  servers: z.array(z.number()).nullable(),
}).meta({ id: "ApiToken" });
export type ApiToken = z.infer<typeof ApiToken>;

/** POST /api/user/tokens. Without a role the token has the user's. */
export const NewApiToken = z.object({
  name: z.string({ error: ACCESS_MSG.tokenNameRequired }),
  role: Role.optional(),
  expires_days: z.number({ error: ACCESS_MSG.tokenExpiryRange(TOKEN_MAX_DAYS) }),
  /** Limit the token to these servers (absent: every server its owner may act on). */
  servers: z.array(z.number({ error: ACCESS_MSG.tokenServersShape }), { error: ACCESS_MSG.tokenServersShape })
    .optional(),
});
export type NewApiToken = z.infer<typeof NewApiToken>;

export const SessionEntry = z.object({
  id: z.number(),
  username: z.string(),
  address: z.string(),
  user_agent: z.string(),
  created_at: z.string(),
  last_seen_at: z.string(),
  /** The session this request came with. */
  current: z.boolean(),
});
export type SessionEntry = z.infer<typeof SessionEntry>;

const everyone = z.object({ all: z.literal("1").optional() });
const own = { role: "viewer", interactive: true } as const;

export const tokenRoutes = {
  "GET /api/user/tokens": {
    summary: "Your API tokens (an admin's ?all=1: everyone's)",
    ...own,
    query: everyone,
    answer: z.array(ApiToken),
  },
  "POST /api/user/tokens": {
    summary: "Make an API token: its secret is in this answer only",
    ...own,
    body: NewApiToken,
    answer: ApiToken.extend({ token: z.string() }),
  },
  "POST /api/user/tokens/:id/revoke": { summary: "Revoke an API token", ...own, answer: Message },
  "GET /api/user/sessions": {
    summary: "Your signed-in sessions (an admin's ?all=1: everyone's)",
    ...own,
    query: everyone,
    answer: z.array(SessionEntry),
  },
  "POST /api/user/sessions/:id/revoke": { summary: "End a signed-in session", ...own, answer: Message },
} satisfies Routes;
