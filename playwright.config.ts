import { defineConfig, devices } from "@playwright/test";

// Debian's Chromium (installed by .ci/run / scripts/ensure-chromium.sh), never a downloaded browser.
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: "test-results/e2e",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  workers: 2,
  // Tests of one file spread over both workers: newcomer.spec.ts alone is 9 minutes of one worker otherwise.
  fullyParallel: true,
  // One retry absorbs a timing hiccup on a loaded machine; scripts/test.mjs still names every test that needed it.
  retries: 1,
  reporter: [["list"]],
  use: {
    ...devices["Desktop Chrome"],
    headless: true,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: CHROMIUM_ARGS,
    },
    // Recorded on the retry only: recording every test (snapshots at each step) made the suite ~40%
    // slower (three spec files, 203 s -> 125 s of test time), and a test that fails twice has its trace.
    trace: "on-first-retry",
    screenshot: "only-on-failure",
  },
});
