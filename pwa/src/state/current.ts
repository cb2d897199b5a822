// Which Factorio server the app shows, as the address says: /servers/2/saves is server 2's Saves, and
// today's addresses (/saves, /, ...) are server 1's, so bookmarks and old links keep working. The layout
// sets `current.server` from the address (Layout.tsx); the API client and the status badge read it.

import { proxy } from "valtio";
import { FIRST_SERVER } from "../../../shared/servers.ts";

/** The pages of one server, by their address for server 1. Every other page is the panel's own. */
export const SERVER_PAGES = [
  "/",
  "/console",
  "/logs",
  "/server-settings",
  "/schedules",
  "/saves",
  "/backups",
  "/mods",
  "/game-settings",
  "/players",
  "/players/history",
] as const;

const SERVER_ADDRESS = /^\/servers\/(\d+)(\/.*)?$/;

/**
 * A server's page in an address: "/servers/2/saves" is server 2's "/saves", "/servers/2" its Controls
 * ("/"), "/saves" server 1's. Null for the panel's own pages (and /servers, the overview).
 */
export function serverPageOf(pathname: string): { server: number; page: string } | null {
  const m = SERVER_ADDRESS.exec(pathname);
  if (m) {
    const page = m[2] === undefined || m[2] === "/" ? "/" : m[2].replace(/\/$/, "");
    return (SERVER_PAGES as readonly string[]).includes(page) ? { server: Number(m[1]), page } : null;
  }
  const page = pathname.length > 1 ? pathname.replace(/\/$/, "") : pathname;
  return (SERVER_PAGES as readonly string[]).includes(page) ? { server: FIRST_SERVER, page } : null;
}

/**
 * The address of a server's page. Server 1 keeps today's addresses, except its Controls once there are
 * several servers: "/" is then the overview, and server 1's Controls is /servers/1.
 */
export function serverPath(server: number, page: string, several: boolean): string {
  if (server === FIRST_SERVER && !(page === "/" && several)) return page;
  return `/servers/${server}${page === "/" ? "" : page}`;
}

/** The server shown: the last one whose page was open (a panel page such as Account keeps it). */
export const current = proxy({
  server: typeof location === "undefined"
    ? FIRST_SERVER
    : serverPageOf(location.pathname)?.server ?? FIRST_SERVER,
});
