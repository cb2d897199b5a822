// Accounts and access: the wire types and texts of roles, the activity log, API tokens, sessions and
// second factors, for both sides.

import type { Role } from "./api.ts";
export type { SecondFactorRequired } from "./contract/auth.ts";
export type { ActivityEntry } from "./contract/activity.ts";
export type { ApiToken, NewApiToken, SessionEntry } from "./contract/tokens.ts";
export type { TotpSetup, TwoFactorStatus } from "./contract/secondfactor.ts";
export type { Passkey } from "./contract/passkeys.ts";

export const ACCESS_MSG = {
  roleTooWeak: (need: Role) => `This needs the ${need} role.`,
  tokenNotAllowed: "API tokens cannot do this; sign in to the panel.",
  cookieAndToken: "Send either a session cookie or an API token, not both.",
  badToken: "The API token is unknown, expired or revoked.",
  roleUnknown: (role: string) => `Role "${role}" does not exist. Roles are admin, operator and viewer.`,
  lastAdmin: (name: string) => `User ${name} is the last admin and must stay one`,
  roleChanged: (name: string, role: Role) => `User ${name} is now ${role}.`,
  consoleNotAllowed: "Viewers can read the console but not send commands.",
  secretsNeedAdmin: "Only admins can change the server's passwords and tokens.",
  tokenNameRequired: "Token name is required",
  tokenRoleAboveUser: "A token cannot have a stronger role than its user.",
  tokenExpiryRange: (max: number) => `Expires in days must be a whole number from 1 to ${max}`,
  tokenNotFound: "No such token",
  tokenRevoked: "Token revoked",
  tokenNotSignedOut:
    "An API token is not signed out: it keeps working until it expires or is revoked. Revoke it under Account, API Tokens.",
  passwordChangeRevokes:
    "Changing your password signs you out on your other devices and revokes your API tokens.",
  serverRolesShape: 'Servers are given as {"server id": "operator" | "viewer" | null}.',
  serverIdInvalid: (key: string) => `"${key}" is not a server id.`,
  serverRoleAdmin: "A role on a server is operator or viewer; an admin has every server.",
  serverRolesOfAdmin: (name: string) => `${name} is an admin and has every server.`,
  serverRolesChanged: (name: string) => `The servers of ${name} are changed.`,
  tokenServersShape: "Servers of a token are a list of server ids.",
  tokenServersEmpty: "Choose at least one server for the token, or leave servers out for all of yours.",
  tokenServerNotYours: (id: number) => `You have no role on server ${id}.`,
  sessionNotFound: "No such session",
  sessionRevoked: "Session revoked",
  enrolFirst: "Admins must set up two-factor sign-in first: open Account.",
  secondFactorExpired: "The sign-in took too long; enter your password again.",
  codeWrong: "The code is wrong or was already used.",
  totpNotStarted: "Start the two-factor setup first.",
  totpEnabled: "Two-factor sign-in is on.",
  totpDisabled: "Two-factor sign-in is off.",
  passwordWrong: "The password is wrong",
  passkeyNotFound: "No such passkey",
  passkeyFailed: "The passkey could not be verified.",
} as const;

/** The session's cookie (the old panel's name). */
export const SESSION_COOKIE = "authentication";

/** What each role may do, in the words the Users page's create form and the Account page show. */
export const ROLE_HELP: Record<Role, string> = {
  admin: "Everything, including panel users and the server's passwords.",
  operator: "Start, stop, console, saves, mods, players; not panel users or passwords.",
  viewer: "Reads status, logs, saves, mods and players; changes nothing.",
};

/** The action of an activity record that counts the sign-ins the limit refused from one address. */
export const REFUSED_SIGN_INS = "sign-in refused";

export const TOKEN_MAX_DAYS = 3650;
