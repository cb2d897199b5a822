// The sign-in card as it looks: used by the Login page, and rendered to HTML at build time (prerender.tsx)
// into login.html, so a cold load of /login shows the form before any script has run. That copy has no
// <form> (Enter before any script ran must not send the password in a URL); a few KiB of script (shell.ts)
// make it work until the app takes over, and what was typed or sent through it is carried over
// (takeShellValues).

import type { ChangeEvent, FormEvent, ReactNode } from "react";
import { Box, Button, Card, CardContent, Stack, TextField, Typography } from "@mui/material";
import PrecisionManufacturingIcon from "@mui/icons-material/PrecisionManufacturing";
import { factorio } from "../../theme.ts";

import { SHELL_ID, type ShellHandover } from "./shellStates.ts";

export { SHELL_ID };

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
  /** The build-time copy: no form element and a plain button, so nothing is sent before a script handles it. */
  shell?: boolean;
  /** The field to focus when the app takes over (the one the visitor was typing in). */
  focus?: "username" | "password";
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
              <Stack
                component={shell ? "div" : "form"}
                spacing={2.2}
                onSubmit={props.onSubmit}
                noValidate
                aria-label="Sign in"
              >
                <Heading />
                <TextField
                  label="Username"
                  autoComplete="username"
                  autoFocus={!shell && props.focus !== "password"}
                  {...props.username}
                />
                <TextField
                  label="Password"
                  type="password"
                  autoComplete="current-password"
                  autoFocus={!shell && props.focus === "password"}
                  {...props.password}
                />
                <Button type={shell ? "button" : "submit"} color="primary" size="large" disabled={props.busy}>
                  Sign In
                </Button>
                {props.extra}
              </Stack>
            )}
        </CardContent>
      </Card>
    </Box>
  );
}

export interface TakenShell {
  username: string;
  password: string;
  focus?: "username" | "password";
  handover: ShellHandover | null;
}

let taken: TakenShell | null = null;

/**
 * Takes what was typed into the pre-rendered copy (if the page was login.html) and what it sent, removes the
 * copy, and returns the values for the real form.
 */
export function takeShellValues(): TakenShell {
  if (taken) return taken;
  const shell = typeof document === "undefined" ? null : document.getElementById(SHELL_ID);
  const input = (name: string) => shell?.querySelector<HTMLInputElement>(`input[name="${name}"]`) ?? null;
  const value = (name: string) => input(name)?.value ?? "";
  const active = typeof document === "undefined" ? null : document.activeElement;
  const focus = active && active === input("password")
    ? "password"
    : active && active === input("username")
    ? "username"
    : undefined;
  const handover = (shell && typeof window !== "undefined" ? window.panelLoginShell : undefined) ?? null;
  taken = { username: value("username"), password: value("password"), focus, handover };
  // The copy's script sees it is gone and leaves the rest to the app.
  shell?.remove();
  document.getElementById(SHELL_ID + "-style")?.remove();
  document.getElementById(SHELL_ID + "-states")?.remove();
  return taken;
}

/** For tests: forget what was taken. */
export function resetShellForTests(): void {
  taken = null;
}
