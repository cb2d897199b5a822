// Shared by the pre-rendered sign-in form's script (shell.ts) and the app, without pulling React or MUI
// into that script.

import type { ReadAnswer } from "../../api/answer.ts";

/** The id of the pre-rendered copy in login.html. */
export const SHELL_ID = "login-shell";

// The states of a sign-in field the pre-rendered copy of the form can show (prerender.tsx renders each,
// pages/Login/shell.ts copies its classes): empty, with a value (the label on the border), focused, and
// each of those with the field's "required" message.
export const SHELL_STATES = [
  "idle",
  "filled",
  "focused",
  "idle-error",
  "filled-error",
  "focused-error",
] as const;
export type ShellFieldState = (typeof SHELL_STATES)[number];

/** What the pre-rendered copy hands over to the app (shell.ts fills it in). */
export interface ShellHandover {
  /** The sign-in the copy sent and that has not been shown yet: the app shows its answer. */
  pending: Promise<ReadAnswer> | null;
  /** A flash message still on screen. */
  flash: string | null;
  /** The "required" messages the copy shows. */
  errors: { username?: string; password?: string };
  /** The passkey button was pressed before the app ran. */
  passkey: boolean;
}

declare global {
  interface Window {
    panelLoginShell?: ShellHandover;
  }
}
