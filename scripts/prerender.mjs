// Writes pwa/dist/login.html: index.html with the sign-in card already in it (HTML and its CSS, rendered
// by React and MUI from pwa/src/prerender.tsx), so a cold load of /login shows the form before the
// scripts have arrived. The panel serves it for /login only (backend/http/static.ts).

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

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
    const { html, css } = renderLoginShell();
    const index = readFileSync(join(pwa, "dist", "index.html"), "utf8");
    const page = index
      .replace("</head>", `<style id="login-shell-style">${css}</style></head>`)
      .replace("<body>", `<body><div id="login-shell">${html}</div>`);
    if (page === index) throw new Error("index.html has no </head> or <body> to put the sign-in card in");
    writeFileSync(join(pwa, "dist", "login.html"), page);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
