// A phone on a slow network, cold (no cache, no service worker): Chromium with 4x CPU throttling and
// DevTools' "Fast 3G" (562.5 ms latency, 1.44 Mbit/s down, 675 kbit/s up), via CDP. Measures
//   - navigation to /login until the sign-in form is visible, and until it is usable (the app's own form,
//     after the scripts ran);
//   - from clicking Sign In until the Controls content (the Start Server form) shows;
//   - the JS bytes (as sent, compressed) that arrived before the form was usable;
// beside a minimal single-page app doing the same steps (bench/login-reference/), in the same run,
// alternated, median of 5.   node bench/login.mjs [runs]   (after npm run build)

import { spawn } from "node:child_process";
import { chromium } from "playwright-core";
import { DENO, PANEL_PERMISSIONS, median, ROOT, startPanel, stopPanel } from "./lib.mjs";

const RUNS = Number(process.argv[2] ?? 5);
const FAST_3G = { offline: false, latency: 562.5, downloadThroughput: (1.6 * 1024 * 1024 / 8) * 0.9, uploadThroughput: (750 * 1024 / 8) * 0.9 };

function startReference() {
  const child = spawn(DENO, ["run", ...PANEL_PERMISSIONS, "bench/login-reference/server.ts"], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((ok) => child.stdout.on("data", (d) => {
    const m = /listening on (\S+)/.exec(String(d));
    if (m) ok({ url: m[1], child });
  }));
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});

async function measure(url, { usable, content }) {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, serviceWorkers: "block" });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", FAST_3G);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  let jsBytes = 0;
  let counting = true;
  cdp.on("Network.loadingFinished", (e) => {
    if (counting && scripts.has(e.requestId)) jsBytes += e.encodedDataLength;
  });
  const scripts = new Set();
  cdp.on("Network.responseReceived", (e) => {
    if (e.type === "Script") scripts.add(e.requestId);
  });
  const t0 = Date.now();
  await page.goto(url + "/login", { waitUntil: "commit" });
  await page.locator('input[name="username"]').first().waitFor({ state: "visible", timeout: 60_000 });
  const visible = Date.now() - t0;
  await usable(page);
  const ready = Date.now() - t0;
  counting = false;
  await page.locator('input[name="username"]').fill("admin");
  await page.locator('input[name="password"]').fill("bench-password");
  const t1 = Date.now();
  await page.getByRole("button", { name: "Sign In" }).click();
  await content(page);
  const signIn = Date.now() - t1;
  await context.close();
  return { visible, ready, signIn, jsKiB: jsBytes / 1024 };
}

const panel = await startPanel();
const reference = await startReference();
const results = { panel: [], reference: [] };
try {
  for (let i = 0; i < RUNS; i++) {
    results.panel.push(await measure(panel.url, {
      // The app's own form replaced the pre-rendered copy.
      usable: (page) => page.waitForFunction(() => !document.getElementById("login-shell") && document.querySelector('#root input[name="username"]'), null, { timeout: 60_000 }),
      content: (page) => page.getByRole("form", { name: "Start Server" }).waitFor({ timeout: 60_000 }),
    }));
    results.reference.push(await measure(reference.url, {
      usable: async () => {},
      content: (page) => page.getByRole("form", { name: "Start Server" }).waitFor({ timeout: 60_000 }),
    }));
  }
} finally {
  await browser.close();
  await stopPanel(panel);
  reference.child.kill("SIGTERM");
}
const m = (who, key) => median(results[who].map((r) => r[key]));
const line = (what, key, target, unit = "ms") =>
  console.log(`${what}: panel ${m("panel", key).toFixed(0)} ${unit}, minimal SPA ${m("reference", key).toFixed(0)} ${unit}, ratio ${(m("panel", key) / m("reference", key)).toFixed(2)}${target}`);
console.log(`cold /login, 4x CPU throttling + Fast 3G, 390x844, median of ${RUNS}:`);
line("sign-in form visible", "visible", " (target <= 1500 ms)");
line("sign-in form usable (the app's form)", "ready", "");
line("sign in -> Controls content", "signIn", " (target <= 1200 ms)");
line("JS received before the form was usable (compressed)", "jsKiB", " (target <= 100 KiB)", "KiB");
