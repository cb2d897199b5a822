// Fuzzy search over the mod portal's list, with fuse.js and the spec's settings: name weighs 2, title 1,
// matches shorter than 3 characters do not count, threshold 0.6; fuse.js searches patterns longer than
// 32 characters in 32-character chunks (its bitap limit, the spec's number).
//
// Speed: 20,000 mods cost fuse.js over 100 ms per search here, most of it on mods that do not match. With
// minMatchCharLength 3, fuse.js only reports a match where the text has 3 characters in a row that all
// occur in the pattern (its match mask marks pattern characters only, and needs a run of 3). Mods with
// no such run in their name or title cannot match, so they are left out before fuse.js runs. The result
// is exactly fuse.js's (same records, same scores, same order); modSearch.test.ts checks that.

import Fuse, { type FuseIndex } from "fuse.js";
import type { PortalListEntry } from "../../../../shared/api.ts";

export const FUSE_OPTIONS = {
  keys: [
    { name: "name", weight: 2 },
    { name: "title", weight: 1 },
  ],
  minMatchCharLength: 3,
  threshold: 0.6,
};

/** fuse.js cuts longer patterns into chunks of this many characters (spec section 9). */
export const PATTERN_CHUNK = 32;
export const SEARCH_DEBOUNCE_MS = 200;
/** How many suggestions the list shows at most. */
export const MAX_SUGGESTIONS = 100;

type IndexJson = ReturnType<FuseIndex<PortalListEntry>["toJSON"]>;

export class ModSearcher {
  readonly #fuse: Fuse<PortalListEntry>;
  readonly #records: IndexJson["records"];
  readonly #keys: IndexJson["keys"];
  /** Lower-cased name and title per record, as fuse.js compares them. */
  readonly #texts: string[][];
  readonly #table = new Uint8Array(65536);

  constructor(readonly list: readonly PortalListEntry[]) {
    const index = Fuse.createIndex(FUSE_OPTIONS.keys, list as PortalListEntry[]);
    const { keys, records } = index.toJSON();
    this.#keys = keys;
    this.#records = records;
    this.#texts = records.map((r) => Object.values(r.$ ?? {}).flat().map((f) => (f.v ?? "").toLowerCase()));
    this.#fuse = new Fuse(list as PortalListEntry[], FUSE_OPTIONS, index);
  }

  /** Whether `text` has `3` characters in a row that all occur in the current pattern. */
  #hasRun(text: string): boolean {
    let run = 0;
    for (let i = 0; i < text.length; i++) {
      if (this.#table[text.charCodeAt(i)]) {
        if (++run >= FUSE_OPTIONS.minMatchCharLength) return true;
      } else run = 0;
    }
    return false;
  }

  search(query: string, limit = MAX_SUGGESTIONS): PortalListEntry[] {
    if (query.trim() === "") return [];
    const pattern = query.toLowerCase();
    this.#table.fill(0);
    for (let i = 0; i < pattern.length; i++) this.#table[pattern.charCodeAt(i)] = 1;
    const candidates = this.#records.filter((_, i) => this.#texts[i].some((t) => this.#hasRun(t)));
    this.#fuse.setCollection(this.list as PortalListEntry[], Fuse.parseIndex({ keys: this.#keys, records: candidates }));
    return this.#fuse.search(query, { limit }).map((r) => r.item);
  }

  /** fuse.js alone over the whole list: what search() must always equal. */
  searchUnfiltered(query: string, limit = MAX_SUGGESTIONS): PortalListEntry[] {
    const fuse = new Fuse(this.list as PortalListEntry[], FUSE_OPTIONS);
    return fuse.search(query, { limit }).map((r) => r.item);
  }
}
