// The health chart on Controls (issue 51: 90 days draw on a throttled phone in under 500 ms): a panel whose
// database holds 90 days of samples (one every 15 minutes: 8,640 points in the 90-day range, 96 in the
// day's), started as `npm start` starts it; Chromium at 390x844 and 1280x800 with 4x CPU throttling
// switches the chart's figure (UPS -> CPU -> UPS ...), which draws the chart anew, and the time from the
// click to the next painted frame with the new canvas is taken, median of RUNS. Reference in the same run:
// the same switch over the day's range (96 points). First, the route's answer for 90 days, timed whole.
//   node bench/health-chart.mjs

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const RUNS = 11;
const STEP = 15 * 60_000;
const DAYS = 90;

// Under Deno (the seeding child): 90 days of samples into <dir>/panel.db, through the health store.
if (typeof Deno !== "undefined") {
  const { openDb } = await import("../backend/store/db.ts");
  const { HealthStore } = await import("../backend/health/store.ts");
  const db = openDb(join(Deno.args[0], "panel.db"));
  const store = new HealthStore(db);
  const now = Date.now();
  const samples = [];
  for (let at = now - DAYS * 86400_000; at <= now; at += STEP) {
    const i = samples.length;
    samples.push([1, {
      at,
      up: true,
      paused: false,
      ups: 60 - Math.max(0, 8 * Math.sin(i / 90)),
      cpu: 40 + 25 * Math.sin(i / 60),
      memory: (1.5 + i / 9000) * 1024 ** 3,
      players: Math.round(4 + 3 * Math.sin(i / 30)),
      disk: 50 * 1024 ** 3,
    }]);
  }
  store.addAll(samples);
  db.close();
  Deno.exit(0);
}

const { chromium } = await import("playwright-core");
const { DENO, median, PANEL_PERMISSIONS, panelClient, ROOT, startPanel, stopPanel } = await import(
  "./lib.mjs"
);

const dataDir = mkdtempSync(join(tmpdir(), "panel-bench-chart-"));
const seeded = spawnSync(DENO, ["run", ...PANEL_PERMISSIONS, fileURLToPath(import.meta.url), dataDir], {
  cwd: ROOT,
  stdio: "inherit",
});
if (seeded.status !== 0) process.exit(1);
const panel = await startPanel({ dataDir });

/** Clicks `name` and resolves with the ms until a frame is painted after the chart's canvas was replaced. */
function switchFigure(page, name) {
  return page.evaluate((name) =>
    new Promise((done) => {
      const chart = document.querySelector('[data-testid="health-chart"]');
      const old = chart.querySelector("canvas");
      const button = [...document.querySelectorAll("button")].find((b) => b.textContent === name);
      const started = performance.now();
      const check = () => {
        const canvas = chart.querySelector("canvas");
        if (canvas && canvas !== old) requestAnimationFrame(() => done(performance.now() - started));
        else setTimeout(check, 0);
      };
      button.click();
      check();
    }), name);
}

async function measure(browser, viewport, range) {
  const page = await (await browser.newContext({ viewport })).newPage();
  await page.goto(panel.url + "/login");
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password", { exact: true }).fill("bench-password");
  await page.getByRole("button", { name: "Sign In" }).click();
  await page.waitForURL((u) => !u.pathname.endsWith("/login"));
  await page.getByRole("button", { name: range, exact: true }).click();
  // The data and uPlot's code loaded once, unthrottled: the figure is the drawing, not the download.
  await page.locator('[data-testid="health-chart"] canvas').waitFor();
  await page.waitForTimeout(1000);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    times.push(await switchFigure(page, i % 2 === 0 ? "CPU" : "UPS"));
    await page.waitForTimeout(300);
  }
  await page.context().close();
  return times;
}

// The route's answer for the chart (issue 51: under 100 ms for 90 days), whole: query, JSON, HTTP.
const api = panelClient(panel);
await api("POST", "/api/login", { username: "admin", password: "bench-password" });
const answers = [];
for (let i = 0; i < 11; i++) {
  const t = performance.now();
  await api("GET", "/api/health/history?range=90d");
  answers.push(performance.now() - t);
}
const day = [];
for (let i = 0; i < 11; i++) {
  const t = performance.now();
  await api("GET", "/api/health/history?range=day");
  day.push(performance.now() - t);
}
console.log(
  `GET /api/health/history, median of 11: 90 days ${median(answers).toFixed(1)} ms; a day (reference) ${
    median(day).toFixed(1)
  } ms; want < 100 ms`,
);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
});
try {
  for (
    const [label, viewport] of [["phone 390x844", { width: 390, height: 844 }], ["desktop 1280x800", {
      width: 1280,
      height: 800,
    }]]
  ) {
    // Alternated: the reference (a day, 96 points), then 90 days.
    const day = await measure(browser, viewport, "Day");
    const ninety = await measure(browser, viewport, "90 days");
    console.log(
      `${label}, 4x CPU throttling, median of ${RUNS}: draw 90 days (8,640 points) ${
        median(ninety).toFixed(0)
      } ms ` +
        `(longest ${Math.max(...ninety).toFixed(0)}); a day (96 points, reference) ${
          median(day).toFixed(0)
        } ms (longest ${Math.max(...day).toFixed(0)}); want < 500 ms`,
    );
  }
} finally {
  await browser.close();
  await stopPanel(panel);
  rmSync(dataDir, { recursive: true, force: true });
}
