// The second sign-in step and the caller's own second factors (an authenticator app and recovery codes).

import { z } from "zod";
import { Message, type Routes } from "./route.ts";
import { User } from "./auth.ts";

export const TwoFactorStatus = z.object({
  totp: z.boolean(),
  recovery_codes_left: z.number(),
  passkeys: z.number(),
  /** This panel makes a second factor mandatory for admins. */
  required_for_admins: z.boolean(),
});
export type TwoFactorStatus = z.infer<typeof TwoFactorStatus>;

export const TotpSetup = z.object({
  secret: z.string(),
  /** otpauth://totp/... for the QR code. */
  uri: z.string(),
});
export type TotpSetup = z.infer<typeof TotpSetup>;

const RecoveryCodes = z.object({ recovery_codes: z.array(z.string()) });
const Password = z.object({ password: z.string() });

const own = { role: "viewer", interactive: true } as const;

export const secondFactorRoutes = {
  "POST /api/login/second-factor": {
    summary: "The second sign-in step: a code of the authenticator app or a recovery code",
    public: true,
    body: z.union([z.object({ code: z.string() }), z.object({ recovery_code: z.string() })]),
    answer: User,
  },
  "GET /api/user/2fa": { summary: "Your second factors", ...own, answer: TwoFactorStatus },
  "POST /api/user/2fa/totp/setup": {
    summary: "Start setting up an authenticator app",
    ...own,
    answer: TotpSetup,
  },
  "POST /api/user/2fa/totp/confirm": {
    summary: "Confirm the authenticator app with a code: turns two-factor sign-in on, answers recovery codes",
    ...own,
    body: z.object({ code: z.string() }),
    answer: RecoveryCodes,
  },
  "POST /api/user/2fa/totp/disable": {
    summary: "Turn two-factor sign-in off",
    ...own,
    body: Password,
    answer: Message,
  },
  "POST /api/user/2fa/recovery": {
    summary: "New recovery codes (the old ones stop working)",
    ...own,
    body: Password,
    answer: RecoveryCodes,
  },
} satisfies Routes;
