import { describe, expect, it } from "vitest";
import Fuse from "fuse.js";
import {
  FUSE_OPTIONS,
  MAX_SUGGESTIONS,
  minEditDistance,
  ModSearcher,
  PATTERN_CHUNK,
  SEARCH_DEBOUNCE_MS,
} from "./modSearch.ts";
import { LIST_HEIGHT } from "./ModSearch.tsx";
import type { PortalListEntry } from "../../../../shared/api.ts";

const WORDS = [
  "belt",
  "balancer",
  "train",
  "station",
  "logistics",
  "advanced",
  "factory",
  "planner",
  "rail",
  "signal",
  "power",
  "armor",
  "robot",
  "module",
  "quality",
  "space",
  "rocket",
  "turret",
  "miner",
  "furnace",
  "inserter",
  "chest",
  "pipe",
  "fluid",
  "nuclear",
  "solar",
  "Ünïcode",
  "ΑΒΓ",
  "x",
  "42",
];

/** A seeded list of plausible mod names and titles. */
function modList(count: number, seed = 7): PortalListEntry[] {
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  return Array.from({ length: count }, (_, i) => {
    const words = Array.from({ length: 1 + rnd(3) }, () => WORDS[rnd(WORDS.length)]);
    return {
      name: `${words.join(rnd(2) ? "-" : "_")}${rnd(4) ? "" : i}`,
      title: words.map((w) => w[0].toUpperCase() + w.slice(1)).join(" "),
    };
  });
}

function queries(list: PortalListEntry[], count: number): string[] {
  let seed = 99;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const out = [
    "",
    " ",
    "a",
    "ab",
    "bel",
    "BELT",
    "belt balancer",
    "tran stat",
    "zzz",
    "qqqqq",
    "x".repeat(40),
    "advanced logistics belt balancer train station",
  ];
  while (out.length < count) {
    const source = list[rnd(list.length)][rnd(2) ? "name" : "title"];
    const start = rnd(source.length);
    let q = source.slice(start, start + 2 + rnd(18));
    const typo = rnd(6);
    if (typo === 0 && q.length > 2) q = q.slice(0, 1) + "z" + q.slice(2); // substituted
    if (typo === 1 && q.length > 3) q = q.slice(0, 2) + q.slice(3); // left out
    if (typo === 2 && q.length > 3) q = q.slice(0, 1) + q[2] + q[1] + q.slice(3); // swapped
    if (typo === 3) q = q + WORDS[rnd(WORDS.length)].slice(0, 3); // one word into the next
    if (rnd(5) === 0) q = q.toUpperCase();
    out.push(q);
  }
  return out;
}

describe("mod search", () => {
  it("uses the spec's settings", () => {
    expect(FUSE_OPTIONS).toEqual({
      keys: [{ name: "name", weight: 2 }, { name: "title", weight: 1 }],
      minMatchCharLength: 3,
      threshold: 0.6,
    });
    expect(PATTERN_CHUNK).toBe(32);
    expect(SEARCH_DEBOUNCE_MS).toBe(200);
    expect(LIST_HEIGHT).toBe("16rem");
  });

  it("gives exactly what fuse.js gives over the whole list, in the same order", () => {
    const list = modList(1500);
    const searcher = new ModSearcher(list);
    const plain = new Fuse(list, FUSE_OPTIONS);
    for (const q of queries(list, 200)) {
      const expected = plain.search(q, { limit: MAX_SUGGESTIONS }).map((r) => r.item.name);
      expect(searcher.search(q).map((r) => r.name), JSON.stringify(q)).toEqual(
        q.trim() === "" ? [] : expected,
      );
      if (q.length >= 3) {
        // Also every match, not only the first hundred.
        const all = plain.search(q, { limit: 10_000 }).map((r) => r.item.name);
        expect(searcher.search(q, 10_000).map((r) => r.name), JSON.stringify(q)).toEqual(all);
      }
    }
  }, 120_000);

  it("computes the smallest edit distance to any part of a text (Myers) as the textbook table does", () => {
    let seed = 3;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const alphabet = "abcde -";
    const word = (len: number) => Array.from({ length: len }, () => alphabet[rnd(alphabet.length)]).join("");
    const table = (p: string, t: string) => {
      let prev = Array.from({ length: p.length + 1 }, (_, i) => i);
      let best = prev[p.length];
      for (let j = 1; j <= t.length; j++) {
        const cur = [0];
        for (let i = 1; i <= p.length; i++) {
          cur[i] = Math.min(prev[i] + 1, cur[i - 1] + 1, prev[i - 1] + (p[i - 1] === t[j - 1] ? 0 : 1));
        }
        best = Math.min(best, cur[p.length]);
        prev = cur;
      }
      return best;
    };
    for (let n = 0; n < 3000; n++) {
      const p = word(1 + rnd(32));
      const t = word(rnd(40));
      const peq = new Int32Array(65536);
      for (let i = 0; i < p.length; i++) peq[p.charCodeAt(i)] |= 1 << i;
      expect(minEditDistance(t, peq, p.length), `${p} in ${t}`).toBe(table(p, t));
    }
  });

  it("weighs the name twice the title", () => {
    const list = [
      { name: "zz-other", title: "Belt Balancer" },
      { name: "belt-balancer", title: "Zz Other" },
    ];
    expect(new ModSearcher(list).search("belt-balancer").map((r) => r.name)).toEqual([
      "belt-balancer",
      "zz-other",
    ]);
  });

  it("searches patterns longer than 32 characters in chunks instead of failing", () => {
    const list = [{
      name: "advanced-logistics-belt-balancer-deluxe",
      title: "Advanced Logistics Belt Balancer Deluxe",
    }, ...modList(200)];
    const q = "advanced logistics belt balancer deluxe edition";
    expect(q.length).toBeGreaterThan(PATTERN_CHUNK);
    expect(new ModSearcher(list).search(q)[0].name).toBe("advanced-logistics-belt-balancer-deluxe");
  });

  it("does not count matches shorter than 3 characters", () => {
    const searcher = new ModSearcher([{ name: "ab", title: "ab" }, { name: "xyz", title: "xyz" }]);
    expect(searcher.search("ab")).toEqual([]);
    expect(searcher.search("xyz").map((r) => r.name)).toEqual(["xyz"]);
  });
});
