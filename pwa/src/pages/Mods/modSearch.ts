// Fuzzy search over the mod portal's list, with fuse.js and the spec's settings: name weighs 2, title 1,
// matches shorter than 3 characters do not count, threshold 0.6; fuse.js searches patterns longer than
// 32 characters in 32-character chunks (its bitap limit, the spec's number).
//
// Speed. fuse.js runs its bitap once per allowed error count (up to 60% of the pattern) over every name
// and title: 20,000 mods cost it hundreds of milliseconds per keystroke. The answer here is exactly
// fuse.js's (same mods, same order; modSearch.test.ts compares them), found with far less of its work:
//
//  1. Mods that cannot match are left out. fuse.js needs (a) an approximate match with at most 60%
//     errors, so the edit distance of the pattern to some part of the text is at most that (computed for
//     all texts at once per character with Myers' bit-parallel algorithm, one pass instead of one per
//     error count), and (b) with minMatchCharLength 3, a run of 3 text characters that all occur in the
//     pattern (its match mask marks only pattern characters).
//  2. fuse.js's score of a key is at least (edit distance / pattern length), so each mod has a best score
//     it could reach. Mods are handed to fuse.js best bound first, in batches; once the list of
//     suggestions is full and no remaining mod could beat its last entry, the rest are not scored.

import Fuse, { type FuseIndex, type FuseResult } from "fuse.js";
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
export const MAX_SUGGESTIONS = 25;

const BATCH = 256;
/** fuse.js's key weights, normalised as it does (they sum to 1). */
const WEIGHTS = FUSE_OPTIONS.keys.map((k) => k.weight / FUSE_OPTIONS.keys.reduce((s, x) => s + x.weight, 0));

type IndexJson = ReturnType<FuseIndex<PortalListEntry>["toJSON"]>;
type IndexRecord = IndexJson["records"][number];

/**
 * The smallest edit distance (insertions, deletions, substitutions) between the pattern and any part of
 * `text`: Myers' bit-vector algorithm, patterns up to 32 characters. `peq` has, per character code, the
 * bit mask of the pattern positions holding that character.
 */
export function minEditDistance(text: string, peq: Int32Array, m: number): number {
  const high = 1 << (m - 1);
  let pv = -1;
  let mv = 0;
  let score = m;
  let best = m;
  for (let j = 0; j < text.length; j++) {
    const eq = peq[text.charCodeAt(j)];
    const xv = eq | mv;
    const xh = ((((eq & pv) + pv) | 0) ^ pv) | eq;
    let ph = mv | ~(xh | pv);
    let mh = pv & xh;
    if (ph & high) score++;
    else if (mh & high) score--;
    // A match may start anywhere in the text: the top row stays 0, so nothing is shifted in.
    ph <<= 1;
    mh <<= 1;
    pv = mh | ~(xv | ph);
    mv = ph & xv;
    if (score < best) best = score;
  }
  return best;
}

interface Candidate {
  record: IndexRecord;
  /** The best total score fuse.js could give this mod (lower is better). */
  bound: number;
}

export class ModSearcher {
  readonly #fuse: Fuse<PortalListEntry>;
  readonly #records: IndexRecord[];
  readonly #keys: IndexJson["keys"];
  /** Per record and key: the lower-cased text fuse.js compares, and its field-length norm. */
  readonly #texts: ({ text: string; norm: number } | null)[][];
  readonly #inPattern = new Uint8Array(65536);
  readonly #peq = new Int32Array(65536);

  constructor(readonly list: readonly PortalListEntry[]) {
    const index = Fuse.createIndex(FUSE_OPTIONS.keys, list as PortalListEntry[]);
    const { keys, records } = index.toJSON();
    this.#keys = keys;
    this.#records = records;
    this.#texts = records.map((r) =>
      FUSE_OPTIONS.keys.map((_, k) => {
        const field = r.$?.[k];
        return field && !Array.isArray(field) && field.v !== undefined
          ? { text: field.v.toLowerCase(), norm: field.n }
          : null;
      })
    );
    this.#fuse = new Fuse(list as PortalListEntry[], { ...FUSE_OPTIONS, includeScore: true }, index);
  }

  /** Whether `text` has 3 characters in a row that all occur in the pattern. */
  #hasRun(text: string): boolean {
    let run = 0;
    for (let i = 0; i < text.length; i++) {
      if (this.#inPattern[text.charCodeAt(i)]) {
        if (++run >= FUSE_OPTIONS.minMatchCharLength) return true;
      } else run = 0;
    }
    return false;
  }

  /** fuse.js over some records only, with scores (they are comparable across calls). */
  #score(records: IndexRecord[], limit: number) {
    this.#fuse.setCollection(this.list as PortalListEntry[], Fuse.parseIndex({ keys: this.#keys, records }));
    return this.#fuse.search(this.#query, { limit });
  }

  #query = "";

  search(query: string, limit = MAX_SUGGESTIONS): PortalListEntry[] {
    if (query.trim() === "") return [];
    this.#query = query;
    const pattern = query.toLowerCase();
    const m = pattern.length;
    this.#inPattern.fill(0);
    for (let i = 0; i < m; i++) this.#inPattern[pattern.charCodeAt(i)] = 1;

    if (m > PATTERN_CHUNK) {
      // fuse.js searches this in chunks; only the run condition is used to leave mods out.
      const records = this.#records.filter((_, i) =>
        this.#texts[i].some((t) => t !== null && this.#hasRun(t.text))
      );
      return this.#score(records, limit).map((r) => r.item);
    }

    this.#peq.fill(0);
    for (let i = 0; i < m; i++) this.#peq[pattern.charCodeAt(i)] |= 1 << i;
    const maxErrors = FUSE_OPTIONS.threshold * m + 1e-9;
    const candidates: Candidate[] = [];
    for (let r = 0; r < this.#records.length; r++) {
      let bound = 1;
      let possible = false;
      const texts = this.#texts[r];
      for (let k = 0; k < texts.length; k++) {
        const t = texts[k];
        if (t === null || !this.#hasRun(t.text)) continue;
        const d = minEditDistance(t.text, this.#peq, m);
        if (d > maxErrors) continue;
        possible = true;
        // fuse.js scores a key at least errors / length (0.001 at the least, 0 only for an equal text,
        // which it turns into EPSILON), raised to weight * norm.
        const keyScore = d === 0 ? Number.EPSILON : Math.max(0.001, d / m);
        bound *= Math.pow(keyScore, WEIGHTS[k] * t.norm);
      }
      if (possible) candidates.push({ record: this.#records[r], bound: bound * (1 - 1e-9) });
    }
    candidates.sort((a, b) => a.bound - b.bound || a.record.i - b.record.i);

    let top: FuseResult<PortalListEntry>[] = [];
    for (let start = 0; start < candidates.length; start += BATCH) {
      const worst = top.length >= limit ? top[top.length - 1].score! : Infinity;
      if (candidates[start].bound > worst) break;
      const batch = candidates.slice(start, start + BATCH).map((c) => c.record);
      top = [...top, ...this.#score(batch, limit)]
        .sort((a, b) => a.score! - b.score! || a.refIndex - b.refIndex)
        .slice(0, limit);
    }
    return top.map((r) => r.item);
  }
}
