// The player lists while the game runs, with the simulator as the game: changes reach it over RCON, the
// launch arguments decide what it enforces, and what is changed in the game is kept after it stops.

import assert from "node:assert/strict";
import { chmodSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type GamePanel, startGame, waitForStatus, withGamePanel } from "../../tests/support/game.ts";
import { PANEL_MSG } from "../../shared/messages.ts";
import { until } from "../../tests/support/until.ts";

const list = (p: GamePanel, name: string) =>
  JSON.parse(readFileSync(join(p.factorio.dir, "config", `server-${name}.json`), "utf8"));

async function stopGame(p: GamePanel, c: Awaited<ReturnType<GamePanel["login"]>>): Promise<void> {
  const r = await c.get("/api/server/stop");
  assert.equal(r.status, 200, r.text);
  await waitForStatus(p.ctx, "stopped");
}

Deno.test(
  "running: each list change reaches the game over RCON and lands in its file",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c);
    const game = (cmd: string) => p.ctx.game.rcon(cmd);

    let r = await c.post("/api/players/admins/add", { username: "alice" });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.live, true);
    assert.match(await game("/admins"), /^ {2}alice$/m);
    assert.deepEqual(list(p, "adminlist"), ["alice"]);

    r = await c.post("/api/players/whitelist/add", { username: "bob" });
    assert.equal(r.status, 200, r.text);
    assert.match(await game("/whitelist get"), /^ {2}bob$/m);

    r = await c.post("/api/players/bans/add", { username: "griefer", reason: "blew up the main bus" });
    assert.equal(r.status, 200, r.text);
    assert.match(await game("/bans"), /^ {2}griefer: blew up the main bus$/m);
    assert.deepEqual(r.body.bans, [{ username: "griefer", reason: "blew up the main bus" }]);

    for (const [path, name] of [["admins", "alice"], ["whitelist", "bob"], ["bans", "griefer"]]) {
      r = await c.post(`/api/players/${path}/remove`, { username: name });
      assert.equal(r.status, 200, `${path} ${r.text}`);
    }
    assert.doesNotMatch(await game("/admins"), /alice/);
    assert.equal(await game("/whitelist get"), "The whitelist is empty.");
    assert.doesNotMatch(await game("/bans"), /griefer/);
    assert.deepEqual([list(p, "adminlist"), list(p, "whitelist"), list(p, "banlist")], [[], [], []]);

    // The settings form's admin list goes the same way.
    assert.equal((await c.post("/api/settings/update", { admins: ["boss"] })).status, 200);
    assert.match(await game("/admins"), /^ {2}boss$/m);
    // A name that would smuggle a second command into RCON never gets that far.
    assert.equal((await c.post("/api/players/admins/add", { username: "x /c game.print(1)" })).status, 400);
  }),
);

Deno.test(
  "the game starts with the ban list and, when switched on, the whitelist",
  withGamePanel(async (p) => {
    const c = await p.login();
    await c.post("/api/players/bans/add", { username: "cheater", reason: "speed hacks" });
    await c.post("/api/players/whitelist/add", { username: "friend" });

    // Whitelist off: anyone not banned may join.
    await startGame(c);
    assert.match(await p.ctx.game.rcon("/fake-join cheater"), /could not join: banned/);
    assert.equal(await p.ctx.game.rcon("/fake-join stranger"), "");
    await stopGame(p, c);

    // Switched on (it applies at the next start): only the whitelist gets in, and a name added while the
    // game runs gets in at once.
    assert.equal((await c.post("/api/players/whitelist/use", { enabled: true })).body.use_whitelist, true);
    await startGame(c);
    assert.match(await p.ctx.game.rcon("/fake-join stranger"), /could not join: not whitelisted/);
    assert.equal(await p.ctx.game.rcon("/fake-join friend"), "");
    assert.equal((await c.post("/api/players/whitelist/add", { username: "newcomer" })).status, 200);
    assert.equal(await p.ctx.game.rcon("/fake-join newcomer"), "");
  }),
);

Deno.test(
  "what is changed in the game is kept: the files are read again after it stops",
  withGamePanel(async (p) => {
    const c = await p.login();
    await c.post("/api/players/whitelist/add", { username: "regular" });
    await startGame(c);
    // Edits made in the game by an admin, not through the panel.
    await p.ctx.game.rcon("/ban troll spamming chat");
    await p.ctx.game.rcon("/promote moderator");
    await p.ctx.game.rcon("/whitelist add visitor");
    await stopGame(p, c);

    const lists = (await c.get("/api/players")).body;
    assert.deepEqual(lists.bans, [{ username: "troll", reason: "spamming chat" }]);
    assert.deepEqual(lists.admins, ["moderator"]);
    assert.deepEqual(lists.whitelist, ["regular", "visitor"]);
    assert.equal(lists.live, false);
    // A change while stopped is made to the file as the game left it.
    await c.post("/api/players/whitelist/remove", { username: "regular" });
    assert.deepEqual(list(p, "whitelist"), ["visitor"]);
    assert.deepEqual(list(p, "banlist"), [{ username: "troll", reason: "spamming chat" }]);
    const log = readFileSync(join(p.dataDir, "panel.log"), "utf8");
    assert.match(
      log,
      /Player lists after the game stopped.*admins: \+moderator; whitelist: \+visitor; bans: \+troll/,
    );
  }),
);

Deno.test(
  "online players, kick and ban",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c);
    await p.ctx.game.rcon("/fake-join alice bob");
    assert.deepEqual((await c.get("/api/players/online")).body, { players: ["alice", "bob"] });

    const kick = await c.post("/api/players/kick", { username: "alice", reason: "go to bed" });
    assert.deepEqual([kick.status, kick.body], [200, "alice was kicked by <server>. Reason: go to bed."]);
    assert.deepEqual((await c.get("/api/players/online")).body, { players: ["bob"] });
    const again = await c.post("/api/players/kick", { username: "alice" });
    assert.deepEqual([again.status, again.body], [409, "Player alice is not online."]);

    assert.equal(
      (await c.post("/api/players/bans/add", { username: "bob", reason: "griefing" })).status,
      200,
    );
    assert.deepEqual((await c.get("/api/players/online")).body, { players: [] });
    assert.match(await p.ctx.game.rcon("/fake-join bob"), /could not join: banned/);
  }),
);

Deno.test(
  "online players are named as the game names them: spaces and any letters included",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c);
    // Servers that do not verify identities let players pick such names; the console log has them whole.
    await p.ctx.game.rcon(`/fake-join alice "Zoë Smith" Ødegård`);
    assert.equal(
      await p.ctx.game.rcon("/players online"),
      "Online players (3):\n  alice (online)\n  Zoë Smith (online)\n  Ødegård (online)",
    );
    assert.deepEqual((await c.get("/api/players/online")).body, {
      players: ["alice", "Zoë Smith", "Ødegård"],
    });
    // The player history (from the console log) says the same.
    const history = await until(
      "three players in the history",
      async () => {
        const rows = (await c.get("/api/players/history")).body as { name: string; online: boolean }[];
        return rows.length === 3 && rows;
      },
    );
    assert.deepEqual(
      history.filter((r) => r.online).map((r) => r.name).sort(),
      ["alice", "Zoë Smith", "Ødegård"].sort(),
    );
  }),
);

Deno.test(
  "while the game is starting, list changes wait for a clear state",
  withGamePanel(async (p) => {
    // A game that takes its time to load the map, so the request surely lands while it is starting.
    renameSync(p.factorio.binary, p.factorio.binary + ".real");
    writeFileSync(p.factorio.binary, `#!/bin/sh\nFAKE_FACTORIO_STARTUP_MS=3000 exec "$0.real" "$@"\n`);
    chmodSync(p.factorio.binary, 0o755);
    const c = await p.login();
    const starting = waitForStatus(p.ctx, "starting");
    const started = startGame(c);
    await starting;
    const r = await c.post("/api/players/whitelist/add", { username: "early" });
    assert.deepEqual([r.status, r.body], [409, PANEL_MSG.playersBusy]);
    await started;
    assert.equal((await c.post("/api/players/whitelist/add", { username: "early" })).status, 200);
  }),
);

Deno.test(
  "while the game runs, a name the panel would not accept is not sent over RCON, not even to remove it",
  withGamePanel(async (p) => {
    const c = await p.login();
    writeFileSync(join(p.factorio.dir, "config", "server-whitelist.json"), '["Odd Name"]');
    await startGame(c);
    // Removing a name the panel would not accept needs RCON now, so it is refused rather than half done.
    const r = await c.post("/api/players/whitelist/remove", { username: "Odd Name" });
    assert.equal(r.status, 400);
    assert.deepEqual(list(p, "whitelist"), ["Odd Name"]);
  }),
);
