import { describe, expect, it } from "vitest";
import { act, render, screen } from "@testing-library/react";
import { type ComponentType, Suspense } from "react";
import { lazyReady, preloadable } from "./preload.ts";

const Page = ({ word }: { word: string }) => <p>{word} page</p>;

function inSuspense(Comp: ComponentType<{ word: string }>) {
  return render(
    <Suspense fallback={<p>loading</p>}>
      <Comp word="controls" />
    </Suspense>,
  );
}

describe("lazyReady", () => {
  it("renders a module that has already arrived at once, with no fallback in between", async () => {
    const module = preloadable(async () => ({ Page }));
    await module.load();
    inSuspense(lazyReady(module, (m) => m.Page));
    // Synchronously after the first render: React.lazy alone would show the fallback here.
    expect(screen.queryByText("loading")).toBeNull();
    expect(screen.getByText("controls page")).toBeTruthy();
  });

  it("suspends until a module that is not here yet arrives", async () => {
    let arrive!: (m: { Page: typeof Page }) => void;
    const module = preloadable(() => new Promise<{ Page: typeof Page }>((r) => (arrive = r)));
    inSuspense(lazyReady(module, (m) => m.Page));
    expect(screen.getByText("loading")).toBeTruthy();
    await act(async () => arrive({ Page }));
    expect(await screen.findByText("controls page")).toBeTruthy();
    expect(module.now()).not.toBeNull();
  });

  it("imports once, and again after a failed import", async () => {
    let calls = 0;
    const module = preloadable(async () => {
      calls++;
      if (calls === 1) throw new Error("offline");
      return { Page };
    });
    await expect(module.load()).rejects.toThrow("offline");
    expect(module.now()).toBeNull();
    await module.load();
    await module.load();
    expect(calls).toBe(2);
    expect(module.now()?.Page).toBe(Page);
  });
});
