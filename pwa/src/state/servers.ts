// The servers the signed-in user sees (GET /api/servers): the switcher, the overview and the home page
// read it. Remembered, so a cold start offline and the first render after signing in already know
// whether there are several.

import { proxy } from "valtio";
import type { ServerSummary } from "../../../shared/contract/servers.ts";
import { serversApi } from "../api/servers.ts";

const STORAGE_KEY = "panel.servers";

interface KnownList {
  list: ServerSummary[] | null;
  /** ISO time the panel last answered it. */
  at: string | null;
}

function loadList(): KnownList {
  try {
    const raw = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "null");
    return Array.isArray(raw?.list) && typeof raw.at === "string" ? raw : { list: null, at: null };
  } catch {
    return { list: null, at: null };
  }
}

/** list: null until the panel answered once (and nothing was remembered). */
export const serverList = proxy<KnownList>(loadList());

export function applyServers(list: ServerSummary[]): void {
  serverList.list = list;
  serverList.at = new Date().toISOString();
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify({ list, at: serverList.at }));
  } catch {
    // storage full or disabled: the list is asked for again next time
  }
}

/** Asks the panel again; a failure keeps what was known (the overview shows it). */
export async function loadServers(): Promise<ServerSummary[] | null> {
  try {
    const list = await serversApi.list();
    applyServers(list);
    return list;
  } catch {
    return null;
  }
}

/** Signed out: another user may see other servers. */
export function forgetServers(): void {
  serverList.list = null;
  serverList.at = null;
  try {
    localStorage.removeItem(STORAGE_KEY);
  } catch {
    // nothing kept
  }
}

/** Whether the panel has several servers (the overview is home, the switcher shows). */
export function several(list: readonly ServerSummary[] | null): boolean {
  return (list?.length ?? 0) > 1;
}
