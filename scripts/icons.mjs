// Renders every app icon from the one source image pwa/public/icons/icon.svg into the PNGs beside it,
// with Debian's Chromium (no network, no image library). The PNGs are committed, so building the app
// needs neither this script nor a browser; rerun it after changing the SVG:
//   node scripts/icons.mjs

import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { ROOT } from "./lib.mjs";

const svg = readFileSync(join(ROOT, "pwa", "public", "icons", "icon.svg"), "utf8");
const out = join(ROOT, "pwa", "public", "icons");
mkdirSync(out, { recursive: true });

// Regular icons keep the rounded, transparent corners. Maskable ones fill the square (the platform cuts
// its own shape) and keep the artwork inside the central 80% safe zone. The Apple touch icon must be
// opaque (iOS paints transparency black).
const ICONS = [
  { file: "icon-192.png", size: 192, scale: 1, background: null },
  { file: "icon-512.png", size: 512, scale: 1, background: null },
  { file: "maskable-192.png", size: 192, scale: 0.78, background: "#242324" },
  { file: "maskable-512.png", size: 512, scale: 0.78, background: "#242324" },
  { file: "apple-touch-icon.png", size: 180, scale: 0.86, background: "#242324" },
  { file: "favicon-32.png", size: 32, scale: 1, background: null },
];

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
try {
  const page = await browser.newPage();
  const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`;
  for (const icon of ICONS) {
    await page.setViewportSize({ width: icon.size, height: icon.size });
    const inner = Math.round(icon.size * icon.scale);
    await page.setContent(
      `<html><body style="margin:0;width:${icon.size}px;height:${icon.size}px;display:grid;place-items:center;` +
        `background:${
          icon.background ?? "transparent"
        }"><img src="${src}" width="${inner}" height="${inner}"></body></html>`,
    );
    await page.waitForFunction(() => document.images[0].complete);
    await page.screenshot({ path: join(out, icon.file), omitBackground: icon.background === null });
    console.log(`${icon.file} ${icon.size}x${icon.size}`);
  }
} finally {
  await browser.close();
}
