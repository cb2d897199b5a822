// Fetches the signed-in frame (and, from the sign-in page, the first page) ahead of need, so a slow
// network does not add one more round trip after the session check or after signing in
// (bench/login.mjs). App.tsx renders these modules through `lazyReady`, which uses a module that has
// already arrived at once: with React.lazy alone, even a module already here suspends for a moment, the
// page shows its fallback, and React then holds the real page back a few hundred ms so the fallback
// does not flicker.

import { type ComponentType, createElement, lazy } from "react";

export interface Preloadable<M> {
  /** Starts the import (once); a failed one may be tried again. */
  load(): Promise<M>;
  /** The module, once it has arrived. */
  now(): M | null;
}

export function preloadable<M>(importer: () => Promise<M>): Preloadable<M> {
  let module: M | null = null;
  let loading: Promise<M> | null = null;
  return {
    load: () =>
      loading ??= importer().then((m) => (module = m), (e) => {
        loading = null; // offline or a new deployment: the next render tries again
        throw e;
      }),
    now: () => module,
  };
}

export const layoutModule = preloadable(() => import("./components/Layout.tsx"));
export const chromeModule = preloadable(() => import("./components/AppChrome.tsx"));
export const controlsModule = preloadable(() => import("./pages/Controls/Controls.tsx"));

/**
 * A component of a preloadable module: rendered at once when the module is here, else through
 * React.lazy (suspending until it arrives). `pick` must return the same component each time.
 */
// deno-lint-ignore no-explicit-any
export function lazyReady<M, P extends Record<string, any>>(
  module: Preloadable<M>,
  pick: (m: M) => ComponentType<P>,
): ComponentType<P> {
  const Lazy = lazy(() => module.load().then((m) => ({ default: pick(m) })));
  return function Ready(props: P) {
    const m = module.now();
    // deno-lint-ignore no-explicit-any
    return createElement((m ? pick(m) : Lazy) as ComponentType<any>, props);
  };
}

/** The sidebar layout and the banners: wanted on every page but /login. */
export function preloadFrame(): void {
  Promise.all([layoutModule.load(), chromeModule.load()]).catch(() => {});
}

/** While the visitor types their password: the frame and Controls, where signing in lands. */
export function preloadSignedIn(): void {
  preloadFrame();
  controlsModule.load().catch(() => {});
}
