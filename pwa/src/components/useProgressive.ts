import { startTransition, useEffect, useState } from "react";

/** Rows of a long list rendered with the page. */
export const FIRST_ROWS = 30;
/** Rows added by each later render. */
const MORE_ROWS = 40;

/**
 * How many of a list's `total` rows to render now. A long list rendered at once kept a phone's main
 * thread busy for seconds before the page showed (300 mods, 500 saves; bench/lists-ui.mjs): the first
 * rows come with the page, the others a few dozen at a time after each painted frame, with the
 * browser free for a tap or a key in between. The count reached is kept when the list is loaded again.
 * The later rows as React transitions (interruptible) were tried for every list: the first rows came as
 * soon, the last ones later (300 mods at 4x throttling: 6.5-8 s against 5-7 s). So only a list filtered
 * as one types (`search`) has them, where a key waiting for a batch of rows is what one feels: a new
 * search starts again from the first rows, and a key interrupts the rows being added (2,000 players on
 * a phone at 4x throttling: keys 88 -> 48 ms median).
 */
export function useProgressiveCount(total: number, search?: string): number {
  const [state, setState] = useState({ count: FIRST_ROWS, search });
  let count = state.count;
  // Another list (a new search): its first rows first again, rather than all the rows reached so far.
  if (state.search !== search) {
    count = FIRST_ROWS;
    setState({ count, search });
  }
  useEffect(() => {
    if (count >= total) return;
    // After the next frame is painted: the rows so far are shown before the next ones are made.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => {
        const more = () => setState((s) => ({ ...s, count: s.count + MORE_ROWS }));
        if (search === undefined) more();
        else startTransition(more);
      });
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [count, total, search]);
  return Math.min(count, total);
}

/** Whether two values (rows from the API) hold the same data: a reloaded list keeps unchanged rows as they are. */
export function sameData(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
