// Writes pwa/dist/login.html: index.html with the sign-in card already in it (HTML and its CSS, rendered
// by React and MUI from pwa/src/prerender.tsx), so a cold load of /login shows the form before the
// scripts have arrived, and the form's own small script (pwa/src/pages/Login/shell.ts), inline, so the
// form is usable as soon as the page is here: as a module file of its own it was one more request, ran
// after the app's first chunks were compiled: on a slow phone the form was usable ~400 ms after it was
// painted (bench/login.mjs: 1708 -> 1264 ms). A classic script, run by the parser where it stands,
// right after the form and its states. The server allows it by its hash (backend/http/static.ts).
// The panel serves login.html for /login only.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** Builds shell.ts into one self-contained classic script in `outDir`; returns its code. */
async function buildShellScript(build, pwa, outDir) {
  const out = await build({
    configFile: false,
    root: pwa,
    logLevel: "warn",
    publicDir: false,
    build: {
      outDir,
      emptyOutDir: false,
      modulePreload: false,
      copyPublicDir: false,
      rollupOptions: {
        input: join(pwa, "src", "pages", "Login", "shell.ts"),
        output: { format: "iife", entryFileNames: "login-shell.js", codeSplitting: false },
      },
    },
  });
  const chunk = (Array.isArray(out) ? out[0] : out).output.find((o) => o.type === "chunk" && o.isEntry);
  if (!chunk) throw new Error("the sign-in form's script was not built");
  // In a <script> element these would end it early or change how the HTML parser reads the rest.
  if (/<\/script|<!--|<script/i.test(chunk.code)) {
    throw new Error("the sign-in form's script contains </script, <!-- or <script: it cannot be inlined");
  }
  return chunk.code;
}

export async function prerenderLogin(root) {
  const { build } = await import("vite");
  const { default: react } = await import("@vitejs/plugin-react");
  const pwa = join(root, "pwa");
  const out = mkdtempSync(join(tmpdir(), "panel-prerender-"));
  try {
    await build({
      configFile: false,
      root: pwa,
      logLevel: "warn",
      plugins: [react()],
      // Everything bundled: the output runs once, here, under Node.
      ssr: { noExternal: true },
      build: {
        ssr: "src/prerender.tsx",
        outDir: out,
        emptyOutDir: true,
        rollupOptions: { output: { entryFileNames: "prerender.mjs" } },
      },
    });
    const { renderLoginShell } = await import(pathToFileURL(join(out, "prerender.mjs")).href);
    const { html, css, templates } = renderLoginShell();
    const script = await buildShellScript(build, pwa, join(out, "shell"));
    const index = readFileSync(join(pwa, "dist", "index.html"), "utf8");
    // The app's stylesheet (its fonts) moves to the end of the body: in the head it would hold the first
    // paint of the card, which has its own styles inline, for one more round trip.
    const stylesheet = /\s*<link rel="stylesheet"[^>]*>/.exec(index)?.[0] ?? "";
    // Replaced by functions: a replacement string would read `$&`, `$'` and the like in the code and CSS.
    const page = index
      .replace(stylesheet, "")
      .replace("</head>", () => `<style id="login-shell-style">${css}</style></head>`)
      .replace(
        "<body>",
        () =>
          `<body><div id="login-shell">${html}</div><template id="login-shell-states">${templates}</template>` +
          // Strict, as the module it was written as (the bundle wraps it in a function: no globals).
          `<script>"use strict";${script}</script>`,
      )
      .replace("</body>", () => `${stylesheet.trim()}</body>`);
    if (page === index || !page.includes(script)) {
      throw new Error("index.html has no </head> or <body> to put the sign-in card in");
    }
    writeFileSync(join(pwa, "dist", "login.html"), page);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
