import { readFileSync } from "node:fs";
import { join } from "node:path";
import { consoleCommand, expect, openSignedIn, startGame, test } from "./settings-fixtures.ts";
import { MSG, PANEL_MSG } from "../../shared/messages.ts";

const settingsOf = (dir: string) =>
  JSON.parse(readFileSync(join(dir, "config", "server-settings.json"), "utf8"));

test("change settings in the form, reload, see them", async ({ page, factorio }, testInfo) => {
  await openSignedIn(page, "/server-settings");
  const form = page.getByRole("form", { name: "Server Settings" });
  await expect(form.getByLabel("name", { exact: true })).toHaveValue(
    "Name of the game as it will appear in the game listing",
  );
  // Help text from the _comment_ keys; notes for comments that belong to no single field.
  await expect(
    form.getByText(
      "Maximum number of players allowed, admins can join even a full server. 0 means unlimited.",
    ),
  ).toBeVisible();
  await expect(
    form.getByText("Your factorio.com login credentials. Required for games with visibility public"),
  ).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("server-settings-desktop.png"), fullPage: true });

  await form.getByLabel("name", { exact: true }).fill("Friends of the factory");
  await form.getByLabel("tags").fill("vanilla, friends ,  chill");
  await form.getByLabel("max players").fill("8");
  await form.getByRole("checkbox", { name: "public" }).uncheck();
  await form.getByRole("checkbox", { name: "auto pause", exact: true }).uncheck();
  await form.getByRole("textbox", { name: "game password" }).fill("open sesame");
  await form.getByLabel("allow commands").click();
  await page.getByRole("option", { name: "false" }).click();
  await form.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: MSG.settingsSaved })).toBeVisible();

  const stored = settingsOf(factorio.dir);
  expect(stored).toMatchObject({
    name: "Friends of the factory",
    tags: ["vanilla", "friends", "chill"],
    max_players: 8,
    visibility: { public: false, lan: true },
    auto_pause: false,
    game_password: "open sesame",
    allow_commands: "false",
  });
  expect("admins" in stored).toBe(false);

  await page.reload();
  await expect(form.getByLabel("name", { exact: true })).toHaveValue("Friends of the factory");
  await expect(form.getByLabel("tags")).toHaveValue("vanilla, friends, chill");
  await expect(form.getByLabel("max players")).toHaveValue("8");
  await expect(form.getByRole("checkbox", { name: "public" })).not.toBeChecked();
  await expect(form.getByRole("checkbox", { name: "lan" })).toBeChecked();
  // The game password is stored but never shown: the field holds a mask, and showing it reveals the mask.
  const secret = form.getByRole("textbox", { name: "game password" });
  await expect(secret).toHaveAttribute("type", "password");
  await expect(secret).not.toHaveValue("open sesame");
  await form.getByRole("button", { name: "Show game password" }).click();
  await expect(secret).toHaveAttribute("type", "text");
  await expect(secret).not.toHaveValue("open sesame");
  // Saving again with the mask keeps the secret.
  await form.getByLabel("max players").fill("9");
  await form.getByRole("button", { name: "Save" }).click();
  await expect(page.getByTestId("flash").filter({ hasText: MSG.settingsSaved })).toBeVisible();
  await expect.poll(() => settingsOf(factorio.dir).max_players).toBe(9);
  expect(settingsOf(factorio.dir).game_password).toBe("open sesame");
});

test("the form refuses what the game would refuse, naming the key, and saves nothing", async ({ page, factorio }) => {
  await openSignedIn(page, "/server-settings");
  const form = page.getByRole("form", { name: "Server Settings" });
  await form.getByLabel("max heartbeats per second").fill("500");
  await form.getByLabel("autosave slots").fill("-1");
  await form.getByRole("button", { name: "Save" }).click();
  await expect(form.getByText("max_heartbeats_per_second must be a whole number from 6 to 240."))
    .toBeVisible();
  await expect(form.getByText("autosave_slots must be a whole number, 0 or more.")).toBeVisible();
  await expect(form.getByLabel("max heartbeats per second")).toBeFocused();
  expect(settingsOf(factorio.dir).max_heartbeats_per_second).toBe(60);
});

test(
  "game settings: every config.ini section with its keys, client-only sections collapsed",
  async ({ page }, testInfo) => {
    await openSignedIn(page, "/game-settings");
    await expect(page.getByRole("heading", { name: "Game Settings", level: 1 })).toBeVisible();
    const path = page.getByRole("table", { name: "path" });
    await expect(path.getByRole("row", { name: /read-data/ })).toContainText(
      "__PATH__executable__/../../data",
    );
    await expect(path.getByRole("row", { name: /write-data/ })).toContainText("__PATH__executable__/../..");
    // An empty section shows "--".
    const other = page.getByRole("button", { name: "other" });
    await expect(other).toHaveAttribute("aria-expanded", "true");
    await expect(page.getByRole("button", { name: /graphics/ })).toHaveAttribute("aria-expanded", "false");
    await expect(page.getByRole("button", { name: /multiplayer-lobby/ })).toHaveAttribute(
      "aria-expanded",
      "false",
    );
    await expect(page.getByText("--").first()).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("game-settings-desktop.png"), fullPage: true });
  },
);

test(
  "players: the lists are edited in the game's files while stopped",
  async ({ page, factorio }, testInfo) => {
    await openSignedIn(page, "/server-settings");
    await page.getByRole("link", { name: "Players" }).click();
    await expect(page.getByRole("heading", { name: "Players", level: 1 })).toBeVisible();
    await expect(page.getByText(MSG.settingsSaved)).toHaveCount(0);

    const whitelistForm = page.getByRole("form", { name: "Add to the whitelist" });
    await whitelistForm.getByLabel("Player name").fill("bad name");
    await whitelistForm.getByRole("button", { name: "Add" }).click();
    await expect(whitelistForm.getByText('"bad name" is not a Factorio player name')).toBeVisible();
    await whitelistForm.getByLabel("Player name").fill("alice");
    await whitelistForm.getByRole("button", { name: "Add" }).click();
    await expect(page.getByRole("table", { name: "whitelist" }).getByRole("row", { name: /alice/ }))
      .toBeVisible();
    await page.getByRole("switch", { name: "Use whitelist" }).check();
    await expect(
      page.getByTestId("flash").filter({ hasText: "The whitelist will be used from the next start." }),
    ).toBeVisible();

    const bans = page.getByRole("form", { name: "Add to the ban list" });
    await bans.getByLabel("Player name").fill("griefer");
    await bans.getByLabel("Reason").fill("blew up the main bus");
    await bans.getByRole("button", { name: "Ban" }).click();
    await expect(page.getByRole("table", { name: "ban list" }).getByRole("row", { name: /griefer/ }))
      .toContainText("blew up the main bus");

    await page.getByRole("form", { name: "Add to the admin list" }).getByLabel("Player name").fill("boss");
    await page.getByRole("form", { name: "Add to the admin list" }).getByRole("button", { name: "Add" })
      .click();
    await expect(page.getByRole("table", { name: "admin list" }).getByRole("row", { name: /boss/ }))
      .toBeVisible();
    await page.screenshot({ path: testInfo.outputPath("players-desktop.png"), fullPage: true });

    const list = (name: string) =>
      JSON.parse(readFileSync(join(factorio.dir, "config", `server-${name}.json`), "utf8"));
    expect(list("whitelist")).toEqual(["alice"]);
    expect(list("banlist")).toEqual([{ username: "griefer", reason: "blew up the main bus" }]);
    expect(list("adminlist")).toEqual(["boss"]);

    await page.getByRole("button", { name: "Remove alice from the whitelist" }).click();
    await expect(page.getByText("Nobody is on the whitelist.")).toBeVisible();
    expect(list("whitelist")).toEqual([]);

    // The admin list is the one the settings form shows.
    await page.getByRole("link", { name: "Server Settings" }).click();
    await expect(page.getByRole("form", { name: "Server Settings" }).getByLabel("admins", { exact: true }))
      .toHaveValue("boss");
  },
);

test(
  "add a whitelist entry and see it reach the game; kick from the online list",
  async ({ page, factorio, gamePort }, testInfo) => {
    await openSignedIn(page, "/players");
    await page.getByRole("switch", { name: "Use whitelist" }).check();
    const whitelist = page.getByRole("form", { name: "Add to the whitelist" });
    await whitelist.getByLabel("Player name").fill("friend");
    await whitelist.getByRole("button", { name: "Add" }).click();
    await expect(page.getByRole("table", { name: "whitelist" }).getByRole("row", { name: /friend/ }))
      .toBeVisible();

    await startGame(page, gamePort);
    await expect(page.getByText(PANEL_MSG.playersLive)).toBeVisible();
    await expect(page.getByText("Nobody is online.")).toBeVisible();

    // Added while the game runs: it reaches the game at once.
    await whitelist.getByLabel("Player name").fill("newcomer");
    await whitelist.getByRole("button", { name: "Add" }).click();
    await expect(page.getByTestId("flash").filter({ hasText: "newcomer added to the whitelist." }))
      .toBeVisible();
    await consoleCommand(page, "/fake-join friend newcomer stranger");
    const online = page.getByRole("table", { name: "Online players" });
    await expect(online.getByRole("row", { name: /friend/ })).toBeVisible();
    await expect(online.getByRole("row", { name: /newcomer/ })).toBeVisible();
    await expect(online.getByRole("row", { name: /stranger/ })).toHaveCount(0);
    await page.screenshot({ path: testInfo.outputPath("players-running-desktop.png"), fullPage: true });

    await page.getByRole("button", { name: "Kick newcomer" }).click();
    const dialog = page.getByRole("dialog", { name: "Kick newcomer" });
    await dialog.getByLabel("Reason").fill("testing the kick");
    await dialog.getByRole("button", { name: "Kick" }).click();
    await expect(page.getByTestId("flash").filter({ hasText: "newcomer was kicked." })).toBeVisible();
    await expect(online.getByRole("row", { name: /newcomer/ })).toHaveCount(0);
    const whitelistFile = JSON.parse(
      readFileSync(join(factorio.dir, "config", "server-whitelist.json"), "utf8"),
    );
    expect(whitelistFile).toEqual(["friend", "newcomer"]);
  },
);

test.describe("on a phone", () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });

  test("the three pages fit a phone", async ({ page }, testInfo) => {
    for (
      const [path, title] of [["/server-settings", "Server Settings"], ["/game-settings", "Game Settings"], [
        "/players",
        "Players",
      ]]
    ) {
      if (path === "/server-settings") await openSignedIn(page, path);
      else await page.goto(path);
      await expect(page.getByRole("heading", { name: title, level: 1 })).toBeVisible();
      const overflow = await page.evaluate(() =>
        document.documentElement.scrollWidth - document.documentElement.clientWidth
      );
      expect(overflow, `${path} scrolls sideways`).toBeLessThanOrEqual(0);
      await page.screenshot({
        path: testInfo.outputPath(`phone${path.replace("/", "-")}.png`),
        fullPage: true,
      });
    }
  });
});
