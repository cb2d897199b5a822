// A panel over a simulated Factorio directory with one save, for the settings, game settings and players
// pages, plus what a test needs to run the game: start it through the API, type console commands, and
// a teardown that never leaves a game behind (the game runs detached from the panel).

import { spawnSync } from "node:child_process";
import dgram from "node:dgram";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, type Page } from "@playwright/test";
import { type PanelProcess, startPanelProcess, test as base } from "./fixtures.ts";
import { installFakeFactorio } from "../fake-factorio/install.ts";

export const test = base.extend<{ factorioDir: string }>({
  factorioDir: async ({}, use) => {
    const dir = mkdtempSync(join(tmpdir(), "factorio-e2e-"));
    const f = installFakeFactorio(dir, "2.0");
    // The save is made by the simulated game itself, as `factorio --create` makes one.
    const made = spawnSync(f.binary, ["--create", join(dir, "saves", "world.zip")], { encoding: "utf8" });
    if (made.status !== 0) throw new Error(`could not create a save:\n${made.stdout}${made.stderr}`);
    await use(dir);
    rmSync(dir, { recursive: true, force: true });
  },
  panel: async ({ factorioDir }, use) => {
    const panel: PanelProcess = await startPanelProcess({ args: ["--factorio-dir", factorioDir] });
    await use(panel);
    killRecordedGame(panel.dataDir);
    await panel.stop();
  },
});

function killRecordedGame(dataDir: string): void {
  try {
    const { pid } = JSON.parse(readFileSync(join(dataDir, "game-process.json"), "utf8"));
    process.kill(pid, "SIGKILL");
  } catch {
    // no game was started, or it is gone
  }
}

async function freeUdpPort(): Promise<number> {
  const s = dgram.createSocket("udp4");
  await new Promise<void>((ok) => s.bind(0, "127.0.0.1", ok));
  const port = s.address().port;
  await new Promise<void>((ok) => s.close(() => ok()));
  return port;
}

/** Starts the game through the API (the Controls page is another area's) and waits until it hosts. */
export async function startGame(page: Page): Promise<void> {
  const r = await page.request.post("/api/server/start", {
    data: { bindip: "127.0.0.1", port: await freeUdpPort(), savefile: "world.zip" },
  });
  expect(r.status(), await r.text()).toBe(200);
}

/** Types a console command as the Console page does, over the page's own /ws; resolves once the panel echoed it. */
export async function consoleCommand(page: Page, text: string): Promise<void> {
  await page.evaluate((command) =>
    new Promise<void>((resolve, reject) => {
      const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);
      ws.onerror = () => reject(new Error("socket failed"));
      ws.onopen = () => {
        ws.send(JSON.stringify({ room_name: "", controls: { type: "subscribe", value: "gamelog" } }));
        ws.send(JSON.stringify({ room_name: "", controls: { type: "command", value: command } }));
      };
      ws.onmessage = (e) => {
        const { message } = JSON.parse(e.data);
        if (typeof message === "string" && message.endsWith(`> ${command}`)) {
          ws.close();
          resolve();
        }
      };
    }), text);
}

export { expect, openSignedIn } from "./fixtures.ts";
