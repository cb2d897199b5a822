import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, render, screen } from "@testing-library/react";
import { FIRST_ROWS, sameData, useProgressiveCount } from "./useProgressive.ts";

function List({ items, search }: { items: string[]; search?: string }) {
  const shown = useProgressiveCount(items.length, search);
  return <ul>{items.slice(0, shown).map((i) => <li key={i}>{i}</li>)}</ul>;
}

const items = (n: number) => Array.from({ length: n }, (_, i) => `row ${i}`);

describe("useProgressiveCount", () => {
  beforeEach(() => {
    vi.useFakeTimers({
      toFake: ["setTimeout", "clearTimeout", "requestAnimationFrame", "cancelAnimationFrame"],
    });
  });
  afterEach(() => {
    cleanup();
    vi.useRealTimers();
  });

  it("renders the first rows at once and the others a few dozen per frame, until all are there", async () => {
    render(<List items={items(200)} />);
    expect(screen.getAllByRole("listitem")).toHaveLength(FIRST_ROWS);
    const counts: number[] = [];
    for (let i = 0; i < 10; i++) {
      await act(async () => {
        await vi.advanceTimersByTimeAsync(20);
      });
      counts.push(screen.getAllByRole("listitem").length);
    }
    // More after each frame, never all at once, and in the end every row.
    expect(counts[0]).toBeGreaterThan(FIRST_ROWS);
    expect(counts[0]).toBeLessThan(200);
    expect(counts.at(-1)).toBe(200);
    expect(screen.getByText("row 199")).toBeTruthy();
  });

  it("a short list is whole in the first render, and a list loaded again keeps the rows already shown", async () => {
    const { rerender } = render(<List items={items(5)} />);
    expect(screen.getAllByRole("listitem")).toHaveLength(5);
    rerender(<List items={items(120)} />);
    for (let i = 0; i < 10; i++) {
      await act(async () => {
        await vi.advanceTimersByTimeAsync(20);
      });
    }
    expect(screen.getAllByRole("listitem")).toHaveLength(120);
    rerender(<List items={items(121)} />);
    expect(screen.getAllByRole("listitem")).toHaveLength(121);
  });

  it("a new search starts again from the first rows, and grows to the whole list again", async () => {
    const { rerender } = render(<List items={items(200)} search="" />);
    const settle = async () => {
      for (let i = 0; i < 10; i++) {
        await act(async () => {
          await vi.advanceTimersByTimeAsync(20);
        });
      }
    };
    await settle();
    expect(screen.getAllByRole("listitem")).toHaveLength(200);
    rerender(<List items={items(150)} search="row 1" />);
    expect(screen.getAllByRole("listitem")).toHaveLength(FIRST_ROWS);
    await settle();
    expect(screen.getAllByRole("listitem")).toHaveLength(150);
    // The same search with its list loaded again keeps what it reached.
    rerender(<List items={items(140)} search="row 1" />);
    expect(screen.getAllByRole("listitem")).toHaveLength(140);
  });
});

describe("sameData", () => {
  it("tells equal rows from the API apart from changed ones", () => {
    expect(sameData({ a: 1, b: [1, 2] }, { a: 1, b: [1, 2] })).toBe(true);
    expect(sameData({ a: 1, b: [1, 2] }, { a: 1, b: [2, 1] })).toBe(false);
    expect(sameData(undefined, undefined)).toBe(true);
    expect(sameData(undefined, { a: 1 })).toBe(false);
  });
});
