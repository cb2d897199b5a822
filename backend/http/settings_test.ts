import { PANEL_PERMISSIONS } from "../../scripts/launcher.mjs";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { type GamePanel, type SimulatedVersion, withGamePanel } from "../../tests/support/game.ts";
import { installFakeFactorio } from "../../tests/fake-factorio/install.ts";
import { ADMINS_KEY, SECRET_MASK } from "../../shared/settings.ts";

/** A panel over a fresh simulated Factorio directory of `version` (no saves: the game is not started). */
function withFactorio(version: SimulatedVersion, fn: (p: GamePanel, dir: string) => Promise<void>) {
  return withGamePanel((p) => fn(p, p.factorio.dir), { version, saves: [] });
}

const settingsFile = (dir: string) => join(dir, "config", "server-settings.json");
const exampleFile = (dir: string) => join(dir, "data", "server-settings.example.json");

for (const version of ["1.1", "2.0"] as const) {
  Deno.test(
    `${version}: the real example settings make a round trip without a byte changed`,
    withFactorio(version, async (p, dir) => {
      const c = await p.login();
      assert.ok(!existsSync(settingsFile(dir)));
      const r = await c.get("/api/settings");
      assert.equal(r.status, 200);
      const example = JSON.parse(readFileSync(exampleFile(dir), "utf8"));
      // Created from the game's example on first use.
      assert.equal(readFileSync(settingsFile(dir), "utf8"), readFileSync(exampleFile(dir), "utf8"));
      // Every key of the file, in the file's order, _comment_ keys included; admins shown after tags.
      const keys = Object.keys(r.body).filter((k) => k !== ADMINS_KEY && k !== "_comment_admins");
      assert.deepEqual(keys, Object.keys(example));
      const order = Object.keys(r.body);
      assert.equal(order.indexOf(ADMINS_KEY), order.indexOf("tags") + 2);
      assert.deepEqual(r.body[ADMINS_KEY], []);
      for (const key of Object.keys(example).filter((k) => k.startsWith("_comment_"))) {
        assert.deepEqual(r.body[key], example[key], key);
      }
      assert.equal(r.body.allow_commands, "admins-only");
      assert.equal("auto_pause_when_players_connect" in r.body, version === "2.0");

      // What the spec's form sends back: the same object.
      const save = await c.post("/api/settings/update", r.body);
      assert.deepEqual([save.status, save.body], [200, "Settings successfully saved"]);
      assert.equal(readFileSync(settingsFile(dir), "utf8"), readFileSync(exampleFile(dir), "utf8"));
      assert.ok(
        !existsSync(join(dir, "config", "server-adminlist.json")),
        "an unchanged admin list is not written",
      );
    }),
  );

  Deno.test(
    `${version}: changes keep key order, layout, comments and keys the panel does not know`,
    withFactorio(version, async (p, dir) => {
      const c = await p.login();
      await c.get("/api/settings");
      // Someone added keys by hand (a newer game, a comment of their own).
      const original = readFileSync(settingsFile(dir), "utf8").replace(
        '"max_players": 0,',
        '"max_players": 0,\n  "_comment_future": "added by a later game",\n  "future_knob": 3,\n  "future_list": ["a"],',
      );
      writeFileSync(settingsFile(dir), original);
      const before = JSON.parse(original);
      const form = (await c.get("/api/settings")).body;
      assert.equal(form.future_knob, 3);
      assert.equal(form._comment_future, "added by a later game");

      const changes = {
        name: "Friends only",
        tags: ["vanilla", "chill"],
        max_players: 8,
        visibility: { public: false, lan: true },
        allow_commands: "false",
        max_heartbeats_per_second: 120,
        auto_pause: false,
        future_knob: 5,
        future_list: ["a", "b"],
        // The form sends comments back unchanged; a changed one is ignored: they are the game's documentation.
        _comment_max_players: "edited",
      };
      const r = await c.post("/api/settings/update", { ...form, ...changes });
      assert.equal(r.status, 200, r.text);
      const text = readFileSync(settingsFile(dir), "utf8");
      const after = JSON.parse(text);
      assert.deepEqual(Object.keys(after), Object.keys(before), "same keys, same order");
      const { _comment_max_players: _, ...expectedChanges } = changes;
      assert.deepEqual(after, { ...before, ...expectedChanges });
      assert.equal(after._comment_max_players, before._comment_max_players);
      assert.ok(!(ADMINS_KEY in after), "admins never goes into server-settings.json");
      // Only the changed values' lines differ; blank lines and the inline tags layout stay.
      const diff = text.split("\n").filter((line, i) => line !== original.split("\n")[i]);
      assert.equal(diff.length, 9, diff.join("\n"));
      assert.ok(text.includes('"tags": ["vanilla", "chill"],'));
      assert.equal(statSync(settingsFile(dir)).mode & 0o777, 0o600, "the file holds secrets: owner-only");
      // GET shows it back.
      const again = (await c.get("/api/settings")).body;
      for (const [k, v] of Object.entries(expectedChanges)) assert.deepEqual(again[k], v, k);
    }),
  );
}

Deno.test(
  "secrets are never sent back in clear; the mask keeps them, a new value replaces them, empty clears",
  withFactorio("2.0", async (p, dir) => {
    const c = await p.login();
    const form = (await c.get("/api/settings")).body;
    assert.equal(form.password, "", "an empty secret is shown as empty");
    const secrets = { password: "hunter2-factorio", token: "0123456789abcdef", game_password: "letmein" };
    assert.equal(
      (await c.post("/api/settings/update", { ...form, ...secrets, username: "someone" })).status,
      200,
    );
    const stored = JSON.parse(readFileSync(settingsFile(dir), "utf8"));
    assert.deepEqual([stored.password, stored.token, stored.game_password], Object.values(secrets));

    const masked = await c.get("/api/settings");
    for (const key of Object.keys(secrets)) assert.equal(masked.body[key], SECRET_MASK, key);
    for (const secret of Object.values(secrets)) {
      assert.ok(!masked.text.includes(secret), "no secret in the answer");
    }
    assert.equal(masked.body.username, "someone");

    // The form sends the masks back unchanged with another edit: the secrets stay.
    assert.equal((await c.post("/api/settings/update", { ...masked.body, max_players: 3 })).status, 200);
    let now = JSON.parse(readFileSync(settingsFile(dir), "utf8"));
    assert.deepEqual([now.password, now.token, now.game_password, now.max_players], [
      ...Object.values(secrets),
      3,
    ]);

    // A new game password replaces, an empty token clears, the mask keeps the password.
    assert.equal(
      (await c.post("/api/settings/update", { ...masked.body, game_password: "new one", token: "" })).status,
      200,
    );
    now = JSON.parse(readFileSync(settingsFile(dir), "utf8"));
    assert.deepEqual([now.password, now.token, now.game_password], [secrets.password, "", "new one"]);
    assert.equal((await c.get("/api/settings")).body.token, "");
    // Nor does the panel log carry them.
    const log = readFileSync(join(p.dataDir, "panel.log"), "utf8");
    for (const secret of [...Object.values(secrets), "new one"]) assert.ok(!log.includes(secret));
  }),
);

Deno.test(
  "every refused value gets a 400 naming the key, and the file is not touched",
  withFactorio("2.0", async (p, dir) => {
    const c = await p.login();
    const form = (await c.get("/api/settings")).body;
    const original = readFileSync(settingsFile(dir), "utf8");
    const cases: [Record<string, unknown>, string][] = [
      [{ allow_commands: true }, 'allow_commands must be one of "true", "false" or "admins-only".'],
      [{ allow_commands: "everyone" }, 'allow_commands must be one of "true", "false" or "admins-only".'],
      [{ max_heartbeats_per_second: 5 }, "max_heartbeats_per_second must be a whole number from 6 to 240."],
      [{ max_heartbeats_per_second: 241 }, "max_heartbeats_per_second must be a whole number from 6 to 240."],
      [
        { max_heartbeats_per_second: "60" },
        "max_heartbeats_per_second must be a whole number from 6 to 240.",
      ],
      [{ max_players: -1 }, "max_players must be a whole number, 0 or more."],
      [{ max_players: 2.5 }, "max_players must be a whole number, 0 or more."],
      [{ autosave_slots: null }, "autosave_slots must be a whole number, 0 or more."],
      [{ afk_autokick_interval: 1e20 }, "afk_autokick_interval must be a whole number, 0 or more."],
      [{ minimum_segment_size: "25" }, "minimum_segment_size must be a whole number, 0 or more."],
      [{ max_upload_slots: -5 }, "max_upload_slots must be a whole number, 0 or more."],
      [{ autosave_interval: -10 }, "autosave_interval must be a whole number, 0 or more."],
      [{ auto_pause: "yes" }, "auto_pause must be true or false."],
      [{ require_user_verification: 1 }, "require_user_verification must be true or false."],
      [{ name: 42 }, "name must be text."],
      [{ password: null }, "password must be text."],
      [{ tags: "a,b" }, "tags must be a list of texts."],
      [{ tags: ["a", 1] }, "tags must be a list of texts."],
      [{ admins: "alice" }, "admins must be a list of texts."],
      [
        { admins: ["alice", "bad name"] },
        'admins: "bad name" is not a Factorio player name (letters, digits, _ - and . only).',
      ],
      [{ visibility: true }, "visibility must be an object of true/false flags."],
      [{ visibility: { public: "no" } }, "visibility.public must be true or false."],
      [{ visibility: { moon: true } }, "visibility.moon is not a visibility option of the game."],
      [{ not_a_setting: 1 }, "not_a_setting is not a setting of server-settings.json."],
      [
        { max_players: -1, auto_pause: 0 },
        "max_players must be a whole number, 0 or more. auto_pause must be true or false.",
      ],
    ];
    for (const [change, message] of cases) {
      const r = await c.post("/api/settings/update", { ...form, ...change });
      assert.deepEqual([r.status, r.body], [400, message], JSON.stringify(change));
      assert.equal(readFileSync(settingsFile(dir), "utf8"), original, JSON.stringify(change));
    }
    assert.ok(
      !existsSync(join(dir, "config", "server-adminlist.json")),
      "a refused request does not touch the admin list",
    );
    for (const body of ["[1, 2]", '"text"', "null", "{"]) {
      const r = await c.request("POST", "/api/settings/update", {
        body,
        headers: { "Content-Type": "application/json" },
      });
      assert.equal(r.status, 400, body);
    }
    assert.equal(
      (await c.request("POST", "/api/settings/update", {
        body: "{}",
        headers: { "Content-Type": "text/plain" },
      })).status,
      415,
    );
    // Keys the panel does not know must keep their type.
    writeFileSync(
      settingsFile(dir),
      original.replace(
        '"max_players": 0,',
        '"max_players": 0, "future_knob": 3, "future_text": "x", "future_ratio": 0.5,',
      ),
    );
    for (
      const [change, message] of [
        [{ future_knob: "3" }, "future_knob must stay a number, as in server-settings.json."],
        [{ future_knob: 3.5 }, "future_knob must stay a whole number, as in server-settings.json."],
        [{ future_text: false }, "future_text must stay text, as in server-settings.json."],
      ] as const
    ) {
      const r = await c.post("/api/settings/update", change);
      assert.deepEqual([r.status, r.body], [400, message]);
    }
    assert.equal((await c.post("/api/settings/update", { future_ratio: 0.75 })).status, 200);
    assert.equal(JSON.parse(readFileSync(settingsFile(dir), "utf8")).future_ratio, 0.75);
  }),
);

Deno.test(
  "a partial body changes only its keys; a known key missing from an old file is added",
  withFactorio("1.1", async (p, dir) => {
    const c = await p.login();
    await c.get("/api/settings");
    const before = JSON.parse(readFileSync(settingsFile(dir), "utf8"));
    assert.equal(
      (await c.post("/api/settings/update", { auto_pause_when_players_connect: true })).status,
      200,
    );
    const after = JSON.parse(readFileSync(settingsFile(dir), "utf8"));
    assert.deepEqual(after, { ...before, auto_pause_when_players_connect: true });
    assert.equal(Object.keys(after).at(-1), "auto_pause_when_players_connect");
  }),
);

Deno.test(
  "admins in the settings form edit server-adminlist.json, never server-settings.json",
  withFactorio("2.0", async (p, dir) => {
    const c = await p.login();
    const form = (await c.get("/api/settings")).body;
    assert.equal((await c.post("/api/settings/update", { ...form, admins: ["alice", "Bob"] })).status, 200);
    const adminList = join(dir, "config", "server-adminlist.json");
    assert.deepEqual(JSON.parse(readFileSync(adminList, "utf8")), ["alice", "Bob"]);
    assert.ok(!("admins" in JSON.parse(readFileSync(settingsFile(dir), "utf8"))));
    assert.deepEqual((await c.get("/api/settings")).body.admins, ["alice", "Bob"]);
    assert.deepEqual((await c.get("/api/players")).body.admins, ["alice", "Bob"]);
    // A leftover `admins` key from the old panel stays in the file but is not what the form shows.
    const withLeftover = readFileSync(settingsFile(dir), "utf8").replace(
      '"max_players": 0,',
      '"max_players": 0, "admins": ["old"],',
    );
    writeFileSync(settingsFile(dir), withLeftover);
    assert.deepEqual((await c.get("/api/settings")).body.admins, ["alice", "Bob"]);
    assert.equal((await c.post("/api/settings/update", { admins: ["alice"] })).status, 200);
    assert.deepEqual(JSON.parse(readFileSync(adminList, "utf8")), ["alice"]);
    assert.deepEqual(JSON.parse(readFileSync(settingsFile(dir), "utf8")).admins, ["old"]);
  }),
);

Deno.test(
  "a settings file that is not JSON is reported, not overwritten",
  withFactorio("2.0", async (p, dir) => {
    const c = await p.login();
    writeFileSync(settingsFile(dir), '{ "name": "x", }');
    for (const r of [await c.get("/api/settings"), await c.post("/api/settings/update", { name: "y" })]) {
      assert.equal(r.status, 409);
      assert.match(r.body, /server-settings\.json is not valid JSON .*Fix or delete it\./);
    }
    assert.equal(readFileSync(settingsFile(dir), "utf8"), '{ "name": "x", }');
    writeFileSync(settingsFile(dir), "[]");
    assert.match((await c.get("/api/settings")).body, /must hold a JSON object/);
  }),
);

Deno.test(
  "without the file and without the game's example, GET says what is missing",
  withFactorio("2.0", async (p, dir) => {
    rmSync(exampleFile(dir));
    const r = await (await p.login()).get("/api/settings");
    assert.equal(r.status, 404);
    assert.match(
      r.body,
      /server-settings\.json does not exist.*server-settings\.example\.json.*--factorio-dir/,
    );
  }),
);

Deno.test("a failed write leaves the old file whole and no temp file behind", async () => {
  const dir = mkdtempSync(join(tmpdir(), "factorio-settings-"));
  try {
    installFakeFactorio(dir, "2.0");
    const original = readFileSync(exampleFile(dir), "utf8");
    writeFileSync(settingsFile(dir), original);
    // A child process whose file size limit is below the new file's size: the write itself fails
    // (EFBIG) half way, as on a full disk.
    const script = join(dir, "write.ts");
    writeFileSync(
      script,
      `import { ServerSettings } from ${
        JSON.stringify(new URL("../factorio/settings/serversettings.ts", import.meta.url).href)
      };
       import { factorioPaths } from ${
        JSON.stringify(new URL("../factorio/layout.ts", import.meta.url).href)
      };
       const paths = factorioPaths({ factorioDir: ${JSON.stringify(dir)}, factorioBinary: "" });
       const admins = { admins: () => [], setAdmins: async () => {}, checkNames: () => {} };
       try {
         await new ServerSettings(paths, admins).update({ description: "x".repeat(200_000) });
         console.log("WROTE");
       } catch (e) {
         console.log("FAILED " + e.message);
       }`,
    );
    const deno = new URL("../../node_modules/.bin/deno", import.meta.url).pathname;
    // With the project's configuration, as the panel runs: it says where the npm packages are.
    const config = new URL("../../deno.json", import.meta.url).pathname;
    const r = spawnSync("sh", [
      "-c",
      `trap '' XFSZ; ulimit -f 64; exec "${deno}" run ${
        PANEL_PERMISSIONS.join(" ")
      } --no-lock --config "${config}" "${script}"`,
    ], {
      encoding: "utf8",
    });
    assert.match(r.stdout, /^FAILED .*File too large/m, r.stdout + r.stderr);
    assert.equal(readFileSync(settingsFile(dir), "utf8"), original);
    assert.deepEqual(readdirSync(join(dir, "config")).filter((f) => f.startsWith(".")), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test(
  "the route table holds the spec's settings and config routes and the players routes",
  withFactorio("2.0", async (p) => {
    const table = p.routes.map((r) => `${r.method} ${r.path}`);
    for (
      const route of [
        "GET /api/settings",
        "POST /api/settings/update",
        "GET /api/config",
        "GET /api/players",
        "GET /api/players/online",
        "POST /api/players/kick",
        "POST /api/players/whitelist/use",
        ...["admins", "whitelist", "bans"].flatMap((
          l,
        ) => [`POST /api/players/${l}/add`, `POST /api/players/${l}/remove`]),
      ]
    ) {
      assert.ok(table.includes(route), route);
    }
  }),
);

Deno.test(
  "keys named like Object.prototype members are refused as unknown, and nothing is written",
  withFactorio("2.0", async (p, dir) => {
    const c = await p.login();
    assert.equal((await c.get("/api/settings")).status, 200);
    const before = readFileSync(settingsFile(dir), "utf8");
    for (
      const key of ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "__defineGetter__"]
    ) {
      // Raw JSON, so "__proto__" arrives as a key of its own (as JSON.parse makes it).
      const r = await c.request("POST", "/api/settings/update", {
        body: `{"name":"Renamed","${key}":"x"}`,
        headers: { "Content-Type": "application/json" },
      });
      assert.equal(r.status, 400, `${key}: ${r.text}`);
      assert.match(r.text, new RegExp(`${key} is not a setting of server-settings\\.json`));
      assert.equal(readFileSync(settingsFile(dir), "utf8"), before, key);
    }
  }),
);
