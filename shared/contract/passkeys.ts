// Passkeys: the caller's own (add, rename, remove) and signing in with one, as the second step or alone.

import { z } from "zod";
import type { Routes } from "./route.ts";
import { User } from "./auth.ts";

export const Passkey = z.object({
  id: z.string(),
  name: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
}).meta({ id: "Passkey" });
export type Passkey = z.infer<typeof Passkey>;

/** What the browser's WebAuthn call takes (its JSON form), made by @simplewebauthn/server; the panel adds nothing. */
const creationOptions = z.looseObject({
  challenge: z.string(),
  rp: z.looseObject({ name: z.string(), id: z.string().optional() }),
  user: z.looseObject({ id: z.string(), name: z.string(), displayName: z.string() }),
  pubKeyCredParams: z.array(z.looseObject({ type: z.literal("public-key"), alg: z.number() })),
}).meta({
  id: "PublicKeyCredentialCreationOptionsJSON",
  description:
    "WebAuthn registration options (W3C WebAuthn Level 3, PublicKeyCredentialCreationOptionsJSON).",
});
const requestOptions = z.looseObject({ challenge: z.string() }).meta({
  id: "PublicKeyCredentialRequestOptionsJSON",
  description: "WebAuthn sign-in options (W3C WebAuthn Level 3, PublicKeyCredentialRequestOptionsJSON).",
});
/** The browser's credential as its toJSON() gives it. */
const credential = z.looseObject({ id: z.string() }).meta({
  id: "PublicKeyCredentialJSON",
  description: "The browser's PublicKeyCredential.toJSON().",
});

const own = { role: "viewer", interactive: true } as const;

export const passkeyRoutes = {
  "GET /api/user/passkeys": { summary: "Your passkeys", ...own, answer: z.array(Passkey) },
  "POST /api/user/passkeys/options": { summary: "Start adding a passkey", ...own, answer: creationOptions },
  "POST /api/user/passkeys": {
    summary: "Add the passkey the browser made",
    ...own,
    body: z.object({ name: z.string(), response: credential }),
    answer: Passkey,
  },
  "POST /api/user/passkeys/:id": {
    summary: "Rename a passkey; answers your passkeys",
    ...own,
    body: z.object({ name: z.string() }),
    answer: z.array(Passkey),
  },
  "POST /api/user/passkeys/:id/remove": {
    summary: "Remove a passkey; answers your passkeys",
    ...own,
    answer: z.array(Passkey),
  },
  "POST /api/login/passkey/options": {
    summary: "Start signing in with a passkey (after the password, or without one)",
    public: true,
    answer: requestOptions,
  },
  "POST /api/login/passkey": {
    summary: "Sign in with the passkey the browser chose",
    public: true,
    body: z.object({ response: credential }),
    answer: User,
  },
} satisfies Routes;
