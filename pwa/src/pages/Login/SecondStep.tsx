// The sign-in steps after the password: a code from the authenticator app, a recovery code, or a
// passkey; and the passwordless passkey button of the first step.

import { type FormEvent, useState } from "react";
import { Box, Button, Link, Stack, TextField, Typography } from "@mui/material";
import KeyIcon from "@mui/icons-material/Key";
import { startAuthentication } from "@simplewebauthn/browser";
import { signInApi } from "../../api/access.ts";
import { ApiError } from "../../api/client.ts";
import { showFlash } from "../../state/flash.ts";
import type { SecondFactorRequired } from "../../../../shared/access.ts";
import type { User } from "../../../../shared/api.ts";

/** What the sign-in page does with the user a sign-in step returns (Login: mark signed in and go on). */
export type OnSignedIn = (user: User) => void;

/** Runs the browser's passkey prompt and signs in with the answer (passwordless, or as the second step). */
export async function signInWithPasskey(onSignedIn: OnSignedIn): Promise<void> {
  try {
    const optionsJSON = await signInApi.passkeyOptions();
    const response = await startAuthentication({ optionsJSON });
    onSignedIn(await signInApi.passkey(response));
  } catch (err) {
    if (err instanceof ApiError) {
      if (err.status === 401) showFlash(err.message, "error");
      return;
    }
    // The person closed the prompt, or the browser has no passkey for this site.
    showFlash("No passkey was used.", "info");
  }
}

export function PasskeyButton({ label, onSignedIn }: { label: string; onSignedIn: OnSignedIn }) {
  const [busy, setBusy] = useState(false);
  return (
    <Button
      variant="outlined"
      startIcon={<KeyIcon />}
      disabled={busy}
      onClick={() => {
        setBusy(true);
        void signInWithPasskey(onSignedIn).finally(() => setBusy(false));
      }}
    >
      {label}
    </Button>
  );
}

export function SecondStep(
  { methods, onCancel, onSignedIn }: {
    methods: SecondFactorRequired["methods"];
    onCancel: () => void;
    onSignedIn: OnSignedIn;
  },
) {
  const [recovery, setRecovery] = useState(!methods.includes("totp"));
  const [code, setCode] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (code.trim() === "") {
      setError(recovery ? "Recovery code is required" : "Code is required");
      return;
    }
    setBusy(true);
    try {
      onSignedIn(
        await signInApi.secondFactor(recovery ? { recovery_code: code.trim() } : { code: code.trim() }),
      );
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        setError(err.message);
        // The sign-in took too long: start again from the password.
        if (/password again/.test(err.message)) onCancel();
      }
    } finally {
      setBusy(false);
    }
  }

  const hasCodes = methods.includes("totp");
  return (
    <Stack component="form" spacing={2} onSubmit={submit} noValidate aria-label="Second step">
      <Typography variant="h6" component="h2">Two-factor sign-in</Typography>
      {hasCodes && (
        <>
          <TextField
            label={recovery ? "Recovery code" : "Code from your authenticator app"}
            value={code}
            autoFocus
            onChange={(e) => {
              setCode(e.target.value);
              setError("");
            }}
            error={error !== ""}
            helperText={error || (recovery
              ? "One of the ten codes you kept; each works once."
              : "Six digits, new every 30 seconds.")}
            slotProps={{
              htmlInput: recovery
                ? { autoComplete: "off", autoCapitalize: "off", spellCheck: false }
                : { inputMode: "numeric", autoComplete: "one-time-code", pattern: "[0-9]*", maxLength: 6 },
            }}
          />
          <Button type="submit" size="large" disabled={busy}>Verify</Button>
          <Link
            component="button"
            type="button"
            onClick={() => {
              setRecovery(!recovery);
              setCode("");
              setError("");
            }}
            sx={{ alignSelf: "flex-start", minHeight: 44 }}
          >
            {recovery ? "Use the authenticator app" : "Use a recovery code"}
          </Link>
        </>
      )}
      {methods.includes("passkey") && <PasskeyButton label="Use a passkey" onSignedIn={onSignedIn} />}
      <Box>
        <Button variant="text" onClick={onCancel}>Back</Button>
      </Box>
    </Stack>
  );
}
