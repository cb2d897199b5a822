// `import(later("./x.ts")) as Promise<typeof import("./x.ts")>` loads a module like `import("./x.ts")`,
// but Deno does not see it ahead of time: it reads every module a string-literal `import()` names, and
// all that module imports, before it runs anything. Used for
//   - the command-line work that runs before the panel listens (--export, --import, --import-fsm), and
//   - the modules the panel loads once it serves (modules.ts), which run.ts reads right after the first
//     answer while the connection gate holds connections to a few.
// Anything else loaded while the panel serves stays a literal (read at start-up): a module first read
// while a flood of connections holds every open file fails to load, and Deno keeps that failure for the
// module's URL until the process ends.
// deno compile does not see these either: scripts/launcher.mjs names them (PANEL_LATER_MODULES) and
// `npm run compile` includes them; later_test.ts keeps the list and the calls the same.

/**
 * The specifier: as a call's result it is not a literal, which is the point. In the panel's bundle
 * (scripts/bundle.mjs) each of these modules is an entry of its own, built to the same place with .js
 * instead of .ts, and the code calling later() sits in a chunk at the bundle's top, as its callers sit at
 * backend/'s top (later_test.ts checks that they do).
 */
export function later(specifier: string): string {
  return import.meta.url.endsWith(".js") ? specifier.replace(/\.ts$/, ".js") : specifier;
}
