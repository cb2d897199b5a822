// `import(later("./x.ts")) as Promise<typeof import("./x.ts")>` loads a module of the panel when it is
// needed, like `import("./x.ts")`, but Deno does not see it ahead of time: it reads every module a
// string-literal `import()` names, and all that module imports, before it runs anything (~13 ms of
// each start for the ~100 modules behind these). deno compile does not see it either, so every module
// loaded this way is named in scripts/launcher.mjs (PANEL_LATER_MODULES), which `npm run compile`
// includes; later_test.ts keeps the list and the calls the same.

/** The specifier, unchanged: as a call's result it is not a literal, which is the point. */
export function later(specifier: string): string {
  return specifier;
}
