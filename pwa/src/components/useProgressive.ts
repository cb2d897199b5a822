import { useEffect, useState } from "react";

/** Rows of a long list rendered with the page. */
export const FIRST_ROWS = 30;
/** Rows added by each later render. */
const MORE_ROWS = 40;

/**
 * How many of a list's `total` rows to render now. A long list rendered at once kept a phone's main
 * thread busy for seconds before the page showed (300 mods, 500 saves; bench/lists-ui.mjs): the first
 * rows come with the page, the others a few dozen at a time after each painted frame, with the
 * browser free for a tap or a key in between. The count reached is kept when the list is loaded again.
 * Tried: the later rows as React transitions (interruptible); the first rows came as soon, but the
 * last ones later (300 mods at 4x throttling: 6.5-8 s against 5-7 s).
 */
export function useProgressiveCount(total: number): number {
  const [count, setCount] = useState(FIRST_ROWS);
  useEffect(() => {
    if (count >= total) return;
    // After the next frame is painted: the rows so far are shown before the next ones are made.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const frame = requestAnimationFrame(() => {
      timer = setTimeout(() => setCount((c) => c + MORE_ROWS));
    });
    return () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    };
  }, [count, total]);
  return Math.min(count, total);
}

/** Whether two values (rows from the API) hold the same data: a reloaded list keeps unchanged rows as they are. */
export function sameData(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}
