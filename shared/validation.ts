// Validation rules of the spec (section 5), shared by the PWA forms and the backend, so a request the
// form would refuse is refused by the server with the same words.

import { CHANNEL_MSG, MSG, PANEL_MSG } from "./messages.ts";

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

export function validateLogin(
  v: { username?: unknown; password?: unknown },
): FieldErrors<"username" | "password"> {
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
export function validateStart(
  v: { bindip?: unknown; port?: unknown; savefile?: unknown },
): FieldErrors<StartField> {
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

/** `text` with each unsafe character written as \uXXXX, to show a refused name for what it is. */
export function visibleText(text: string): string {
  return text.replace(
    new RegExp(UNSAFE_TEXT.source, "g"),
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The message for `what` when `text` holds an unsafe character; undefined when it is clean. */
export function unsafeTextError(text: string, what: string): string | undefined {
  return UNSAFE_TEXT.test(text)
    ? `${what} must be one line without control or text-direction characters`
    : undefined;
}

/** The raw name as sent: trim() would quietly drop a trailing U+2028 or newline. */
export function usernameProblem(raw: string): string | undefined {
  const name = raw.trim();
  if (name.length > USERNAME_MAX || /[\p{Cc}\s]/u.test(name) || UNSAFE_TEXT.test(raw)) {
    return `Username must be at most ${USERNAME_MAX} characters, without spaces or control characters`;
  }
  return undefined;
}

// ---- Alert channels: one check per field, for the API, the import and the Notifications form ----

export const CHANNEL_NAME_MAX = 60;
const CHANNEL_URL_MAX = 2048;

export type ChannelField = "name" | "url" | "topic" | "priority" | "token";

export function channelNameProblem(value: unknown): string | undefined {
  const name = typeof value === "string" ? value.trim() : "";
  if (name.length < 1 || name.length > CHANNEL_NAME_MAX) return CHANNEL_MSG.nameInvalid(CHANNEL_NAME_MAX);
  const unsafe = unsafeTextError(value as string, "A channel name");
  return unsafe && `${unsafe}.`;
}

/**
 * The URL as the panel keeps it (absolute, normalised), or null when it is not one a channel may post to:
 * http(s) only (no file:, gopher:...), with a host, without a user name or password (a token belongs in
 * the path or the token field).
 */
export function channelUrl(value: unknown): string | null {
  if (typeof value !== "string" || value.length > CHANNEL_URL_MAX) return null;
  try {
    const u = new URL(value.trim());
    if ((u.protocol !== "https:" && u.protocol !== "http:") || u.username || u.password || !u.hostname) {
      return null;
    }
    return u.toString();
  } catch {
    return null;
  }
}

export function channelTopicProblem(value: unknown): string | undefined {
  return typeof value === "string" && /^[A-Za-z0-9_-]{1,64}$/.test(value)
    ? undefined
    : CHANNEL_MSG.topicInvalid;
}

export function channelPriorityProblem(value: unknown): string | undefined {
  return typeof value === "number" && Number.isInteger(value) && value >= 1 && value <= 5
    ? undefined
    : CHANNEL_MSG.priorityInvalid;
}

/** An ntfy access token (or a webhook's secret): at most 200 characters, no spaces or line breaks. */
export function channelTokenProblem(value: unknown): string | undefined {
  return typeof value === "string" && value.length <= 200 && !/\s/.test(value) && !UNSAFE_TEXT.test(value)
    ? undefined
    : CHANNEL_MSG.tokenInvalid;
}

/**
 * A channel's fields as the Add/Edit form and the import have them; absent ones are not checked (an
 * edit keeps what it leaves out, an export without secrets has no URL, only ntfy has topic and token).
 */
export function validateChannel(
  v: { name?: unknown; url?: unknown; topic?: unknown; priority?: unknown; token?: unknown },
): FieldErrors<ChannelField> {
  const e: FieldErrors<ChannelField> = {};
  const given = (x: unknown) => x !== undefined && x !== null && x !== "";
  if (v.name !== undefined) e.name = channelNameProblem(v.name);
  if (given(v.url) && channelUrl(v.url) === null) e.url = CHANNEL_MSG.urlInvalid;
  if (given(v.topic)) e.topic = channelTopicProblem(v.topic);
  if (given(v.priority)) e.priority = channelPriorityProblem(v.priority);
  if (given(v.token)) e.token = channelTokenProblem(v.token);
  return e;
}
