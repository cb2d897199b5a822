// The game install under way, for the banner every page shows (components/InstallBanner.tsx). Fed by the
// "factorio_versions" room, and by Controls' versions answer: the room replays the running install only
// to the first of its listeners, which may be Controls rather than the banner.

import { proxy } from "valtio";
import { socket } from "./socket.ts";
import { refreshStatus } from "./server.ts";
import type { InstallProgress, VersionsMessage } from "../../../shared/factorio-versions.ts";

export const INSTALL_ENDED: readonly InstallProgress["phase"][] = ["done", "failed", "cancelled"];

export const gameInstall = proxy<{ current: InstallProgress | null }>({ current: null });

/** Takes an install's progress as the panel sent it (an ended one too: the banner says how it ended). */
export function noteInstall(install: InstallProgress | null): void {
  if (install) gameInstall.current = install;
}

/**
 * Follows the room; returns the unsubscribe. A version switch (an install's activation, whichever page is
 * open) changes the game's version, which a stopped server does not announce itself: the status is asked.
 */
export function watchInstall(): () => void {
  return socket.subscribe("factorio_versions", (text) => {
    let m: VersionsMessage;
    try {
      m = JSON.parse(text) as VersionsMessage;
    } catch {
      return;
    }
    if (m.kind === "install") noteInstall(m.install);
    else if (m.kind === "changed") void refreshStatus();
  });
}
