// The mod portal's list in the browser: fetched once per app session (and again after an hour), searched
// in a worker. Opening the Install tab again reuses it. Every search is recorded as a "mod-search"
// performance measure (bench/mod-search.mjs reads them).

import type { PortalListEntry } from "../../../../shared/api.ts";
import { modsApi } from "../../api/mods.ts";
import { ModSearcher } from "./modSearch.ts";
import type { WorkerReply, WorkerRequest } from "./search.worker.ts";

export interface Searcher {
  size: number;
  search(query: string): Promise<PortalListEntry[]>;
}

/** The panel keeps the list for --mod-portal-cache-minutes; the app asks again after this long. */
export const PORTAL_LIST_TTL_MS = 60 * 60_000;

let cached: { at: number; searcher: Promise<Searcher> } | null = null;

function measured(search: (query: string) => Promise<PortalListEntry[]>): Searcher["search"] {
  return async (query) => {
    const start = performance.now();
    const results = await search(query);
    performance.measure("mod-search", {
      start,
      end: performance.now(),
      detail: { query, results: results.length },
    });
    return results;
  };
}

function inlineSearcher(list: PortalListEntry[]): Searcher {
  const searcher = new ModSearcher(list);
  return { size: list.length, search: measured(async (q) => searcher.search(q)) };
}

function workerSearcher(list: PortalListEntry[]): Searcher {
  const worker = new Worker(new URL("./search.worker.ts", import.meta.url), { type: "module" });
  worker.postMessage({ type: "load", list } satisfies WorkerRequest);
  // One search in the worker at a time; of the queries typed meanwhile only the newest is searched next
  // (the others are answered with nothing: the box has moved on), so the worker never falls behind.
  let running: { id: number; resolve: (r: PortalListEntry[]) => void } | null = null;
  let next: { query: string; resolve: (r: PortalListEntry[]) => void } | null = null;
  let nextId = 1;
  const send = (query: string, resolve: (r: PortalListEntry[]) => void) => {
    running = { id: nextId++, resolve };
    worker.postMessage({ type: "search", id: running.id, query } satisfies WorkerRequest);
  };
  worker.onmessage = (e: MessageEvent<WorkerReply>) => {
    if (running?.id !== e.data.id) return;
    running.resolve(e.data.results);
    running = null;
    if (next) {
      const { query, resolve } = next;
      next = null;
      send(query, resolve);
    }
  };
  return {
    size: list.length,
    search: measured((query) =>
      new Promise((resolve) => {
        if (!running) return send(query, resolve);
        next?.resolve([]);
        next = { query, resolve };
      })
    ),
  };
}

/** The searcher over the portal's list, loading the list when there is none (or it is old). */
export function portalSearcher(): Promise<Searcher> {
  if (cached && Date.now() - cached.at < PORTAL_LIST_TTL_MS) return cached.searcher;
  const searcher = modsApi.portal.list().then(({ results }) =>
    typeof Worker === "undefined" ? inlineSearcher(results) : workerSearcher(results)
  );
  const entry = { at: Date.now(), searcher };
  cached = entry;
  searcher.catch(() => {
    if (cached === entry) cached = null;
  });
  return searcher;
}

/** The searcher if the list is already here (no request, no waiting). */
export function cachedPortalSearcher(): Promise<Searcher> | null {
  return cached && Date.now() - cached.at < PORTAL_LIST_TTL_MS ? cached.searcher : null;
}
