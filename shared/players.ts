// Rules for player names and ban reasons, shared by the Players page and the server. The names end up
// in RCON commands (/ban NAME REASON), so they are checked strictly: factorio.com account names are
// letters, digits, "_", "-" and ".".

import { unsafeTextError } from "./validation.ts";

export const PLAYER_NAME_MAX = 60;
export const BAN_REASON_MAX = 200;

export type PlayerList = "admins" | "whitelist" | "bans";

/** How the page and the messages name each list. */
export const LIST_TITLES: Record<PlayerList, string> = {
  admins: "admin list",
  whitelist: "whitelist",
  bans: "ban list",
};

export function playerNameError(name: unknown): string | undefined {
  if (typeof name !== "string" || name.trim() === "") return "Player name is required";
  if (name.length > PLAYER_NAME_MAX) return `Player name must be at most ${PLAYER_NAME_MAX} characters`;
  if (!/^[A-Za-z0-9_.-]+$/.test(name)) {
    return `"${name}" is not a Factorio player name (letters, digits, _ - and . only)`;
  }
  return undefined;
}

export function banReasonError(reason: unknown): string | undefined {
  if (reason === undefined) return undefined;
  if (typeof reason !== "string") return "The ban reason must be text";
  if (reason.length > BAN_REASON_MAX) return `The ban reason must be at most ${BAN_REASON_MAX} characters`;
  const unsafe = unsafeTextError(reason, "The ban reason");
  if (unsafe) return unsafe;
  return undefined;
}

export function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
