// Helpers for the settings, game settings and players specs, on top of the game fixtures (a simulated
// Factorio directory with one save, a panel over it, the game killed after each test): start the game
// through the API and type console commands as the Console page does.

import type { Page } from "@playwright/test";
import { expect, test } from "./game-fixtures.ts";

export { expect, test };
export { openSignedIn } from "./fixtures.ts";

/** Starts the game through the API on `port` and waits until it hosts (start answers then). */
export async function startGame(page: Page, port: number): Promise<void> {
  const r = await page.request.post("/api/server/start", {
    data: { bindip: "127.0.0.1", port, savefile: "world.zip" },
  });
  expect(r.status(), await r.text()).toBe(200);
}

/** Types a console command over the page's own /ws; resolves once the panel echoed it. */
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
