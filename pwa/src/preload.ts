// Fetches the signed-in frame and the first page while the visitor types their password, so signing in
// does not then wait for those scripts over a slow network (bench/login.mjs). The same modules App.tsx
// loads lazily: the bundler gives both the same chunks.
let started = false;

export function preloadSignedIn(): void {
  if (started) return;
  started = true;
  void Promise.all([
    import("./components/Layout.tsx"),
    import("./components/AppChrome.tsx"),
    import("./pages/Controls/Controls.tsx"),
  ]).catch(() => {
    started = false; // offline or a new deployment: the lazy routes fetch them when needed
  });
}
