// Validation rules of the spec (section 5), shared by the PWA forms and the backend, so a request the
// form would refuse is refused by the server with the same words.

import { MSG, PANEL_MSG } from "./messages.ts";

export type FieldErrors<K extends string> = Partial<Record<K, string>>;

function blank(value: unknown): boolean {
  return typeof value !== "string" || value.trim() === "";
}

function absent(value: unknown): boolean {
  return typeof value !== "string" || value === "";
}

/** New and changed passwords; signing in with an older, shorter one still works. */
export const PASSWORD_MIN = 10;

function tooShort(value: unknown): boolean {
  return typeof value === "string" && [...value].length < PASSWORD_MIN;
}

export function validateLogin(v: { username?: unknown; password?: unknown }): FieldErrors<"username" | "password"> {
  const e: FieldErrors<"username" | "password"> = {};
  if (blank(v.username)) e.username = MSG.usernameRequired;
  if (absent(v.password)) e.password = MSG.passwordRequired;
  return e;
}

export type NewUserField = "username" | "email" | "password" | "password_confirmation";

export function validateNewUser(v: {
  username?: unknown;
  email?: unknown;
  password?: unknown;
  password_confirmation?: unknown;
}): FieldErrors<NewUserField> {
  const e: FieldErrors<NewUserField> = {};
  if (blank(v.username)) e.username = MSG.usernameRequired;
  if (blank(v.email)) e.email = MSG.emailRequired;
  if (absent(v.password)) e.password = MSG.passwordRequired;
  else if (tooShort(v.password)) e.password = PANEL_MSG.passwordTooShort;
  if (absent(v.password_confirmation) || v.password_confirmation !== v.password) {
    e.password_confirmation = MSG.passwordConfirmationMismatch;
  }
  return e;
}

export type PasswordChangeField = "old_password" | "new_password" | "new_password_confirmation";

export function validatePasswordChange(v: {
  old_password?: unknown;
  new_password?: unknown;
  new_password_confirmation?: unknown;
}): FieldErrors<PasswordChangeField> {
  const e: FieldErrors<PasswordChangeField> = {};
  if (absent(v.old_password)) e.old_password = MSG.oldPasswordRequired;
  if (absent(v.new_password)) e.new_password = MSG.newPasswordRequired;
  else if (tooShort(v.new_password)) e.new_password = PANEL_MSG.passwordTooShort;
  if (absent(v.new_password_confirmation)) e.new_password_confirmation = MSG.newPasswordConfirmationRequired;
  return e;
}

/** Dotted IPv4 with each octet 0-255 (spec: start server form). */
export function isIPv4(value: string): boolean {
  const parts = value.split(".");
  if (parts.length !== 4) return false;
  return parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255);
}

export type StartField = "bindip" | "port" | "savefile";

/** A port as a form or an old client sends it: a number, or its decimal text. NaN when it is neither. */
export function portNumber(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "string" && /^\s*\d+\s*$/.test(value)) return Number(value);
  return NaN;
}

/** The start form of the Controls page (spec section 5). */
export function validateStart(v: { bindip?: unknown; port?: unknown; savefile?: unknown }): FieldErrors<StartField> {
  const e: FieldErrors<StartField> = {};
  if (typeof v.bindip !== "string" || !isIPv4(v.bindip.trim())) e.bindip = MSG.ipInvalid;
  const port = portNumber(v.port);
  if (!Number.isInteger(port) || port < 1) e.port = MSG.portRequired;
  else if (port > 65535) e.port = PANEL_MSG.portRange;
  if (blank(v.savefile)) e.savefile = MSG.saveRequired;
  return e;
}

export function firstError<K extends string>(errors: FieldErrors<K>): string | undefined {
  for (const key of Object.keys(errors) as K[]) {
    const message = errors[key];
    if (message) return message;
  }
  return undefined;
}

// Limits of our own, beyond the spec's "required" rules, so nothing unreasonable reaches the database.
export const USERNAME_MAX = 64;
export const EMAIL_MAX = 254;
export const PASSWORD_MAX = 1024;

/** A save upload must be a .zip file (or a name without extension): the refusal when it is not. */
export function saveUploadNameProblem(filename: string): string | undefined {
  const ext = /\.([^.]*)$/.exec(filename)?.[1];
  return ext !== undefined && ext.toLowerCase() !== "zip" ? PANEL_MSG.saveFormatNotAllowed(ext) : undefined;
}

/**
 * Characters refused in every name, reason and chat or console text: C0 and C1 controls, DEL, the line
 * and paragraph separators (U+2028/2029) and the bidi embeddings, overrides and isolates (U+202A-202E,
 * U+2066-2069). They can end a line early in a log or a file, hide text, or show a name backwards.
 */
// deno-lint-ignore no-control-regex
export const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** The message for `what` when `text` holds an unsafe character; undefined when it is clean. */
export function unsafeTextError(text: string, what: string): string | undefined {
  return UNSAFE_TEXT.test(text) ? `${what} must be one line without control or text-direction characters` : undefined;
}
