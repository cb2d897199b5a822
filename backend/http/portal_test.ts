// The mod portal over HTTP against tests/fake-portal: login (and the token's safety), the cached mod list,
// installs with version choice, sha1 checks, dependency resolution, updates, installing a save's mods,
// and backing off when the portal rate-limits.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ModPanel, withModPanel } from "../../tests/support/modpanel.ts";
import { buildModZip } from "../../tests/fake-portal/catalog.ts";
import { NEEDS_EMAIL_CODE, USERS } from "../../tests/fake-portal/server.ts";
import { MSG, PANEL_MSG } from "../../shared/messages.ts";
import type {
  InstallMultipleResult,
  InstallResult,
  Mod,
  ModUpdate,
  PortalModInfo,
} from "../../shared/api.ts";
import type { SimulatedVersion } from "../../tests/fake-factorio/install.ts";
import { reason } from "../factorio/mods/portal.ts";

const user = USERS[0];
const names = (mods: Mod[]) => mods.map((m) => m.name);
const byName = (mods: Mod[], name: string) => mods.find((m) => m.name === name);

function visible(dir: string): string[] {
  return readdirSync(dir).filter((f) => !f.startsWith(".")).sort();
}

/** The download path of one release on the fake portal. */
function release(m: ModPanel, name: string, version: string): string {
  const mod = m.fake.mods.find((x) => x.name === name)!;
  return `/download/${name}/${mod.releases.find((r) => r.version === version)!.id}`;
}

function install(m: ModPanel, name: string, version: string) {
  return m.c.post("/api/mods/portal/install", {
    modName: name,
    downloadUrl: release(m, name, version),
    fileName: `${name}_${version}.zip`,
  });
}

Deno.test(
  "portal login: the spec's message on failure (HTTP 200 errors), status, logout",
  withModPanel(async (m) => {
    assert.deepEqual((await m.c.get("/api/mods/portal/loginstatus")).body, false);
    let r = await m.c.post("/api/mods/portal/login", { username: user.username, password: "wrong" });
    assert.deepEqual([r.status, r.body], [400, MSG.portalLoginFailed]);
    assert.deepEqual((await m.c.get("/api/mods/portal/loginstatus")).body, false);
    r = await m.c.post("/api/mods/portal/login", { username: "", password: "x" });
    assert.deepEqual([r.status, r.body], [400, MSG.usernameRequired]);
    r = await m.c.post("/api/mods/portal/login", { username: "x" });
    assert.deepEqual([r.status, r.body], [400, MSG.passwordRequired]);
    r = await m.c.post("/api/mods/portal/login", {
      username: NEEDS_EMAIL_CODE.username,
      password: NEEDS_EMAIL_CODE.password,
    });
    assert.deepEqual([r.status, r.body], [400, PANEL_MSG.portalEmailCode]);

    // By e-mail address: the stored name is the account's username, which downloads need.
    r = await m.c.post("/api/mods/portal/login", { username: user.email, password: user.password });
    assert.deepEqual([r.status, r.body], [200, null]);
    const login = m.fake.hits("/api-login").at(-1)!;
    const form = new URLSearchParams(login.body);
    assert.deepEqual(
      [
        form.get("username"),
        form.get("password"),
        form.get("api_version"),
        form.get("require_game_ownership"),
      ],
      [user.email, user.password, "6", "true"],
    );
    assert.deepEqual((await m.c.get("/api/mods/portal/loginstatus")).body, true);
    const file = join(m.panel.dataDir, "mod-portal.json");
    assert.equal(statSync(file).mode & 0o777, 0o600, "owner-only");
    assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), { username: user.username, token: user.token });
    assert.ok(!readFileSync(join(m.panel.dataDir, "panel.log"), "utf8").includes(user.token), "never logged");

    // Logout is a state-changing GET: refused cross-site.
    assert.equal((await m.c.get("/api/mods/portal/logout", { crossSite: true })).status, 403);
    assert.deepEqual((await m.c.get("/api/mods/portal/loginstatus")).body, true);
    r = await m.c.get("/api/mods/portal/logout");
    assert.deepEqual([r.status, r.body], [200, false]);
    assert.ok(!existsSync(file));
    assert.deepEqual((await m.c.get("/api/mods/portal/loginstatus")).body, false);
  }),
);

Deno.test(
  "portal login: a pasted token is stored the same way; the auth server's rate limit is passed on",
  withModPanel(async (m) => {
    let r = await m.c.post("/api/mods/portal/login", { username: user.username, token: "" });
    assert.deepEqual([r.status, r.body], [400, PANEL_MSG.tokenRequired]);
    r = await m.c.post("/api/mods/portal/login", { username: user.username, token: "has spaces in it" });
    assert.deepEqual([r.status, r.body], [400, PANEL_MSG.portalTokenInvalid]);
    r = await m.c.post("/api/mods/portal/login", { username: user.username, token: user.token });
    assert.equal(r.status, 200);
    assert.deepEqual((await m.c.get("/api/mods/portal/loginstatus")).body, true);
    assert.equal(m.fake.hits("/api-login").length, 0, "a token needs no round trip");
    assert.equal((await install(m, "belt-balancer", "3.0.0")).status, 200, "and it works for downloads");

    for (let i = 0; i < 5; i++) {
      await m.c.post("/api/mods/portal/login", { username: "someone", password: "wrong" });
    }
    r = await m.c.post("/api/mods/portal/login", { username: user.username, password: user.password });
    assert.equal(r.status, 429);
    assert.equal(r.body, PANEL_MSG.authRateLimited);
    assert.equal(r.headers.get("retry-after"), "120");
  }),
);

Deno.test(
  "the token never appears in an API answer",
  withModPanel(async (m) => {
    await m.portalLogin();
    m.addFixture("belt-balancer_2.1.3.zip");
    for (
      const path of [
        "/api/mods/portal/loginstatus",
        "/api/mods/list",
        "/api/mods/updates",
        "/api/mods/portal/info/belt-balancer",
        "/api/mods/portal/progress",
      ]
    ) {
      const r = await m.c.get(path);
      assert.equal(r.status, 200, path);
      assert.ok(!r.text.includes(user.token), path);
    }
    const r = await install(m, "belt-balancer", "3.0.0");
    assert.ok(!r.text.includes(user.token));
  }),
);

Deno.test(
  "the mod list is fetched once and kept until it expires",
  withModPanel(async (m) => {
    let r = await m.c.get("/api/mods/portal/list");
    assert.equal(r.status, 200);
    assert.ok(r.body.results.length >= 10);
    assert.deepEqual(r.body.results.find((x: { name: string }) => x.name === "belt-balancer"), {
      name: "belt-balancer",
      title: "Belt Balancer",
    });
    const [a, b] = await Promise.all([m.c.get("/api/mods/portal/list"), m.c.get("/api/mods/portal/list")]);
    assert.deepEqual(a.body, b.body);
    assert.equal(
      m.fake.hits("/api/mods").filter((h) => h.path === "/api/mods").length,
      1,
      "one fetch for all of them",
    );
    const query = new URLSearchParams(m.fake.hits("/api/mods")[0].query);
    assert.equal(query.get("page_size"), "max");
    m.clock.t += 9 * 60_000;
    await m.c.get("/api/mods/portal/list");
    assert.equal(m.fake.hits("/api/mods").length, 1, "still fresh after 9 minutes");
    m.clock.t += 2 * 60_000;
    r = await m.c.get("/api/mods/portal/list");
    assert.equal(r.status, 200);
    assert.equal(m.fake.hits("/api/mods").length, 2, "fetched again after 10 minutes");
  }, { extraArgs: ["--mod-portal-cache-minutes", "10"] }),
);

Deno.test(
  "portal info of a built-in mod: a record with no releases, without asking the portal",
  withModPanel(async (m) => {
    for (const name of ["base", "space-age", "quality", "elevated-rails"]) {
      const r = await m.c.get(`/api/mods/portal/info/${name}`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.name, name);
      assert.deepEqual(r.body.releases, []);
      assert.equal(m.fake.hits(`/api/mods/${name}`).length, 0);
    }
  }, { version: "2.0" }),
);

Deno.test(
  "portal info: releases newest first, four-part versions, compatibility for this game",
  withModPanel(async (m) => {
    const r = await m.c.get("/api/mods/portal/info/fp-library");
    assert.equal(r.status, 200);
    const info: PortalModInfo = r.body;
    assert.deepEqual(info.releases.map((x) => [x.version, x.info_json.factorio_version, x.compatibility]), [
      ["1.2.0.0", "2.1.0.0", false],
      ["1.1.0.0", "2.0.0.0", true],
      ["1.0.0.0", "2.0.0.0", true],
      ["0.9.0.0", "1.1.0.0", false],
    ]);
    assert.equal(info.title, "Factorio Panel Library");
    assert.equal((await m.c.get("/api/mods/portal/info/no-such-mod")).status, 404);
    assert.equal((await m.c.get("/api/mods/portal/info/..%2F..%2Fetc")).status, 400);
  }, { version: "2.0" }),
);

Deno.test(
  "install: needs a portal login; downloads the chosen version, checks it and names it",
  withModPanel(async (m) => {
    let r = await install(m, "belt-balancer", "2.1.3");
    assert.deepEqual([r.status, r.body], [409, PANEL_MSG.portalLoginRequired]);
    await m.portalLogin();
    r = await install(m, "belt-balancer", "2.1.3");
    assert.equal(r.status, 200, r.text);
    const result: InstallResult = r.body;
    assert.deepEqual(names(result.mods), ["base", "belt-balancer"]);
    assert.equal(byName(result.mods, "belt-balancer")!.version, "2.1.3");
    assert.deepEqual(result.dependencies_added, []);
    assert.deepEqual(visible(m.modsDir), ["belt-balancer_2.1.3.zip", "mod-list.json"]);
    assert.deepEqual(
      new Uint8Array(readFileSync(join(m.modsDir, "belt-balancer_2.1.3.zip"))),
      m.fake.mods[0].releases[0].bytes,
    );
    assert.deepEqual(m.modList().mods, [{ name: "base", enabled: true }, {
      name: "belt-balancer",
      enabled: true,
    }]);

    // The token went to the portal's download path, and nowhere else.
    const dl = m.fake.hits("/download/belt-balancer/").at(-1)!;
    assert.equal(new URLSearchParams(dl.query).get("token"), user.token);
    assert.equal(new URLSearchParams(dl.query).get("username"), user.username);
    const cdn = m.fake.requests.filter((x) => x.server === "cdn");
    assert.equal(cdn.length, 1);
    assert.ok(!cdn[0].query.includes(user.token) && !cdn[0].query.includes("username"), cdn[0].query);

    // Installing another version replaces the first.
    r = await install(m, "belt-balancer", "3.0.0");
    assert.equal(r.status, 200);
    assert.deepEqual(visible(m.modsDir), ["belt-balancer_3.0.0.zip", "mod-list.json"]);
  }),
);

Deno.test(
  "install: a wrong sha1, a wrong mod inside, a refused token leave nothing behind",
  withModPanel(async (m) => {
    await m.portalLogin();
    let r = await install(m, "fp-bad-sha", "1.0.0");
    assert.deepEqual([r.status, r.body], [503, PANEL_MSG.checksumMismatch("fp-bad-sha", "1.0.0")]);
    r = await install(m, "fp-wrong-name", "1.0.0");
    assert.equal(r.status, 400);
    assert.match(r.body, /is fp-impostor 1.0.0, not fp-wrong-name 1.0.0/);
    await m.c.post("/api/mods/portal/login", { username: user.username, token: "stale-token" });
    r = await install(m, "fp-library", "1.0.0");
    assert.deepEqual([r.status, r.body], [403, PANEL_MSG.portalTokenRefused(403)]);
    assert.deepEqual(readdirSync(m.modsDir), [], "no zip, no temp file, no mod-list.json");
  }, { version: "2.0" }),
);

Deno.test(
  "install: a download link that is not the portal's own is refused before anything is fetched",
  withModPanel(async (m) => {
    await m.portalLogin();
    const evilHits: string[] = [];
    const evil = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (req) => {
      evilHits.push(req.url);
      return new Response("got you");
    });
    const evilOrigin = `127.0.0.1:${evil.addr.port}`;
    try {
      const links = [
        `http://${evilOrigin}/download/belt-balancer/5fc1aca2bfe1b005c6943bf1`,
        `//${evilOrigin}/download/belt-balancer/5fc1aca2bfe1b005c6943bf1`,
        `@${evilOrigin}/download/belt-balancer/5fc1aca2bfe1b005c6943bf1`,
        `/download/belt-balancer/5fc1aca2bfe1b005c6943bf1@${evilOrigin}`,
        "/download/belt-balancer/../../api/mods",
        "/download/belt-balancer/5fc1aca2bfe1b005c6943bf1?x=1",
        "/download/belt-balancer\\5fc1aca2bfe1b005c6943bf1",
        "/api/mods/belt-balancer",
        "",
        42,
      ];
      for (const downloadUrl of links) {
        const r = await m.c.post("/api/mods/portal/install", {
          modName: "belt-balancer",
          downloadUrl,
          fileName: "belt-balancer_3.0.0.zip",
        });
        assert.equal(r.status, 400, String(downloadUrl));
      }
      // A well-formed path that is not a release of that mod is refused too (after asking the portal).
      const other = await m.c.post("/api/mods/portal/install", {
        modName: "belt-balancer",
        downloadUrl: release(m, "fp-library", "1.0.0"),
      });
      assert.deepEqual([other.status, other.body], [
        400,
        "That download is not a release of belt-balancer on the mod portal.",
      ]);
      // The file name is the panel's, whatever the client sends.
      const named = await m.c.post("/api/mods/portal/install", {
        modName: "belt-balancer",
        downloadUrl: release(m, "belt-balancer", "3.0.0"),
        fileName: "../../../evil.zip",
      });
      assert.equal(named.status, 200);
      assert.deepEqual(visible(m.modsDir), ["belt-balancer_3.0.0.zip", "mod-list.json"]);
    } finally {
      await evil.shutdown();
    }
    assert.deepEqual(evilHits, []);
    assert.equal(m.fake.hits("/download").length, 1, "only the one good download reached the portal");
    assert.ok(!existsSync(join(m.factorioDir, "evil.zip")));
  }),
);

Deno.test(
  "install resolves required dependencies, skipping optional, incompatible and built-in ones",
  withModPanel(async (m) => {
    await m.portalLogin();
    let r = await install(m, "fp-trains", "2.0.0");
    assert.equal(r.status, 200, r.text);
    const result: InstallResult = r.body;
    assert.deepEqual(result.dependencies_added.sort(), ["fp-library", "fp-signals"]);
    assert.deepEqual(result.dependencies_missing, []);
    assert.deepEqual(names(result.mods), [
      "base",
      "elevated-rails",
      "quality",
      "space-age",
      "fp-library",
      "fp-signals",
      "fp-trains",
    ]);
    assert.equal(
      byName(result.mods, "fp-library")!.version,
      "1.1.0",
      "the newest that fits 2.0 and >= 1.1.0",
    );
    assert.deepEqual(visible(m.modsDir), [
      "fp-library_1.1.0.zip",
      "fp-signals_1.0.0.zip",
      "fp-trains_2.0.0.zip",
      "mod-list.json",
    ]);
    for (
      const skipped of [
        "fp-optional",
        "fp-hidden",
        "fp-conflict",
        "fp-recommended",
        "space-age",
        "quality",
        "base",
      ]
    ) {
      assert.equal(m.fake.hits(`/download/${skipped}/`).length, 0, skipped);
    }

    // A dependency that is there but too old is brought up to what is needed.
    await m.c.post("/api/mods/delete", { name: "fp-trains" });
    await install(m, "fp-library", "1.0.0");
    r = await install(m, "fp-trains", "2.0.0");
    assert.deepEqual(r.body.dependencies_added, ["fp-library"]);
    assert.equal(byName(r.body.mods, "fp-library")!.version, "1.1.0");

    // What cannot be had is reported; the mod itself is still installed.
    r = await install(m, "fp-needs-missing", "1.0.0");
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.dependencies_missing, [
      { name: "fp-not-on-portal", reason: "not on the mod portal" },
      { name: "fp-library", reason: "no release >= 9.0 for this Factorio version on the mod portal" },
    ]);
    assert.ok(byName(r.body.mods, "fp-needs-missing"));
  }, { version: "2.0" }),
);

/** The update found for each installed mod, per game version. */
const UPDATE_TABLE: {
  game: SimulatedVersion;
  base?: string;
  installed: [string, string, string][];
  expected: [string, string][];
}[] = [
  // [name, version, factorio_version] installed; [name, update version] expected
  {
    game: "1.1",
    installed: [["belt-balancer", "2.1.3", "0.18"], ["fp-library", "0.9.0", "1.1"]],
    expected: [["belt-balancer", "3.0.0"]],
  },
  {
    game: "1.1",
    base: "1.0.0",
    installed: [["belt-balancer", "2.0.0", "0.18"]],
    expected: [["belt-balancer", "2.1.3"]],
  },
  { game: "1.1", base: "1.0.0", installed: [["belt-balancer", "2.1.3", "0.18"]], expected: [] },
  {
    game: "2.0",
    installed: [["belt-balancer", "2.1.3", "0.18"], ["fp-library", "1.0.0", "2.0"]],
    expected: [["fp-library", "1.1.0"]],
  },
  { game: "2.0", installed: [["fp-library", "1.1.0", "2.0"], ["local-only", "1.0.0", "2.0"]], expected: [] },
  {
    game: "2.1",
    installed: [["fp-library", "1.0.0", "2.0"], ["fp-signals", "1.0.0", "2.0"]],
    expected: [["fp-library", "1.2.0"], ["fp-signals", "1.0.1"]],
  },
  { game: "2.1", installed: [["fp-library", "1.2.0", "2.1"]], expected: [] },
];

for (const row of UPDATE_TABLE) {
  const label = `${row.base ?? row.game}: ${row.installed.map((i) => i.slice(0, 2).join(" ")).join(", ")}`;
  Deno.test(
    `updates on ${label}`,
    withModPanel(async (m) => {
      for (const [name, version, factorio_version] of row.installed) {
        writeFileSync(
          join(m.modsDir, `${name}_${version}.zip`),
          await buildModZip({ name, version, factorio_version }),
        );
      }
      const r = await m.c.get("/api/mods/updates");
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.map((u: ModUpdate) => [u.modName, u.version]), row.expected);
      for (const u of r.body as ModUpdate[]) {
        assert.equal(u.downloadUrl, release(m, u.modName, u.version));
        assert.equal(u.fileName, `${u.modName}_${u.version}.zip`);
      }
    }, { version: row.game, baseVersion: row.base }),
  );
}

Deno.test(
  "update replaces the mod, keeps it disabled if it was, and parallel updates lose nothing",
  withModPanel(async (m) => {
    await m.portalLogin();
    for (
      const [name, version] of [["fp-library", "1.0.0"], ["fp-signals", "1.0.0"], ["fp-optional", "1.0.0"]]
    ) {
      writeFileSync(
        join(m.modsDir, `${name}_${version}.zip`),
        await buildModZip({ name, version, factorio_version: "2.1" }),
      );
    }
    writeFileSync(
      join(m.modsDir, "mod-list.json"),
      JSON.stringify({ mods: [{ name: "fp-library", enabled: false, version: "1.0.0" }], keep: true }),
    );
    const updates: ModUpdate[] = (await m.c.get("/api/mods/updates")).body;
    assert.equal(updates.length, 3);
    const results = await Promise.all(updates.map((u) => m.c.post("/api/mods/update", u)));
    for (const r of results) assert.equal(r.status, 200, r.text);
    assert.deepEqual(results.map((r) => [r.body.name, r.body.version, r.body.enabled]), [
      ["fp-library", "1.2.0", false],
      ["fp-optional", "1.0.1", true],
      ["fp-signals", "1.0.1", true],
    ]);
    assert.deepEqual(visible(m.modsDir), [
      "fp-library_1.2.0.zip",
      "fp-optional_1.0.1.zip",
      "fp-signals_1.0.1.zip",
      "mod-list.json",
    ]);
    const list = m.modList();
    assert.equal(list.keep, true);
    assert.deepEqual(
      list.mods,
      [
        { name: "fp-library", enabled: false },
        { name: "fp-optional", enabled: true },
        { name: "fp-signals", enabled: true },
      ].sort((a, b) =>
        list.mods.findIndex((x) => x.name === a.name) - list.mods.findIndex((x) => x.name === b.name)
      ),
    );
    assert.equal(list.mods.length, 3, "all three entries, none lost");
    assert.deepEqual((await m.c.get("/api/mods/updates")).body, []);
    // The old API's checks.
    assert.equal(
      (await m.c.post("/api/mods/update", {
        modName: "not-installed",
        downloadUrl: release(m, "fp-library", "1.2.0"),
      })).status,
      404,
    );
    assert.equal((await m.c.post("/api/mods/update", {})).status, 400);
  }, { version: "2.1" }),
);

Deno.test(
  "per-pack updates: found and applied inside the pack only",
  withModPanel(async (m) => {
    await m.portalLogin();
    m.addFixture("belt-balancer_2.1.3.zip");
    await m.c.post("/api/mods/packs/create", { name: "old" });
    const updates: ModUpdate[] = (await m.c.get("/api/mods/packs/old/updates")).body;
    assert.deepEqual(updates.map((u) => [u.modName, u.current, u.version]), [[
      "belt-balancer",
      "2.1.3",
      "3.0.0",
    ]]);
    // The old UI sends "fileName", the old API read "filename": both are fine.
    const r = await m.c.post("/api/mods/packs/old/mod/update", {
      modName: "belt-balancer",
      downloadUrl: updates[0].downloadUrl,
      filename: updates[0].fileName,
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.version, "3.0.0");
    assert.equal(
      byName((await m.c.get("/api/mods/list")).body, "belt-balancer")!.version,
      "2.1.3",
      "the installed mods are untouched",
    );
    assert.deepEqual(visible(join(m.panel.dataDir, "mod-packs", "old")), [
      "belt-balancer_3.0.0.zip",
      "mod-list.json",
    ]);
  }),
);

Deno.test(
  "install/multiple (load from save): exact versions, built-ins toggled not downloaded, failures listed",
  withModPanel(async (m) => {
    await m.portalLogin();
    writeFileSync(
      join(m.modsDir, "fp-signals_1.0.0.zip"),
      await buildModZip({ name: "fp-signals", version: "1.0.0", factorio_version: "2.0" }),
    );
    writeFileSync(
      join(m.modsDir, "mod-list.json"),
      JSON.stringify({ mods: [{ name: "fp-signals", enabled: false }] }),
    );
    const save = [
      { name: "base", version: "2.0.72.0", crc: 1, built_in: true },
      { name: "elevated-rails", version: "2.0.72.0", crc: 2, built_in: true },
      { name: "quality", version: "2.0.72.0", crc: 3, built_in: true },
      { name: "fp-library", version: "1.0.0.0", crc: 4, built_in: false },
      { name: "fp-signals", version: "1.0.0.0", crc: 5, built_in: false },
      { name: "fp-unknown", version: "1.0.0.0", crc: 6, built_in: false },
      { name: "fp-trains", version: "9.9.9.0", crc: 7, built_in: false },
    ];
    // The panel's own page asks with ?detail=1 for the whole result, also when it is a failure.
    const r = await m.c.post("/api/mods/portal/install/multiple?detail=1", save);
    // Not every mod could be installed: not a success (the old UI would show green on a 200).
    const message =
      "Some mods could not be installed: fp-unknown 1.0.0.0 (not on the mod portal); fp-trains 9.9.9.0 (version 9.9.9.0 is not on the mod portal).";
    assert.equal(r.status, 424, r.text);
    assert.equal(r.body.message, message);
    const result: InstallMultipleResult = r.body;
    assert.deepEqual(result.installed, ["fp-library"]);
    assert.equal(byName(result.mods, "fp-library")!.version, "1.0.0", "the save's version, not the newest");
    assert.deepEqual(result.present, ["fp-signals"]);
    assert.deepEqual(result.toggled, [
      { name: "elevated-rails", enabled: true },
      { name: "quality", enabled: true },
      { name: "space-age", enabled: false },
    ]);
    assert.deepEqual(result.failed, [
      { name: "fp-unknown", version: "1.0.0.0", reason: "not on the mod portal" },
      { name: "fp-trains", version: "9.9.9.0", reason: "version 9.9.9.0 is not on the mod portal" },
    ]);
    assert.deepEqual(result.mods.filter((x) => x.built_in).map((x) => [x.name, x.enabled]), [
      ["base", true],
      ["elevated-rails", true],
      ["quality", true],
      ["space-age", false],
    ]);
    assert.equal(byName(result.mods, "fp-signals")!.enabled, true, "every mod of the save is enabled");
    for (const builtIn of ["base", "elevated-rails", "quality", "space-age"]) {
      assert.equal(m.fake.hits(`/api/mods/${builtIn}`).length, 0);
    }

    // Without it, the failure is a text naming each mod and why, as the old panel answered failures: its UI
    // puts the error body into its message box, where an object blanked the whole page.
    const plain = await m.c.post("/api/mods/portal/install/multiple", save);
    assert.equal(plain.status, 424, plain.text);
    assert.equal(plain.body, message);
    assert.match(plain.headers.get("content-type") ?? "", /^application\/json/);

    for (const bad of [{}, [{ name: "x" }], [{ name: "../x", version: "1.0.0" }], "text"]) {
      assert.equal(
        (await m.c.post("/api/mods/portal/install/multiple", bad)).status,
        400,
        JSON.stringify(bad),
      );
    }
  }, { version: "2.0" }),
);

Deno.test(
  "the portal's rate limit: short waits are retried with backoff, long ones are passed on and respected",
  withModPanel(async (m) => {
    m.fake.rateLimit(2, 1);
    let r = await m.c.get("/api/mods/portal/list");
    assert.equal(r.status, 200, r.text);
    assert.equal(m.fake.hits("/api/mods").length, 3, "two refusals, then the answer");

    m.fake.rateLimit(100, 30);
    r = await m.c.get("/api/mods/portal/info/belt-balancer");
    assert.equal(r.status, 429);
    assert.equal(r.body, PANEL_MSG.portalRateLimited(30));
    assert.equal(r.headers.get("retry-after"), "30");
    const seen = m.fake.hits("/api/mods").length;
    r = await m.c.get("/api/mods/portal/info/fp-library");
    assert.equal(r.status, 429, "refused at once while the portal's wait lasts");
    assert.equal(m.fake.hits("/api/mods").length, seen, "without asking the portal again");
    m.fake.rateLimit(0);
    m.clock.t += 31_000;
    assert.equal(
      (await m.c.get("/api/mods/portal/info/fp-library")).status,
      200,
      "asked again once the wait is over",
    );
  }),
);

Deno.test(
  "a download on a slow line finishes; a stalled one is given up on inactivity and leaves nothing",
  withModPanel(async (m) => {
    await m.portalLogin();
    m.panel.ctx.portal.idleTimeoutMs = 1000;
    // A slow but moving body: 40 pieces 50 ms apart take about twice the inactivity limit, and succeed.
    const size = m.fake.mods.find((x) =>
      x.name === "belt-balancer"
    )!.releases.find((x) => x.version === "3.0.0")!.bytes.length;
    m.fake.pace({ chunk: Math.ceil(size / 40), everyMs: 50 });
    let r = await install(m, "belt-balancer", "3.0.0");
    assert.equal(r.status, 200, r.text);
    assert.ok(visible(m.modsDir).includes("belt-balancer_3.0.0.zip"));
    // A body that stops: 504 naming the stall, no zip, no temp file.
    const small = m.fake.mods.find((x) =>
      x.name === "fp-library"
    )!.releases.find((x) => x.version === "1.0.0")!.bytes.length;
    m.fake.pace({ chunk: 64, everyMs: 20, stallAfter: Math.floor(small / 2) });
    r = await install(m, "fp-library", "1.0.0");
    assert.equal(r.status, 504, r.text);
    assert.match(r.body, /^The download of fp-library 1\.0\.0 stalled: no data for 1 s after \d+ bytes\.$/);
    assert.deepEqual(
      readdirSync(m.modsDir).filter((f) => f.startsWith(".") || f.startsWith("fp-library")),
      [],
    );
  }, { version: "2.0" }),
);

Deno.test(
  "the portal being down is a clear 503, not a crash",
  withModPanel(async (m) => {
    await m.fake.close();
    const r = await m.c.get("/api/mods/portal/info/belt-balancer");
    assert.equal(r.status, 503);
    assert.match(r.body, /The mod portal cannot be reached/);
  }),
);

Deno.test(
  "updates: a portal that fails answers at once with its error, without looking up every mod",
  withModPanel(async (m) => {
    const names = Array.from({ length: 12 }, (_, i) => `local-${i}`);
    for (const name of names) {
      writeFileSync(
        join(m.modsDir, `${name}_1.0.0.zip`),
        await buildModZip({ name, version: "1.0.0", factorio_version: "2.0" }),
      );
    }
    m.fake.down(503);
    const r = await m.c.get("/api/mods/updates");
    assert.equal(r.status, 503, r.text);
    assert.match(r.body, /The mod portal answered with an error \(HTTP 503\)/);
    // Only the lookups under way when the first one failed (4 at a time), not one per mod, each with its retries.
    const looked = new Set(m.fake.hits("/api/mods/").map((h) => h.path.split("/")[3]));
    assert.ok(looked.size >= 1 && looked.size <= 4, `looked up: ${[...looked].join(", ")}`);
    m.fake.down(null);
    const again = await m.c.get("/api/mods/updates");
    assert.equal(again.status, 200, again.text);
  }, { version: "2.0" }),
);

Deno.test(
  "install/multiple with the portal down: every mod is listed as failed, after asking about one",
  withModPanel(async (m) => {
    await m.portalLogin();
    m.fake.down(503);
    const save = ["fp-library", "fp-signals", "fp-trains", "belt-balancer", "x-one", "x-two"].map((
      name,
      i,
    ) => ({ name, version: "1.0.0", crc: i, built_in: false }));
    const r = await m.c.post("/api/mods/portal/install/multiple?detail=1", save);
    assert.equal(r.status, 424, r.text);
    const result: InstallMultipleResult = r.body;
    assert.deepEqual(result.failed.map((f) => f.name), save.map((s) => s.name));
    for (const f of result.failed) {
      assert.match(f.reason, /The mod portal answered with an error \(HTTP 503\)/);
    }
    assert.deepEqual(
      new Set(m.fake.hits("/api/mods/").map((h) => h.path.split("/")[3])),
      new Set(["fp-library"]),
    );
    assert.deepEqual(result.installed, []);
  }, { version: "2.0" }),
);

Deno.test(
  "a failed download never says the token, to the client or in the log",
  withModPanel(async (m) => {
    await m.portalLogin();
    assert.equal(
      (await m.c.get("/api/mods/portal/info/belt-balancer")).status,
      200,
      "details are cached now",
    );
    await m.fake.close();
    const r = await install(m, "belt-balancer", "3.0.0");
    assert.equal(r.status, 503);
    assert.match(r.body, /The mod portal cannot be reached/);
    assert.ok(!r.text.includes(user.token) && !r.text.includes("token="), r.text);
    assert.ok(!readFileSync(join(m.panel.dataDir, "panel.log"), "utf8").includes(user.token));
  }),
);

Deno.test("error texts lose the query of any URL in them", () => {
  const e = new TypeError(
    "error sending request for url (https://mods.factorio.com/download/x/1?username=u&token=secret): connection refused",
  );
  assert.equal(
    reason(e),
    "error sending request for url (https://mods.factorio.com/download/x/1): connection refused",
  );
  assert.equal(
    reason(new Error("http://a/b?token=t#frag and http://c/d?x=1")),
    "http://a/b#frag and http://c/d",
  );
});

Deno.test(
  "mod packs: install from the portal and a save's mods into a pack, as the old API has them",
  withModPanel(async (m) => {
    await m.portalLogin();
    assert.equal((await m.c.post("/api/mods/packs/create", { name: "pack" })).status, 200);
    const packDir = join(m.panel.dataDir, "mod-packs", "pack");
    // Pack changes touch only the pack: they go on while the game runs.
    m.state.value = "running";
    let r = await m.c.post("/api/mods/packs/pack/portal/install", {
      modName: "fp-signals",
      downloadUrl: release(m, "fp-signals", "1.0.0"),
      fileName: "fp-signals_1.0.0.zip",
    });
    assert.equal(r.status, 200, r.text);
    const installed: InstallResult = r.body;
    assert.deepEqual(names(installed.mods).filter((n) => n.startsWith("fp-")), ["fp-signals"]);
    assert.deepEqual(visible(packDir), ["fp-signals_1.0.0.zip", "mod-list.json"]);
    assert.equal((await m.c.post("/api/mods/packs/pack/portal/install", {})).status, 400);

    const save = [
      { name: "base", version: "2.0.72.0", crc: 1, built_in: true },
      { name: "fp-library", version: "1.0.0.0", crc: 4, built_in: false },
      { name: "fp-unknown", version: "1.0.0.0", crc: 6, built_in: false },
    ];
    r = await m.c.post("/api/mods/packs/pack/portal/install/multiple", save);
    assert.deepEqual([r.status, r.body], [
      424,
      "Some mods could not be installed: fp-unknown 1.0.0.0 (not on the mod portal).",
    ]);
    r = await m.c.post("/api/mods/packs/pack/portal/install/multiple?detail=1", save.slice(0, 2));
    assert.equal(r.status, 200, r.text);
    const result: InstallMultipleResult = r.body;
    assert.deepEqual(result.present, ["fp-library"]);
    assert.ok(visible(packDir).includes("fp-library_1.0.0.zip"));
    assert.equal((await m.c.post("/api/mods/packs/pack/portal/install/multiple", {})).status, 400);
    assert.deepEqual(
      visible(m.modsDir).filter((f) => f.startsWith("fp-")),
      [],
      "the installed mods are untouched",
    );
  }, { version: "2.0" }),
);
