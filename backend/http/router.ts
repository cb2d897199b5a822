// The router the panel's Hono app uses: Hono's TrieRouter, with its answer for each exact path a route
// was declared with kept after the first request for it. Hono's default (SmartRouter) first tries its
// RegExpRouter, which refuses this route table (a fixed segment beside a parameter at the same depth),
// at the first request, and then falls back to the TrieRouter, which walks the path segment by segment
// on every request. Nearly every request is for a path without parameters (the status, the lists), and
// the answer for one is the same every time: Hono only reads it.

import type { Result, Router } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";

/** A route path without parameters, wildcards or optional parts: it matches itself only. */
export function isFixedPath(path: string): boolean {
  return !/[:*{?]/.test(path);
}

export class KeptPathRouter<T> implements Router<T> {
  readonly name = "KeptPathRouter";
  readonly #trie = new TrieRouter<T>();
  /** "METHOD path" of the routes declared without parameters or wildcards. */
  readonly #fixed = new Set<string>();
  /** Answers for those, once asked (only those: a flood of other paths or methods must not grow it). */
  readonly #kept = new Map<string, Result<T>>();

  add(method: string, path: string, handler: T): void {
    this.#trie.add(method, path, handler);
    // A route added later may match a path already answered.
    this.#kept.clear();
    if (isFixedPath(path)) this.#fixed.add(`${method} ${path}`);
  }

  /** How many answers are kept (at most one per declared fixed route). */
  get keptCount(): number {
    return this.#kept.size;
  }

  match(method: string, path: string): Result<T> {
    const key = `${method} ${path}`;
    const kept = this.#kept.get(key);
    if (kept) return kept;
    const result = this.#trie.match(method, path);
    if (this.#fixed.has(key)) this.#kept.set(key, result);
    return result;
  }
}
