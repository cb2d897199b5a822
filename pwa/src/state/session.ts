// Who is signed in. "unknown" until the first check answers; the route guard waits for it.

import { proxy } from "valtio";
import type { User } from "../../../shared/api.ts";
import { usersApi } from "../api/users.ts";
import { ApiError, setUnauthorizedHandler } from "../api/client.ts";
import { socket } from "./socket.ts";
import { startStatusUpdates, stopStatusUpdates } from "./server.ts";
import { onBackOnline, reportAnswer, setProbe } from "./connection.ts";
import { subscribe } from "valtio";
import { disableOnThisDevice } from "../push/device.ts";

export type SessionState = "unknown" | "signedIn" | "signedOut";

export const session = proxy<{
  state: SessionState;
  user: User | null;
  /** Why the session ended: after an explicit logout the next sign-in starts at Controls. */
  endedBy: "logout" | "lost" | null;
}>({ state: "unknown", user: null, endedBy: null });

const RETURN_KEY = "panel.returnTo";
/**
 * Who was signed in on this device last (name, role, email; never a secret), so the installed app can
 * open offline with the layout and the last known status instead of a login form it cannot submit.
 */
const USER_KEY = "panel.user";

function rememberUser(user: User | null): void {
  try {
    if (user) localStorage.setItem(USER_KEY, JSON.stringify(user));
    else localStorage.removeItem(USER_KEY);
  } catch {
    // storage disabled: an offline start then shows the login form
  }
}

export function rememberedUser(): User | null {
  try {
    const raw = localStorage.getItem(USER_KEY);
    const user = raw ? (JSON.parse(raw) as User) : null;
    return user && typeof user.username === "string" ? user : null;
  } catch {
    return null;
  }
}

/** Counts sign-ins, so a session check sent before one cannot undo it (checkSession). */
let signIns = 0;

export function signedIn(user: User): void {
  signIns++;
  rememberUser(user);
  session.endedBy = null;
  session.user = user;
  session.state = "signedIn";
  socket.connect();
  startStatusUpdates();
}

export function signedOut(endedBy: "logout" | "lost" = "lost"): void {
  rememberUser(null);
  if (session.state === "signedOut") return;
  session.endedBy = endedBy;
  session.user = null;
  session.state = "signedOut";
  stopStatusUpdates();
  socket.disconnect();
}

/**
 * A second factor was just set up: the panel lifted its "set one up first" hold (--require-2fa-admins),
 * so the app lifts it at once, then reads the session again. Waiting for that read let a click on
 * another page right after enrolling bounce back to Account.
 */
export function secondFactorAdded(): void {
  if (!session.user?.must_enrol) return;
  session.user = { ...session.user, must_enrol: false };
  rememberUser(session.user);
  void checkSession();
}

setUnauthorizedHandler(() => signedOut("lost"));
socket.onSignedOut = () => void checkSession();

// Offline: probe with the session check. Back online: check the session for real, which reconnects the
// socket at once and refetches the status.
setProbe(() => void checkSession());
onBackOnline(() => void checkSession());
// The socket opening proves the panel answers. The socket dropping may mean the connection is gone: one
// quiet request finds out (and shows the offline banner if so); the socket itself retries after 5 s.
subscribe(socket.state, () => {
  if (socket.state.connected) reportAnswer();
  else if (session.state === "signedIn") usersApi.status().catch(() => {});
});

export async function checkSession(): Promise<void> {
  const before = signIns;
  try {
    signedIn(await usersApi.status());
  } catch (e) {
    // A sign-in answered while this check was on its way (the pre-rendered form's, sent before the app
    // ran): its "no session" is older news.
    if (signIns !== before) return;
    if (e instanceof ApiError && e.status === 0) {
      // No connection: the session may well be fine. Stay as we are, or, on an offline start, open as the
      // user last signed in here; the offline banner speaks, and the first answer checks for real.
      if (session.state === "unknown") {
        const user = rememberedUser();
        if (user) signedIn(user);
        else session.state = "signedOut";
      }
      return;
    }
    signedOut();
  }
}

export async function logout(): Promise<void> {
  try {
    // Signing out of a device means it is no longer yours: it stops getting your alerts too.
    await disableOnThisDevice({ quiet: true }).catch(() => {});
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
