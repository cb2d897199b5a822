// Roles per server with two real servers, in the browser (issue 49): an operator of server 2 only sees
// that server alone (home is its Controls) and may start it; a viewer of both sees the overview with the
// buttons disabled and the role sentence, and is refused nothing it could not do, at both widths.

import { join } from "node:path";
import { expect, killRecordedGame, test } from "./game-fixtures.ts";
import { addUser, adminApi, ROLE_PASSWORD, signIn } from "./fixtures.ts";
import { freeTcpPort, freeUdpPort } from "../fake-factorio/sim.ts";
import { SERVERS_UI } from "../../shared/servers.ts";

test.describe.configure({ timeout: 180_000 });

for (
  const vp of [{ name: "phone", width: 390, height: 844 }, { name: "desktop", width: 1280, height: 800 }]
) {
  test(`${vp.name}: an operator of server 2 only sees it alone; a viewer of both sees both, read-only`, async ({ page, panel }) => {
    await page.setViewportSize({ width: vp.width, height: vp.height });
    const api = await adminApi(panel.url);
    const port = await freeUdpPort();
    // Its RCON port from the test's own: specs run side by side, each panel picking from 27015.
    const rcon_port = await freeTcpPort();
    const { id } = await api("POST", "/api/servers", {
      name: "Event map",
      port,
      rcon_port,
      from: { server: 1 },
    });
    await addUser(panel.url, "olga", "viewer");
    await addUser(panel.url, "vic", "viewer");
    await api("POST", "/api/user/servers", { username: "olga", servers: { 1: null, [id]: "operator" } });
    await api("POST", "/api/user/servers", { username: "vic", servers: { [id]: "viewer" } });
    try {
      await page.goto("/");
      await signIn(page, "olga", ROLE_PASSWORD);
      // Her one server is server 2: home is its Controls, with no switcher (one server).
      await expect(page).toHaveURL(new RegExp(`/servers/${id}$`), { timeout: 30_000 });
      await expect(page.getByTestId("server-switcher")).toHaveCount(0);
      await page.getByRole("form", { name: "Start Server" }).getByRole("button", { name: "Start Server" })
        .click();
      await expect(page.getByTestId("server-state")).toHaveText("Running", { timeout: 30_000 });
      await page.screenshot({ path: `test-results/serverroles-two-${vp.name}-operator.png`, fullPage: true });
      // Server 1 is not there for her.
      const refused = await page.request.get(`${panel.url}/api/servers/1/server/status`);
      expect(refused.status()).toBe(404);

      await page.context().clearCookies();
      await page.goto("/");
      await signIn(page, "vic", ROLE_PASSWORD);
      await expect(page).toHaveURL(/\/servers$/, { timeout: 30_000 });
      const card = page.getByTestId(`server-card-${id}`);
      await expect(card.getByTestId("card-state")).toHaveText("Running");
      await expect(card.getByRole("button", { name: SERVERS_UI.saveAndStop })).toBeDisabled();
      await expect(page.getByTestId("server-card-1").getByRole("button", { name: SERVERS_UI.start }))
        .toBeDisabled();
      await page.screenshot({ path: `test-results/serverroles-two-${vp.name}-viewer.png`, fullPage: true });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(vp.width);
    } finally {
      killRecordedGame(join(panel.dataDir, "servers", String(id)));
    }
  });
}
