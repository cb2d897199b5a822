// Writes pwa/dist/login.html: index.html with the sign-in card already in it (HTML and its CSS, rendered
// by React and MUI from pwa/src/prerender.tsx), so a cold load of /login shows the form before the
// scripts have arrived, and the form's own small script (pwa/src/pages/Login/shell.ts, built here into
// assets/) that makes it usable before the app runs. The panel serves it for /login only
// (backend/http/static.ts).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

/** Builds shell.ts into pwa/dist/assets as one self-contained file; returns its URL path. */
async function buildShellScript(build, pwa) {
  const out = await build({
    configFile: false,
    root: pwa,
    logLevel: "warn",
    publicDir: false,
    build: {
      outDir: join(pwa, "dist"),
      emptyOutDir: false,
      modulePreload: false,
      copyPublicDir: false,
      rollupOptions: {
        input: join(pwa, "src", "pages", "Login", "shell.ts"),
        output: { format: "es", entryFileNames: "assets/login-shell-[hash].js", codeSplitting: false },
      },
    },
  });
  const chunk = (Array.isArray(out) ? out[0] : out).output.find((o) => o.type === "chunk" && o.isEntry);
  if (!chunk) throw new Error("the sign-in form's script was not built");
  return "/" + chunk.fileName;
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
      build: { ssr: "src/prerender.tsx", outDir: out, emptyOutDir: true, rollupOptions: { output: { entryFileNames: "prerender.mjs" } } },
    });
    const { renderLoginShell } = await import(pathToFileURL(join(out, "prerender.mjs")).href);
    const { html, css, templates } = renderLoginShell();
    const script = await buildShellScript(build, pwa);
    const index = readFileSync(join(pwa, "dist", "index.html"), "utf8");
    // The app's stylesheet (its fonts) moves to the end of the body: in the head it would hold the first
    // paint of the card, which has its own styles inline, for one more round trip.
    const stylesheet = /\s*<link rel="stylesheet"[^>]*>/.exec(index)?.[0] ?? "";
    const page = index
      .replace(stylesheet, "")
      .replace("</head>", `<style id="login-shell-style">${css}</style></head>`)
      .replace(
        "<body>",
        `<body><div id="login-shell">${html}</div><template id="login-shell-states">${templates}</template>` +
          // async: it runs as soon as it is here, without waiting for the app's scripts before it.
          `<script type="module" async crossorigin src="${script}"></script>`,
      )
      .replace("</body>", `${stylesheet.trim()}</body>`);
    if (page === index || !page.includes(script)) throw new Error("index.html has no </head> or <body> to put the sign-in card in");
    writeFileSync(join(pwa, "dist", "login.html"), page);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
