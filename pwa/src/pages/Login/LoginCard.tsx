// The sign-in card as it looks: used by the Login page, and rendered to HTML at build time (prerender.tsx)
// into login.html, so a cold load of /login shows the form before any script has run. That copy is only a
// picture with real inputs: it cannot submit (no <form>, the button is disabled) until the app takes over,
// and what was typed into it is carried over (takeShellValues).

import type { ChangeEvent, FormEvent, ReactNode } from "react";
import { Box, Button, Card, CardContent, Stack, TextField, Typography } from "@mui/material";
import PrecisionManufacturingIcon from "@mui/icons-material/PrecisionManufacturing";
import { factorio } from "../../theme.ts";

/** The id of the pre-rendered copy in login.html. */
export const SHELL_ID = "login-shell";

interface FieldProps {
  name: string;
  value: string;
  onChange?: (e: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => void;
  error?: boolean;
  helperText?: string;
}

function Heading() {
  return (
    <Box sx={{ display: "flex", alignItems: "center", gap: 1.2 }}>
      <PrecisionManufacturingIcon sx={{ color: factorio.orange, fontSize: 36 }} />
      <Box>
        <Typography variant="h5" component="h1">Factorio Panel</Typography>
        <Typography variant="body2" color="text.secondary">Sign in to manage your server</Typography>
      </Box>
    </Box>
  );
}

export function LoginCard(props: {
  onSubmit?: (e: FormEvent) => void;
  busy?: boolean;
  username: FieldProps;
  password: FieldProps;
  /** The build-time copy: no form element and a disabled button, so nothing can be sent before the app runs. */
  shell?: boolean;
  /** Below the Sign In button (the passkey button; not in the build-time copy). */
  extra?: ReactNode;
  /** Shown in the card instead of the form (the second sign-in step). */
  replaceForm?: ReactNode;
}) {
  const { shell = false } = props;
  return (
    <Box sx={{ minHeight: "100vh", display: "grid", placeItems: "center", p: 2 }}>
      <Card sx={{ width: "100%", maxWidth: 400 }}>
        <CardContent>
          {props.replaceForm
            ? (
              <Stack spacing={2.2}>
                <Heading />
                {props.replaceForm}
              </Stack>
            )
            : (
              <Stack component={shell ? "div" : "form"} spacing={2.2} onSubmit={props.onSubmit} noValidate aria-label="Sign in">
                <Heading />
                <TextField label="Username" autoComplete="username" autoFocus={!shell} {...props.username} />
                <TextField label="Password" type="password" autoComplete="current-password" {...props.password} />
                <Button type={shell ? "button" : "submit"} color="primary" size="large" disabled={shell || props.busy}>Sign In</Button>
                {props.extra}
              </Stack>
            )}
        </CardContent>
      </Card>
    </Box>
  );
}

/**
 * Takes what was typed into the pre-rendered copy (if the page was login.html), removes the copy, and
 * returns the values for the real form.
 */
let taken: { username: string; password: string } | null = null;

export function takeShellValues(): { username: string; password: string } {
  if (taken) return taken;
  const shell = typeof document === "undefined" ? null : document.getElementById(SHELL_ID);
  const value = (name: string) => shell?.querySelector<HTMLInputElement>(`input[name="${name}"]`)?.value ?? "";
  taken = { username: value("username"), password: value("password") };
  shell?.remove();
  document.getElementById(SHELL_ID + "-style")?.remove();
  return taken;
}
