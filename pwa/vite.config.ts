import { defineConfig } from "vitest/config";
import type { Plugin } from "vite";
import react from "@vitejs/plugin-react";
import { VitePWA } from "vite-plugin-pwa";
import { fileURLToPath } from "node:url";

const backend = process.env.PANEL_DEV_BACKEND ?? "http://127.0.0.1:8080";

/**
 * Asks for the signed-in chunk (see codeSplitting below) from the HTML, beside the first script: after a
 * sign-in or on a reload signed in it is needed at once, and found only when the first script has run.
 */
function preloadSignedIn(): Plugin {
  return {
    name: "panel-preload-signed-in",
    apply: "build",
    transformIndexHtml: {
      order: "post",
      handler: (_html, ctx) => {
        const chunk = Object.values(ctx.bundle ?? {}).find((c) =>
          c.type === "chunk" && c.name === "signed-in"
        );
        return chunk
          ? [{
            tag: "link",
            attrs: { rel: "modulepreload", crossorigin: true, href: "/" + chunk.fileName },
            injectTo: "head",
          }]
          : [];
      },
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  plugins: [
    react(),
    preloadSignedIn(),
    VitePWA({
      // Our own service worker (src/sw.ts): precache + navigation fallback + push and notification clicks.
      strategies: "injectManifest",
      srcDir: "src",
      filename: "sw.ts",
      // main.tsx registers it with workbox-window (production builds only) and asks before updating.
      injectRegister: false,
      registerType: "prompt",
      injectManifest: {
        // A classic script, which is what a service worker registered without `type: "module"` is. The
        // plugin's default ("es") builds it with Rolldown's deprecated inlineDynamicImports and warns.
        rollupFormat: "iife",
        // The shell: scripts, styles, fonts, index.html, and the icons the page itself links. The plugin adds
        // the manifest and its icons; listing those here too (svg, webmanifest, the manifest's PNGs) would
        // precache them twice.
        globPatterns: ["**/*.{js,css,html,woff2}", "icons/apple-touch-icon.png", "icons/favicon-32.png"],
      },
      manifest: {
        id: "/",
        name: "Factorio Panel",
        short_name: "Factorio",
        description: "Start, stop and watch your Factorio server; get an alert when it stops.",
        lang: "en",
        start_url: "/",
        scope: "/",
        display: "standalone",
        orientation: "any",
        theme_color: "#242324",
        background_color: "#1b1a1b",
        categories: ["games", "utilities"],
        icons: [
          { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
          { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
          { src: "/icons/maskable-192.png", sizes: "192x192", type: "image/png", purpose: "maskable" },
          { src: "/icons/maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
        ],
        shortcuts: [
          { name: "Controls", url: "/", icons: [{ src: "/icons/icon-192.png", sizes: "192x192" }] },
          { name: "Console", url: "/console", icons: [{ src: "/icons/icon-192.png", sizes: "192x192" }] },
        ],
      },
    }),
  ],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    chunkSizeWarningLimit: 800,
    sourcemap: false,
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            // What the first script needs stays together and out of the group below.
            { name: "app", tags: ["$initial"], priority: 2 },
            {
              // Where signing in lands: the frame (sidebar, banners) and Controls with everything they use, as
              // ONE chunk. Over HTTP/1.1 (6 connections) on a slow network every extra chunk in that waterfall
              // costs a round trip (bench/login.mjs).
              name: "signed-in",
              priority: 1,
              test:
                /[\\/]pwa[\\/]src[\\/](components[\\/](Layout|AppChrome)|pages[\\/]Controls[\\/]Controls)\.tsx$/,
            },
          ],
        },
      },
    },
  },
  server: {
    // `vite` for development: the PWA with hot reload, API and /ws proxied to a running panel.
    proxy: {
      "/api": backend,
      "/ws": { target: backend.replace(/^http/, "ws"), ws: true },
    },
  },
  test: {
    environment: "happy-dom",
    include: ["src/**/*.test.{ts,tsx}"],
    setupFiles: ["src/test/setup.ts"],
    restoreMocks: true,
  },
});
