import { useEffect, useState, type FormEvent } from "react";
import { useLocation, useNavigate } from "react-router-dom";
import { Box, Button, Card, CardContent, Stack, TextField, Typography } from "@mui/material";
import PrecisionManufacturingIcon from "@mui/icons-material/PrecisionManufacturing";
import { useSnapshot } from "valtio";
import { usersApi } from "../../api/users.ts";
import { ApiError } from "../../api/client.ts";
import { showFlash } from "../../state/flash.ts";
import { session, signedIn, takeReturn } from "../../state/session.ts";
import { MSG } from "../../../../shared/messages.ts";
import { validateLogin } from "../../../../shared/validation.ts";
import { useForm } from "../../components/useForm.ts";
import { factorio } from "../../theme.ts";
import { isSecondFactor } from "../../api/access.ts";
import type { SecondFactorRequired } from "../../../../shared/access.ts";
import { PasskeyButton, SecondStep } from "./SecondStep.tsx";

export default function Login() {
  const form = useForm({ username: "", password: "" }, validateLogin);
  const [busy, setBusy] = useState(false);
  const [second, setSecond] = useState<SecondFactorRequired["methods"] | null>(null);
  const navigate = useNavigate();
  const location = useLocation();
  const { state } = useSnapshot(session);
  const from = (location.state as { from?: string } | null)?.from;

  // Already signed in (a session existed on load): straight to where the visitor was going.
  useEffect(() => {
    if (state === "signedIn") navigate(takeReturn(from), { replace: true });
  }, [state, from, navigate]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!form.check()) return;
    setBusy(true);
    try {
      const answer = await usersApi.login({ username: form.values.username.trim(), password: form.values.password });
      if (isSecondFactor(answer)) setSecond(answer.methods);
      else signedIn(answer);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) showFlash(MSG.loginFailed, "error");
    } finally {
      setBusy(false);
    }
  }

  return (
    <Box sx={{ minHeight: "100vh", display: "grid", placeItems: "center", p: 2 }}>
      <Card sx={{ width: "100%", maxWidth: 400 }}>
        <CardContent>
          <Box sx={{ display: "flex", alignItems: "center", gap: 1.2, mb: 2.2 }}>
            <PrecisionManufacturingIcon sx={{ color: factorio.orange, fontSize: 36 }} />
            <Box>
              <Typography variant="h5" component="h1">Factorio Panel</Typography>
              <Typography variant="body2" color="text.secondary">Sign in to manage your server</Typography>
            </Box>
          </Box>
          {second ? <SecondStep methods={second} onCancel={() => setSecond(null)} /> : (
          <Stack component="form" spacing={2.2} onSubmit={submit} noValidate aria-label="Sign in">
            <TextField
              label="Username"
              autoComplete="username"
              autoFocus
              {...form.field("username")}
            />
            <TextField
              label="Password"
              type="password"
              autoComplete="current-password"
              {...form.field("password")}
            />
            <Button type="submit" color="primary" size="large" disabled={busy}>Sign In</Button>
            <PasskeyButton label="Use a passkey" />
          </Stack>
          )}
        </CardContent>
      </Card>
    </Box>
  );
}
