// Fetches the signed-in frame (and, from the sign-in page, the first page) ahead of need, so a slow
// network does not add one more round trip after the session check or after signing in
// (bench/login.mjs). The same modules App.tsx loads lazily: the bundler gives both the same chunks.
let frame: Promise<unknown> | null = null;
let controls: Promise<unknown> | null = null;

/** The sidebar layout and the banners: wanted on every page but /login. */
export function preloadFrame(): void {
  frame ??= Promise.all([import("./components/Layout.tsx"), import("./components/AppChrome.tsx")]).catch(() => {
    frame = null; // offline or a new deployment: the lazy routes fetch them when needed
  });
}

/** While the visitor types their password: the frame and Controls, where signing in lands. */
export function preloadSignedIn(): void {
  preloadFrame();
  controls ??= import("./pages/Controls/Controls.tsx").catch(() => {
    controls = null;
  });
}
