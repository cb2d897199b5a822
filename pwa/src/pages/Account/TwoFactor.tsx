// Two-factor sign-in: set up TOTP with a QR code and a first code, keep the ten recovery codes, turn it
// off or make new codes with the password; and the passkeys, which count as a second factor too.

import { type FormEvent, useState } from "react";
import { Alert, Box, Button, Stack, TextField, Typography } from "@mui/material";
import { Panel } from "../../components/Page.tsx";
import { accessApi } from "../../api/access.ts";
import { showFlash } from "../../state/flash.ts";
import { secondFactorAdded } from "../../state/session.ts";
import { QrCode } from "./QrCode.tsx";
import { ACCESS_MSG, type TotpSetup, type TwoFactorStatus } from "../../../../shared/access.ts";

function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <Alert severity="warning" onClose={onDone}>
      Keep these recovery codes somewhere safe: each signs you in once if your phone is lost. They are not
      shown again.
      {/* Each code on one line, whole (a phone broke them at the dash): as many columns as fit. */}
      <Box
        component="ol"
        aria-label="Recovery codes"
        sx={{
          fontFamily: "monospace",
          display: "grid",
          gridTemplateColumns: "repeat(auto-fill, minmax(17ch, 1fr))",
          columnGap: 2,
          mt: 1,
          pl: 0,
          listStylePosition: "inside",
          "& li": { whiteSpace: "nowrap" },
        }}
      >
        {codes.map((c) => <li key={c}>{c}</li>)}
      </Box>
      <Button
        size="small"
        onClick={() =>
          void navigator.clipboard?.writeText(codes.join("\n")).then(() => showFlash("Copied", "success"))}
      >
        Copy
      </Button>
    </Alert>
  );
}

/** Asks the password again for a change that weakens or replaces the second factor. */
function PasswordAction({ label, run }: { label: string; run: (password: string) => Promise<void> }) {
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    try {
      await run(password);
      setPassword("");
    } catch {
      // flashed by the client
    } finally {
      setBusy(false);
    }
  }
  return (
    <Box
      component="form"
      aria-label={label}
      onSubmit={submit}
      sx={{ display: "flex", gap: 1, flexWrap: "wrap", alignItems: "start" }}
    >
      <TextField
        size="small"
        label="Your password"
        type="password"
        autoComplete="current-password"
        value={password}
        onChange={(e) => setPassword(e.target.value)}
      />
      <Button type="submit" variant="outlined" disabled={busy || password === ""} sx={{ minHeight: 44 }}>
        {label}
      </Button>
    </Box>
  );
}

export function TwoFactor({ status, onChanged }: { status: TwoFactorStatus | null; onChanged: () => void }) {
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const [code, setCode] = useState("");
  const [codes, setCodes] = useState<string[] | null>(null);

  async function start() {
    try {
      setSetup(await accessApi.totpSetup());
    } catch {
      // flashed
    }
  }

  async function confirm(e: FormEvent) {
    e.preventDefault();
    try {
      const r = await accessApi.totpConfirm(code.trim());
      secondFactorAdded();
      setCodes(r.recovery_codes);
      setSetup(null);
      setCode("");
      showFlash(ACCESS_MSG.totpEnabled, "success");
      onChanged();
    } catch {
      // flashed (wrong code)
    }
  }

  return (
    <Panel title="Two-Factor Sign-In">
      <Stack spacing={2}>
        {status?.required_for_admins && status.passkeys === 0 && !status.totp && (
          <Alert severity="warning">
            This panel requires admins to use a second factor: set one up here before anything else.
          </Alert>
        )}
        {codes && <RecoveryCodes codes={codes} onDone={() => setCodes(null)} />}
        {status?.totp
          ? (
            <>
              <Typography>
                On: sign-in asks for a code from your authenticator app. {status.recovery_codes_left}{" "}
                of 10 recovery codes left.
              </Typography>
              <PasswordAction
                label="New recovery codes"
                run={async (pw) => {
                  setCodes((await accessApi.newRecoveryCodes(pw)).recovery_codes);
                  onChanged();
                }}
              />
              <PasswordAction
                label="Turn off"
                run={async (pw) => {
                  showFlash(await accessApi.totpDisable(pw), "success");
                  onChanged();
                }}
              />
            </>
          )
          : setup
          ? (
            <Box
              component="form"
              aria-label="Confirm two-factor"
              onSubmit={confirm}
              sx={{ display: "grid", gap: 2, justifyItems: "start" }}
            >
              <Typography>
                Scan this with an authenticator app (Aegis, Google Authenticator, 1Password...), then enter
                the code it shows.
              </Typography>
              <QrCode text={setup.uri} label="QR code for the authenticator app" />
              <Typography variant="body2" color="text.secondary" sx={{ wordBreak: "break-all" }}>
                Or type the key: <code aria-label="Setup key">{setup.secret}</code>
              </Typography>
              <TextField
                label="Code"
                value={code}
                onChange={(e) => setCode(e.target.value)}
                slotProps={{
                  htmlInput: { inputMode: "numeric", autoComplete: "one-time-code", maxLength: 6 },
                }}
              />
              <Box sx={{ display: "flex", gap: 1 }}>
                <Button type="submit" disabled={!/^\d{6}$/.test(code.trim())}>Turn On</Button>
                <Button variant="text" onClick={() => setSetup(null)}>Cancel</Button>
              </Box>
            </Box>
          )
          : (
            <Box>
              <Typography sx={{ mb: 1.5 }}>Off: your password alone signs you in.</Typography>
              <Button onClick={() => void start()}>Set Up Authenticator App</Button>
            </Box>
          )}
      </Stack>
    </Panel>
  );
}
