// Who is signed in. "unknown" until the first check answers; the route guard waits for it.

import { proxy } from "valtio";
import type { User } from "../../../shared/api.ts";
import { usersApi } from "../api/users.ts";
import { ApiError, setUnauthorizedHandler } from "../api/client.ts";
import { socket } from "./socket.ts";
import { startStatusUpdates, stopStatusUpdates } from "./server.ts";

export type SessionState = "unknown" | "signedIn" | "signedOut";

export const session = proxy<{
  state: SessionState;
  user: User | null;
  /** Why the session ended: after an explicit logout the next sign-in starts at Controls. */
  endedBy: "logout" | "lost" | null;
}>({ state: "unknown", user: null, endedBy: null });

const RETURN_KEY = "panel.returnTo";

export function signedIn(user: User): void {
  session.endedBy = null;
  session.user = user;
  session.state = "signedIn";
  socket.connect();
  startStatusUpdates();
}

export function signedOut(endedBy: "logout" | "lost" = "lost"): void {
  if (session.state === "signedOut") return;
  session.endedBy = endedBy;
  session.user = null;
  session.state = "signedOut";
  stopStatusUpdates();
  socket.disconnect();
}

setUnauthorizedHandler(() => signedOut("lost"));
socket.onSignedOut = () => void checkSession();

export async function checkSession(): Promise<void> {
  try {
    signedIn(await usersApi.status());
  } catch (e) {
    if (e instanceof ApiError && e.status === 0) {
      // No connection: the session may well be fine; stay as we are and let the offline banner speak.
      if (session.state === "unknown") session.state = "signedOut";
      return;
    }
    signedOut();
  }
}

export async function logout(): Promise<void> {
  try {
    await usersApi.logout();
  } finally {
    signedOut("logout");
  }
}

/** Remembers where a signed-out visitor wanted to go, also across a reload of the login page. */
export function rememberReturn(path: string): void {
  try {
    sessionStorage.setItem(RETURN_KEY, path);
  } catch {
    // private mode
  }
}

export function takeReturn(fromState: string | undefined): string {
  let path = fromState;
  try {
    path ??= sessionStorage.getItem(RETURN_KEY) ?? undefined;
    sessionStorage.removeItem(RETURN_KEY);
  } catch {
    // private mode
  }
  return path && path.startsWith("/") && !path.startsWith("//") && !path.startsWith("/login") ? path : "/";
}
