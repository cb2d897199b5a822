import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startPanel } from "../../tests/support/harness.ts";
import { type GamePanel, withGamePanel } from "../../tests/support/game.ts";
import { installFakeFactorio } from "../../tests/fake-factorio/install.ts";
import { parseOnlinePlayers } from "../factorio/players/lists.ts";

/** A panel over a fresh simulated Factorio 2.0 directory (no saves: the game is not started). */
function withFactorio(fn: (p: GamePanel, dir: string) => Promise<void>) {
  return withGamePanel((p) => fn(p, p.factorio.dir), { saves: [] });
}

const file = (dir: string, name: string) => join(dir, "config", `server-${name}.json`);
const readList = (dir: string, name: string) => JSON.parse(readFileSync(file(dir, name), "utf8"));

Deno.test(
  "stopped: the three lists are edited in their files",
  withFactorio(async (p, dir) => {
    const c = await p.login();
    const empty = await c.get("/api/players");
    assert.deepEqual(empty.body, { admins: [], whitelist: [], use_whitelist: false, bans: [], live: false });

    let r = await c.post("/api/players/admins/add", { username: "alice" });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.admins, ["alice"]);
    assert.deepEqual(readList(dir, "adminlist"), ["alice"]);

    r = await c.post("/api/players/whitelist/add", { username: "bob" });
    await c.post("/api/players/whitelist/add", { username: "carol" });
    assert.deepEqual(readList(dir, "whitelist"), ["bob", "carol"]);

    r = await c.post("/api/players/bans/add", { username: "griefer", reason: "threw grenades at the base" });
    await c.post("/api/players/bans/add", { username: "spammer" });
    assert.deepEqual(readList(dir, "banlist"), [
      { username: "griefer", reason: "threw grenades at the base" },
      { username: "spammer", reason: "" },
    ]);
    assert.deepEqual((await c.get("/api/players")).body.bans, [
      { username: "griefer", reason: "threw grenades at the base" },
      { username: "spammer", reason: "" },
    ]);

    r = await c.post("/api/players/whitelist/remove", { username: "BOB" });
    assert.equal(r.status, 200, "names compare without case, as in the game");
    assert.deepEqual(readList(dir, "whitelist"), ["carol"]);
    await c.post("/api/players/bans/remove", { username: "griefer" });
    await c.post("/api/players/admins/remove", { username: "alice" });
    assert.deepEqual(readList(dir, "banlist"), [{ username: "spammer", reason: "" }]);
    assert.deepEqual(readList(dir, "adminlist"), []);
  }),
);

Deno.test(
  "stopped: entries the game wrote are kept as they are (names, ban objects with addresses)",
  withFactorio(async (p, dir) => {
    writeFileSync(
      file(dir, "banlist"),
      JSON.stringify(["oldstyle", { username: "withaddr", reason: "x", address: "203.0.113.9" }, {
        note: "no name",
      }]),
    );
    writeFileSync(file(dir, "whitelist"), '\uFEFF["Weird Name", "ok"]');
    const c = await p.login();
    const lists = (await c.get("/api/players")).body;
    assert.deepEqual(lists.bans, [{ username: "oldstyle", reason: "" }, {
      username: "withaddr",
      reason: "x",
    }]);
    assert.deepEqual(lists.whitelist, ["Weird Name", "ok"]);
    await c.post("/api/players/bans/add", { username: "newone", reason: "r" });
    assert.deepEqual(readList(dir, "banlist"), [
      "oldstyle",
      { username: "withaddr", reason: "x", address: "203.0.113.9" },
      { note: "no name" },
      { username: "newone", reason: "r" },
    ]);
    // A name already in the file may be removed while stopped even if it would not be accepted as new.
    assert.equal((await c.post("/api/players/whitelist/remove", { username: "Weird Name" })).status, 200);
    assert.deepEqual(readList(dir, "whitelist"), ["ok"]);
  }),
);

Deno.test(
  "list changes refuse bad names, duplicates and unknown entries, and change nothing",
  withFactorio(async (p, dir) => {
    const c = await p.login();
    await c.post("/api/players/whitelist/add", { username: "bob" });
    const cases: [string, Record<string, unknown>, number, string][] = [
      ["/api/players/whitelist/add", {}, 400, "Player name is required"],
      ["/api/players/whitelist/add", { username: "  " }, 400, "Player name is required"],
      ["/api/players/whitelist/add", { username: 7 }, 400, "Player name is required"],
      [
        "/api/players/whitelist/add",
        { username: "two words" },
        400,
        '"two words" is not a Factorio player name (letters, digits, _ - and . only)',
      ],
      [
        "/api/players/admins/add",
        { username: "x;/c game.print(1)" },
        400,
        '"x;/c game.print(1)" is not a Factorio player name (letters, digits, _ - and . only)',
      ],
      [
        "/api/players/whitelist/add",
        { username: "a".repeat(61) },
        400,
        "Player name must be at most 60 characters",
      ],
      ["/api/players/whitelist/add", { username: "Bob" }, 409, "Bob is already on the whitelist."],
      ["/api/players/whitelist/remove", { username: "nobody" }, 404, "nobody is not on the whitelist."],
      ["/api/players/bans/remove", { username: "nobody" }, 404, "nobody is not on the ban list."],
      [
        "/api/players/bans/add",
        { username: "x", reason: "line\n/c game.print(1)" },
        400,
        "The ban reason must be one line without control or text-direction characters",
      ],
      [
        "/api/players/bans/add",
        { username: "x", reason: "r".repeat(201) },
        400,
        "The ban reason must be at most 200 characters",
      ],
      ["/api/players/bans/add", { username: "x", reason: 5 }, 400, "The ban reason must be text"],
      ["/api/players/whitelist/use", { enabled: "yes" }, 400, "use_whitelist must be true or false."],
    ];
    for (const [path, body, status, message] of cases) {
      const r = await c.post(path, body);
      assert.deepEqual([r.status, r.body], [status, message], `${path} ${JSON.stringify(body)}`);
    }
    assert.deepEqual(readList(dir, "whitelist"), ["bob"]);
    assert.ok(!existsSync(file(dir, "banlist")));
    assert.ok(!existsSync(file(dir, "adminlist")));
  }),
);

Deno.test(
  "a list file that is not a JSON list is reported, not overwritten",
  withFactorio(async (p, dir) => {
    const c = await p.login();
    writeFileSync(file(dir, "adminlist"), '{"alice": true}');
    for (
      const r of [await c.get("/api/players"), await c.post("/api/players/admins/add", { username: "bob" })]
    ) {
      assert.equal(r.status, 409);
      assert.match(r.body, /server-adminlist\.json must hold a JSON list of player names\./);
    }
    assert.equal(readFileSync(file(dir, "adminlist"), "utf8"), '{"alice": true}');
    writeFileSync(file(dir, "adminlist"), "[broken");
    assert.match((await c.get("/api/players")).body, /server-adminlist\.json is not valid JSON/);
  }),
);

Deno.test("the use-whitelist switch is kept in the panel's data and decides the launch arguments", async () => {
  const dir = mkdtempSync(join(tmpdir(), "factorio-players-"));
  installFakeFactorio(dir, "2.0");
  const dataDir = mkdtempSync(join(tmpdir(), "panel-data-"));
  try {
    let panel = await startPanel({ args: ["--factorio-dir", dir], dataDir });
    let c = await panel.login();
    assert.deepEqual(panel.ctx.players.launchArgs(), [
      "--server-whitelist",
      file(dir, "whitelist"),
      "--use-server-whitelist",
      "false",
      "--server-banlist",
      file(dir, "banlist"),
    ]);
    // The game gets files to write its in-game changes to, even before anything was listed.
    for (const name of ["adminlist", "whitelist", "banlist"]) assert.deepEqual(readList(dir, name), []);
    const r = await c.post("/api/players/whitelist/use", { enabled: true });
    assert.equal(r.body.use_whitelist, true);
    await panel.close({ keepData: true });

    panel = await startPanel({ args: ["--factorio-dir", dir], dataDir });
    c = await panel.login();
    assert.equal((await c.get("/api/players")).body.use_whitelist, true, "survives a panel restart");
    assert.deepEqual(panel.ctx.players.launchArgs().slice(2, 4), ["--use-server-whitelist", "true"]);
    await c.post("/api/players/whitelist/use", { enabled: false });
    assert.deepEqual(panel.ctx.players.launchArgs().slice(2, 4), ["--use-server-whitelist", "false"]);
    await panel.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  }
});

Deno.test(
  "kick and the online list need a running game",
  withFactorio(async (p) => {
    const c = await p.login();
    assert.deepEqual((await c.get("/api/players/online")).body, { players: [] });
    const r = await c.post("/api/players/kick", { username: "alice" });
    assert.equal(r.status, 409);
    assert.equal((await c.post("/api/players/kick", { username: "a b" })).status, 400);
  }),
);

Deno.test("the game's /players online answer", () => {
  assert.deepEqual(
    parseOnlinePlayers("Online players (2):\n  alice (online)\n  Bob.the-builder_2 (online)\n"),
    [
      "alice",
      "Bob.the-builder_2",
    ],
  );
  assert.deepEqual(parseOnlinePlayers("Online players (0):"), []);
  assert.deepEqual(parseOnlinePlayers(""), []);
});
