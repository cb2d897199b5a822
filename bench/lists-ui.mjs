// Long lists in the app, in Chromium at 4x CPU throttling (a phone's CPU), at phone (390x844) and desktop
// (1280x800) widths:
//   - opening Mods with 300 installed mods and Saves with 500 saves (from Help, inside the app): when the
//     first row is shown and when the last one is;
//   - switching one of the 300 mods off or on: from the tap until its switch shows the new state;
// beside the same steps on a second panel, in the same run, with 10 mods and 10 saves (the reference: what
// the page costs without a long list). Median of 5.
//   node bench/lists-ui.mjs [runs]   (needs `npm run build` first)

import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { DENO, median, PANEL_PERMISSIONS, ROOT, startPanel, stopPanel, writeZip } from "./lib.mjs";

const RUNS = Number(process.argv[2] ?? 5);
const LONG = { mods: 300, saves: 500 };
const SHORT = { mods: 10, saves: 10 };

const once = (text) =>
  async function* () {
    yield Buffer.from(text);
  };

/** A game folder with `mods` mods and `saves` saves, and a panel on it. */
async function panelWith({ mods, saves }) {
  const factorioDir = mkdtempSync(join(tmpdir(), "bench-factorio-"));
  spawnSync(DENO, ["run", ...PANEL_PERMISSIONS, "tests/fake-factorio/install.ts", factorioDir, "2.0"], {
    cwd: ROOT,
    stdio: "ignore",
  });
  mkdirSync(join(factorioDir, "mods"), { recursive: true });
  mkdirSync(join(factorioDir, "saves"), { recursive: true });
  for (let i = 0; i < mods; i++) {
    const name = `bench-mod-${String(i).padStart(4, "0")}`;
    const info = JSON.stringify({
      name,
      version: "1.0.0",
      title: `Bench mod ${i}`,
      author: "bench",
      factorio_version: "2.0",
      dependencies: ["base >= 2.0"],
    });
    await writeZip(join(factorioDir, "mods", `${name}_1.0.0.zip`), [{
      name: `${name}_1.0.0/info.json`,
      chunks: once(info),
    }]);
  }
  for (let i = 0; i < saves; i++) {
    const name = `world-${String(i).padStart(4, "0")}`;
    await writeZip(join(factorioDir, "saves", `${name}.zip`), [{
      name: `${name}/level.dat0`,
      chunks: once("x".repeat(64)),
    }]);
  }
  const panel = await startPanel({ args: ["--factorio-dir", factorioDir] });
  return {
    panel,
    factorioDir,
    last: { mods: `Bench mod ${mods - 1}`, saves: `world-${String(saves - 1).padStart(4, "0")}.zip` },
  };
}

/**
 * In the page: goes to `path` inside the app and resolves with [first row shown, last row shown] in ms,
 * each read in the first animation frame after the row is in the document.
 */
function openList(page, path, first, last) {
  return page.evaluate(([path, first, last]) =>
    new Promise((done) => {
      const has = (text) =>
        [...document.querySelectorAll("main span, main td, main p")].some((e) => e.textContent === text);
      const start = performance.now();
      let firstAt = 0;
      let firstSeen = false;
      const observer = new MutationObserver(() => {
        if (!firstSeen && has(first)) {
          firstSeen = true;
          requestAnimationFrame(() => (firstAt = performance.now() - start));
        }
        if (has(last)) {
          observer.disconnect();
          requestAnimationFrame(() =>
            done([firstAt || performance.now() - start, performance.now() - start])
          );
        }
      });
      observer.observe(document.body, { subtree: true, childList: true, characterData: true });
      history.pushState({}, "", path);
      dispatchEvent(new PopStateEvent("popstate"));
    }), [path, first, last]);
}

/** In the page: taps the first mod's switch; resolves with the ms until it shows the other state. */
function toggleFirstMod(page) {
  return page.evaluate(() =>
    new Promise((done) => {
      const selector = 'input[aria-label="Enable bench-mod-0000"]';
      const was = document.querySelector(selector).checked;
      const start = performance.now();
      const observer = new MutationObserver(() => {
        if (document.querySelector(selector)?.checked !== was) {
          observer.disconnect();
          requestAnimationFrame(() => done(performance.now() - start));
        }
      });
      observer.observe(document.body, { subtree: true, childList: true, attributes: true });
      document.querySelector(selector).click();
    })
  );
}

/** Back to Help, and wait until the list page is gone. */
async function leave(page, row) {
  await page.evaluate(() => {
    history.pushState({}, "", "/help");
    dispatchEvent(new PopStateEvent("popstate"));
  });
  await page.waitForFunction(
    (row) => ![...document.querySelectorAll("main span, main td, main p")].some((e) => e.textContent === row),
    row,
  );
  await page.waitForTimeout(500);
}

async function measure(browser, setup, viewport) {
  const page = await (await browser.newContext({ viewport })).newPage();
  const { panel, last } = setup;
  await page.goto(panel.url + "/login");
  await page.getByLabel("Username").fill("admin");
  await page.getByLabel("Password", { exact: true }).fill("bench-password");
  await page.getByRole("button", { name: "Sign In" }).click();
  await page.waitForURL((u) => !u.pathname.endsWith("/login"));
  // Every page's code loaded once, unthrottled: the figures are the pages' own work, not the download.
  for (const path of ["/mods", "/saves", "/help"]) {
    await page.goto(panel.url + path);
    await page.waitForTimeout(1000);
  }
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
  const out = { mods: [], saves: [], toggle: [] };
  for (let i = 0; i < RUNS; i++) {
    out.mods.push(await openList(page, "/mods", "Bench mod 0", last.mods));
    await page.waitForTimeout(500);
    out.toggle.push(await toggleFirstMod(page));
    await page.waitForTimeout(500);
    await leave(page, "Bench mod 0");
    out.saves.push(await openList(page, "/saves", "world-0000.zip", last.saves));
    await leave(page, "world-0000.zip");
  }
  await page.context().close();
  const firsts = (xs) => median(xs.map((x) => x[0]));
  const lasts = (xs) => median(xs.map((x) => x[1]));
  return {
    modsFirst: firsts(out.mods),
    modsLast: lasts(out.mods),
    savesFirst: firsts(out.saves),
    savesLast: lasts(out.saves),
    toggle: median(out.toggle),
    toggleMax: Math.max(...out.toggle),
  };
}

const long = await panelWith(LONG);
const short = await panelWith(SHORT);
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
    // Alternated: the reference panel, then the long lists.
    const ref = await measure(browser, short, viewport);
    const big = await measure(browser, long, viewport);
    console.log(`${label}, 4x CPU throttling, median of ${RUNS}:`);
    console.log(
      `  open Mods, ${LONG.mods} mods: first row ${big.modsFirst.toFixed(0)} ms, last row ${
        big.modsLast.toFixed(0)
      } ms; ${SHORT.mods} mods (reference): first ${ref.modsFirst.toFixed(0)} ms, last ${
        ref.modsLast.toFixed(0)
      } ms; first rows ${(big.modsFirst / ref.modsFirst).toFixed(2)} x the reference`,
    );
    console.log(
      `  switch a mod off/on, ${LONG.mods} mods: ${big.toggle.toFixed(0)} ms (longest ${
        big.toggleMax.toFixed(0)
      }); ${SHORT.mods} mods (reference): ${ref.toggle.toFixed(0)} ms (longest ${
        ref.toggleMax.toFixed(0)
      }); ratio ${(big.toggle / ref.toggle).toFixed(2)}`,
    );
    console.log(
      `  open Saves, ${LONG.saves} saves: first row ${big.savesFirst.toFixed(0)} ms, last row ${
        big.savesLast.toFixed(0)
      } ms; ${SHORT.saves} saves (reference): first ${ref.savesFirst.toFixed(0)} ms, last ${
        ref.savesLast.toFixed(0)
      } ms; first rows ${(big.savesFirst / ref.savesFirst).toFixed(2)} x the reference`,
    );
  }
} finally {
  await browser.close();
  for (const s of [long, short]) {
    await stopPanel(s.panel);
    rmSync(s.factorioDir, { recursive: true, force: true });
  }
}
