// Runs the mod search off the main thread, so typing never waits for it.

import type { PortalListEntry } from "../../../../shared/api.ts";
import { ModSearcher } from "./modSearch.ts";

export type WorkerRequest = { type: "load"; list: PortalListEntry[] } | {
  type: "search";
  id: number;
  query: string;
};
export type WorkerReply = { id: number; results: PortalListEntry[] };

let searcher: ModSearcher | null = null;

self.onmessage = (e: MessageEvent<WorkerRequest>) => {
  const msg = e.data;
  if (msg.type === "load") searcher = new ModSearcher(msg.list);
  else self.postMessage({ id: msg.id, results: searcher?.search(msg.query) ?? [] } satisfies WorkerReply);
};
