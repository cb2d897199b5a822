// The installed app without a network: time from reload to the shell showing the page and the offline
// banner (served by the service worker from its precache), against the same reload online. Also the
// precache: what the service worker stores on install (from the build's injected manifest).
//   npm run build && node bench/offline-reload.mjs [runs]

import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { median, percentile, ROOT, startPanel, stopPanel } from "./lib.mjs";

const runs = Number(process.argv[2] ?? 15);
const dist = join(ROOT, "pwa", "dist");

// The precache list as the build injected it into sw.js.
const sw = readFileSync(join(dist, "sw.js"), "utf8");
const entries = [...new Set([...sw.matchAll(/"url":"([^"]+)"/g)].map((m) => m[1]))];
let raw = 0;
let gz = 0;
for (const url of entries) {
  const file = join(dist, url);
  raw += statSync(file).size;
  gz += gzipSync(readFileSync(file), { level: 9 }).length;
}

const panel = await startPanel();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
try {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(panel.url + "/login");
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password", { exact: true }).fill("bench-password");
  await page.getByRole("button", { name: "Sign In" }).click();
  await page.getByRole("heading", { name: "Controls", level: 1 }).waitFor();
  await page.evaluate(() => navigator.serviceWorker.ready.then(() => undefined));
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null);

  // Times are taken in the page (performance.now() from navigation start) when the layout with the
  // sidebar appears (with the offline banner, offline) and when the page's own heading does.
  await context.addInitScript(() => {
    const marks = (window.__shellMarks = {});
    new MutationObserver(() => {
      const banner = document.querySelector('[data-testid="offline-banner"]');
      if (!marks.shell && document.querySelector("nav") && (banner || navigator.onLine)) {
        marks.shell = performance.now();
      }
      if (!marks.page && document.querySelector("h1")) marks.page = performance.now();
    }).observe(document, { childList: true, subtree: true });
  });
  const reloadTimes = async (offline) => {
    await context.setOffline(offline);
    const shell = [];
    const full = [];
    for (let i = 0; i < runs; i++) {
      await page.reload({ waitUntil: "commit" });
      await page.getByRole("heading", { name: "Controls", level: 1 }).waitFor();
      if (offline) await page.getByTestId("offline-banner").waitFor();
      const m = await page.evaluate(() => window.__shellMarks);
      shell.push(m.shell);
      full.push(m.page);
    }
    return { shell, full };
  };
  const online = await reloadTimes(false);
  const offline = await reloadTimes(true);
  const fmt = (t) => `median ${median(t).toFixed(0)} ms, p95 ${percentile(t, 95).toFixed(0)} ms`;
  console.log(
    `precache: ${entries.length} entries, ${(raw / 1024).toFixed(1)} KiB (${
      (gz / 1024).toFixed(1)
    } KiB gzip)`,
  );
  console.log(
    `offline reload, ${runs} runs: shell with the offline banner ${fmt(offline.shell)}; page heading ${
      fmt(offline.full)
    }`,
  );
  console.log(
    `online reload (for comparison), ${runs} runs: shell ${fmt(online.shell)}; page heading ${
      fmt(online.full)
    }`,
  );
} finally {
  await browser.close();
  await stopPanel(panel);
}
