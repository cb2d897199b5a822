import assert from "node:assert/strict";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { type TestPanel, withPanel } from "../../tests/support/harness.ts";
import {
  type GamePanel,
  installGame,
  startGame,
  startPanelWithGame,
  waitForStatus,
  withGamePanel,
} from "../../tests/support/game.ts";
import { saveZip, zlib } from "../../tests/support/savefile.ts";
import { until } from "../../tests/support/until.ts";
import { MSG, PANEL_MSG } from "../../shared/messages.ts";
import { LOAD_LATEST, type SaveHeader } from "../../shared/api.ts";
import { parseRange } from "./saves.ts";
import { contentDisposition } from "./download.ts";

const FIXTURES = resolve(import.meta.dirname!, "../../tests/fixtures/saves");

function savesDir(p: TestPanel): string {
  const dir = join(p.config.factorioDir, "saves");
  mkdirSync(dir, { recursive: true });
  return dir;
}

function putFixture(p: TestPanel, fixture: string, as = fixture): string {
  const target = join(savesDir(p), as);
  copyFileSync(join(FIXTURES, fixture), target);
  return target;
}

function form(name: string, bytes: Uint8Array, field = "savefile"): FormData {
  const f = new FormData();
  f.append(field, new File([bytes as BlobPart], name, { type: "application/zip" }));
  return f;
}

const fixture = (name: string) => new Uint8Array(readFileSync(join(FIXTURES, name)));

// Names that try to leave the saves directory or hide something, as they arrive in a URL path.
const HOSTILE_PATH_NAMES = [
  "..%2Foutside.zip",
  "..%2F..%2Foutside.zip",
  "%2E%2E%2Foutside.zip",
  "..%5Coutside.zip",
  "sub%2Fa.zip",
  "%2Fetc%2Fpasswd",
  "..",
  "%2E%2E",
  "a%00b.zip",
  "a%0Ab.zip",
  "a%1Bb.zip",
  ".hidden.zip",
  "a..b.zip",
];

Deno.test(
  "the route table has the saves API with the right guards",
  withPanel(async (p) => {
    const byKey = new Map(p.routes.map((r) => [`${r.method} ${r.path}`, r]));
    const create = byKey.get("GET /api/saves/create/:name");
    assert.ok(
      create?.changesState && create.requiresStopped,
      "create is a state change refused while running",
    );
    assert.ok(byKey.get("GET /api/saves/rm/:name")?.changesState, "rm is a state change");
    assert.ok(!byKey.get("GET /api/saves/rm/:name")?.requiresStopped);
    for (
      const key of [
        "GET /api/saves/list",
        "POST /api/saves/upload",
        "GET /api/saves/dl/:name",
        "POST /api/saves/mods",
      ]
    ) {
      assert.ok(byKey.has(key), key);
      assert.ok(!byKey.get(key)!.requiresStopped, `${key} works while the game runs`);
    }
  }),
);

Deno.test(
  "the list: top-level save zips by name, then Load Latest; nothing else",
  withPanel(async (p) => {
    const c = await p.login();
    assert.deepEqual((await c.get("/api/saves/list")).body, [{
      name: LOAD_LATEST,
      last_mod: "0001-01-01T00:00:00Z",
      size: 0,
      factorio_version: null,
    }]);
    const dir = savesDir(p);
    writeFileSync(join(dir, "world10.zip"), "x".repeat(10));
    writeFileSync(join(dir, "world2.zip"), "x".repeat(2));
    writeFileSync(join(dir, "Ünïcödé 世界.zip"), "u");
    writeFileSync(join(dir, "_autosave1.zip"), "a");
    utimesSync(join(dir, "world2.zip"), new Date("2024-02-03T04:05:06Z"), new Date("2024-02-03T04:05:06Z"));
    // Not saves: hidden and temp files (ours and the game's), other files, directories, nested saves.
    writeFileSync(join(dir, ".world.zip.abc123.tmp"), "t");
    writeFileSync(join(dir, ".hidden.zip"), "h");
    writeFileSync(join(dir, "world.tmp.zip"), "t");
    writeFileSync(join(dir, "notes.txt"), "n");
    mkdirSync(join(dir, "folder.zip"));
    mkdirSync(join(dir, "sub"));
    writeFileSync(join(dir, "sub", "nested.zip"), "n");
    const r = await c.get("/api/saves/list");
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.map((s: { name: string }) => s.name), [
      "_autosave1.zip",
      "Ünïcödé 世界.zip",
      "world2.zip",
      "world10.zip",
      LOAD_LATEST,
    ]);
    const world2 = r.body.find((s: { name: string }) => s.name === "world2.zip");
    // Not a readable save: listed, with no version.
    assert.deepEqual(world2, {
      name: "world2.zip",
      last_mod: "2024-02-03T04:05:06.000Z",
      size: 2,
      factorio_version: null,
    });
  }),
);

Deno.test(
  "the list: each save's game version from its header, read again when the file changes",
  withPanel(async (p) => {
    const c = await p.login();
    putFixture(p, "test_0_17.zip");
    putFixture(p, "test_1_1.zip", "world.zip");
    // A 2.0 save whose header is only in the zlib-compressed level.dat0 (no level-init.dat).
    const raw = new Uint8Array(readFileSync(join(FIXTURES, "2_0_spaceage.level-init.dat")));
    writeFileSync(
      join(savesDir(p), "space.zip"),
      await saveZip({ "level.dat0": await zlib(raw) }, { folder: "space" }),
    );
    const versions = async () =>
      Object.fromEntries(
        (await c.get("/api/saves/list")).body.map((
          s: { name: string; factorio_version: string | null },
        ) => [s.name, s.factorio_version]),
      );
    assert.deepEqual(await versions(), {
      "space.zip": "2.0.7.0",
      "test_0_17.zip": "0.17.1.1",
      "world.zip": "1.1.6.4",
      [LOAD_LATEST]: null,
    });
    // The game saves over world.zip with another version: the list says so.
    putFixture(p, "test_0_17.zip", "world.zip");
    await until("the new version listed", async () => (await versions())["world.zip"] === "0.17.1.1");
  }),
);

Deno.test(
  "download: the exact bytes, a safe Content-Disposition, ranges, and 404s",
  withPanel(async (p) => {
    const c = await p.login();
    putFixture(p, "test_1_1.zip", "Welt ü 世界 100%.zip");
    putFixture(p, "test_0_17.zip");
    const full = await fetch(`${p.url}/api/saves/dl/test_0_17.zip`, { headers: { Cookie: c.cookie! } });
    assert.equal(full.status, 200);
    assert.equal(full.headers.get("content-type"), "application/zip");
    assert.equal(full.headers.get("content-length"), String(fixture("test_0_17.zip").length));
    assert.equal(
      full.headers.get("content-disposition"),
      `attachment; filename="test_0_17.zip"; filename*=UTF-8''test_0_17.zip`,
    );
    assert.deepEqual(new Uint8Array(await full.arrayBuffer()), fixture("test_0_17.zip"));

    // ".zip" may be left off, and names travel percent-encoded.
    const unicode = await fetch(`${p.url}/api/saves/dl/${encodeURIComponent("Welt ü 世界 100%")}`, {
      headers: { Cookie: c.cookie! },
    });
    assert.equal(unicode.status, 200);
    assert.equal(
      unicode.headers.get("content-disposition"),
      `attachment; filename="Welt _ __ 100_.zip"; filename*=UTF-8''Welt%20%C3%BC%20%E4%B8%96%E7%95%8C%20100%25.zip`,
    );
    assert.deepEqual(new Uint8Array(await unicode.arrayBuffer()), fixture("test_1_1.zip"));

    const part = await fetch(`${p.url}/api/saves/dl/test_0_17.zip`, {
      headers: { Cookie: c.cookie!, Range: "bytes=100-199" },
    });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get("content-range"), `bytes 100-199/${fixture("test_0_17.zip").length}`);
    assert.deepEqual(new Uint8Array(await part.arrayBuffer()), fixture("test_0_17.zip").subarray(100, 200));
    const beyond = await fetch(`${p.url}/api/saves/dl/test_0_17.zip`, {
      headers: { Cookie: c.cookie!, Range: "bytes=99999999-" },
    });
    assert.equal(beyond.status, 416);
    await beyond.body?.cancel();

    const missing = await c.get("/api/saves/dl/nope.zip");
    assert.equal(missing.status, 404);
    assert.equal(missing.body, "Error finding save nope.zip: save not found");
    assert.equal((await c.get(`/api/saves/dl/${encodeURIComponent(LOAD_LATEST)}`)).status, 404);
    mkdirSync(join(savesDir(p), "folder.zip"));
    assert.equal((await c.get("/api/saves/dl/folder.zip")).status, 404);
  }),
);

Deno.test(
  "every route that takes a name refuses traversal and hidden names, and touches nothing",
  withPanel(async (p) => {
    const c = await p.login();
    savesDir(p);
    const outside = join(p.config.factorioDir, "outside.zip");
    writeFileSync(outside, "precious");
    putFixture(p, "test_1_1.zip", ".hidden.zip");
    for (const name of HOSTILE_PATH_NAMES) {
      for (const path of [`/api/saves/dl/${name}`, `/api/saves/rm/${name}`, `/api/saves/create/${name}`]) {
        const r = await c.get(path);
        assert.ok(r.status === 400 || r.status === 404, `${path}: ${r.status} ${r.text}`);
        assert.ok(!r.text.includes("precious"), path);
      }
      const decoded = decodeURIComponent(name);
      const mods = await c.post("/api/saves/mods", { saveFile: decoded });
      assert.ok(mods.status === 400 || mods.status === 404, `mods ${decoded}: ${mods.status}`);
    }
    assert.equal(readFileSync(outside, "utf8"), "precious");
    assert.ok(existsSync(join(savesDir(p), ".hidden.zip")));
    assert.deepEqual(readdirSync(p.config.factorioDir).sort(), ["outside.zip", "saves"]);
    // The checks say what is wrong.
    assert.equal((await c.get("/api/saves/rm/..%2Foutside.zip")).body, "Save name must not contain / or \\");
    assert.equal(
      (await c.get("/api/saves/dl/a%00b")).body,
      "Save name must be one line without control or text-direction characters",
    );
  }),
);

Deno.test(
  "delete: removes the save, 404 for unknown names, refused for the save the game has loaded",
  withGamePanel(async (p) => {
    const c = await p.login();
    const a = putFixture(p, "test_1_1.zip", "a.zip");
    const r = await c.get("/api/saves/rm/a");
    assert.equal(r.status, 200);
    assert.equal(r.body, "Removed save: a.zip");
    assert.ok(!existsSync(a));
    assert.equal((await c.get("/api/saves/rm/a.zip")).status, 404);
    assert.equal((await c.get(`/api/saves/rm/${encodeURIComponent(LOAD_LATEST)}`)).status, 404);

    await startGame(c, { savefile: "world.zip" });
    const world = join(savesDir(p), "world.zip");
    const refused = await c.get("/api/saves/rm/world");
    assert.equal(refused.status, 409);
    assert.equal(
      refused.body,
      "Cannot delete world.zip: the running server has it loaded. Stop the server first.",
    );
    assert.ok(existsSync(world));
    // Other saves can still go while the game runs.
    putFixture(p, "test_1_1.zip", "c.zip");
    assert.equal((await c.get("/api/saves/rm/c.zip")).status, 200);
    // Cross-site and signed-out requests never delete (the guards of every state-changing route).
    assert.equal((await c.get("/api/saves/rm/world.zip", { crossSite: true })).status, 403);
    assert.equal((await p.client().get("/api/saves/rm/world.zip")).status, 401);
    // Once the game is stopped, its save may go.
    assert.equal((await c.get("/api/server/stop")).status, 200);
    await waitForStatus(p.ctx, "stopped");
    assert.equal((await c.get("/api/saves/rm/world.zip")).status, 200);
  }),
);

Deno.test(
  "with Load Latest, the save the game picked is the one protected",
  withGamePanel(async (p) => {
    const c = await p.login();
    putFixture(p, "test_1_1.zip", "older.zip");
    utimesSync(join(savesDir(p), "older.zip"), new Date("2020-01-01"), new Date("2020-01-01"));
    await startGame(c, { savefile: LOAD_LATEST });
    assert.equal((await c.get("/api/server/status")).body.savefile, "world.zip");
    assert.equal((await c.get("/api/saves/rm/world.zip")).status, 409);
    assert.equal((await c.get("/api/saves/rm/older.zip")).status, 200);
  }),
);

Deno.test(
  "upload: a real save streams into place; the client's path is dropped",
  withPanel(async (p) => {
    const c = await p.login();
    const bytes = fixture("test_0_17.zip");
    const r = await c.request("POST", "/api/saves/upload", {
      body: form("../../elsewhere/My World.zip", bytes),
    });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body, "Uploading files successful");
    assert.deepEqual(readdirSync(savesDir(p)), ["My World.zip"]);
    assert.deepEqual(new Uint8Array(readFileSync(join(savesDir(p), "My World.zip"))), bytes);
    // No extension: .zip is added. Upper-case .ZIP is a zip too.
    assert.equal((await c.request("POST", "/api/saves/upload", { body: form("plain", bytes) })).status, 200);
    assert.equal(
      (await c.request("POST", "/api/saves/upload", { body: form("LOUD.ZIP", bytes) })).status,
      200,
    );
    assert.deepEqual(readdirSync(savesDir(p)).sort(), ["LOUD.ZIP", "My World.zip", "plain.zip"]);
    // The header of what arrived can be read back.
    assert.equal(
      (await c.post("/api/saves/mods", { saveFile: "My World.zip" })).body.factorio_version,
      "0.17.1.1",
    );
  }),
);

Deno.test(
  "upload: anything but a save is refused with a reason and leaves nothing behind",
  withPanel(async (p) => {
    const c = await p.login();
    const dir = savesDir(p);
    writeFileSync(join(dir, "keep.zip"), "old content");
    const noLevel = await saveZip({ "readme.txt": new TextEncoder().encode("hello") });
    const cases: [FormData | string, number, string | RegExp][] = [
      [
        form("keep.zip", new TextEncoder().encode("this is not a zip")),
        415,
        "keep.zip is not a Factorio save: it is not a zip file.",
      ],
      [
        form("keep.zip", noLevel),
        415,
        "keep.zip is not a Factorio save: the zip holds no level-init.dat or level.dat.",
      ],
      [
        form("world.txt", fixture("test_1_1.zip")),
        415,
        "Fileformat .txt is not allowed: a Factorio save is a .zip file",
      ],
      [form("world.sav.gz", fixture("test_1_1.zip")), 415, /Fileformat .gz/],
      [form("..zip", fixture("test_1_1.zip")), 400, /must not/],
      [
        form("hidden.tmp.zip", fixture("test_1_1.zip")),
        400,
        "Savefile must not end in .tmp.zip: the game uses such names for saves it is still writing",
      ],
      [
        form("tab\there.zip", fixture("test_1_1.zip")),
        400,
        "Savefile must be one line without control or text-direction characters",
      ],
      [form("keep.zip", fixture("test_1_1.zip"), "otherfield"), 400, MSG.savefileRequired],
      [form("keep.zip", new Uint8Array(0)), 400, MSG.savefileRequired],
      ["not multipart", 415, /multipart\/form-data/],
    ];
    for (const [body, status, message] of cases) {
      const init = typeof body === "string" ? { body, headers: { "Content-Type": "text/plain" } } : { body };
      const r = await c.request("POST", "/api/saves/upload", init);
      assert.equal(r.status, status, `${r.text}`);
      if (typeof message === "string") assert.equal(r.body, message);
      else assert.match(r.body, message);
      assert.deepEqual(readdirSync(dir), ["keep.zip"], String(message));
      assert.equal(readFileSync(join(dir, "keep.zip"), "utf8"), "old content");
    }
  }),
);

Deno.test(
  "upload: over the size limit is refused with 413 and nothing is kept",
  withPanel(async (p) => {
    const c = await p.login();
    const big = await saveZip({
      "level-init.dat": fixture("2_0_spaceage.level-init.dat").subarray(0, 1000),
      "level.dat0": new Uint8Array(1024 * 1024 + 10),
    }, { method: "store" });
    const r = await c.request("POST", "/api/saves/upload", { body: form("big.zip", big) });
    assert.equal(r.status, 413);
    assert.equal(r.body, "The file is too large (limit 1 MiB)");
    assert.deepEqual(readdirSync(savesDir(p)), []);
  }, { args: ["--max-upload-mb", "1"] }),
);

Deno.test(
  "upload: over an existing name replaces it only when complete; never the save the game has loaded",
  withGamePanel(async (p) => {
    const c = await p.login();
    const target = putFixture(p, "test_0_17.zip", "other.zip");
    assert.equal(
      (await c.request("POST", "/api/saves/upload", { body: form("other.zip", fixture("test_1_1.zip")) }))
        .status,
      200,
    );
    assert.deepEqual(new Uint8Array(readFileSync(target)), fixture("test_1_1.zip"));

    await startGame(c, { savefile: "world" });
    const world = join(savesDir(p), "world.zip");
    const before = new Uint8Array(readFileSync(world));
    const r = await c.request("POST", "/api/saves/upload", {
      body: form("world.zip", fixture("test_0_17.zip")),
    });
    assert.equal(r.status, 409);
    assert.equal(
      r.body,
      "Cannot replace world.zip: the running server has it loaded. Stop the server first.",
    );
    assert.deepEqual(new Uint8Array(readFileSync(world)), before);
    assert.deepEqual(readdirSync(savesDir(p)).sort(), ["other.zip", "world.zip"]);
    // Other names upload fine while the game runs.
    assert.equal(
      (await c.request("POST", "/api/saves/upload", { body: form("third.zip", fixture("test_0_17.zip")) }))
        .status,
      200,
    );
  }),
);

Deno.test(
  "upload: a connection cut mid-body leaves no file and keeps the old one",
  withPanel(async (p) => {
    const c = await p.login();
    const dir = savesDir(p);
    const target = putFixture(p, "test_0_17.zip", "cut.zip");
    const { host, port } = new URL(p.url);
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
    try {
      const boundary = "cutcutcut";
      const head =
        `--${boundary}\r\nContent-Disposition: form-data; name="savefile"; filename="cut.zip"\r\n` +
        "Content-Type: application/zip\r\n\r\n";
      const request =
        `POST /api/saves/upload HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${p.origin}\r\nCookie: ${c.cookie}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${
          head.length + 2_000_000
        }\r\n\r\n${head}`;
      await conn.write(new TextEncoder().encode(request));
      await conn.write(fixture("test_1_1.zip"));
      // Wait (by watching the directory, not the clock) until the panel is writing its temp file, then vanish.
      for (let i = 0; i < 1500 && readdirSync(dir).length < 2; i++) {
        await new Promise((r) => setTimeout(r, 20));
      }
      assert.equal(readdirSync(dir).length, 2, "the temp file existed while the upload ran");
    } finally {
      conn.close();
    }
    for (let i = 0; i < 1500 && readdirSync(dir).length > 1; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(readdirSync(dir), ["cut.zip"]);
    assert.deepEqual(new Uint8Array(readFileSync(target)), fixture("test_0_17.zip"));
    // The panel is fine afterwards.
    assert.equal((await c.get("/api/saves/list")).status, 200);
  }),
);

Deno.test(
  "mods of a save: the header, for every format; refusals say why",
  withPanel(async (p) => {
    const c = await p.login();
    putFixture(p, "test_1_1.zip");
    const r = await c.post("/api/saves/mods", { saveFile: "test_1_1.zip" });
    assert.equal(r.status, 200);
    assert.equal(r.body.factorio_version, "1.1.6.4");
    assert.deepEqual(r.body.mods, [
      { name: "base", version: "1.1.6.0", crc: 2570609689, built_in: true },
      { name: "belt-balancer", version: "3.0.0.0", crc: 1386746210, built_in: false },
      { name: "train-station-overview", version: "3.0.0.0", crc: 442638023, built_in: false },
    ]);
    // The old server matched keys case-insensitively, and the name may come without .zip.
    assert.equal((await c.post("/api/saves/mods", { savefile: "test_1_1" })).status, 200);

    const raw = fixture("2_0_spaceage.level-init.dat");
    writeFileSync(join(savesDir(p), "space.zip"), await saveZip({ "level-init.dat": raw }));
    const space = await c.post("/api/saves/mods", { saveFile: "space.zip" });
    assert.deepEqual(space.body.mods.map((m: { name: string; built_in: boolean }) => [m.name, m.built_in]), [
      ["base", true],
      ["elevated-rails", true],
      ["quality", true],
      ["space-age", true],
    ]);
    assert.equal(space.body.loaded_from_build, 79385);

    writeFileSync(join(savesDir(p), "broken.zip"), "not a zip at all");
    const broken = await c.post("/api/saves/mods", { saveFile: "broken.zip" });
    assert.equal(broken.status, 400);
    assert.equal(
      broken.body,
      "broken.zip is not a readable save: it is not a zip file (not a zip file: too short).",
    );
    assert.equal((await c.post("/api/saves/mods", { saveFile: "absent.zip" })).status, 404);
    assert.equal((await c.post("/api/saves/mods", {})).body, "Save name is required");
    assert.equal((await c.post("/api/saves/mods", { saveFile: 7 })).status, 400);
    assert.equal(
      (await c.request("POST", "/api/saves/mods", {
        body: "saveFile=x",
        headers: { "Content-Type": "text/plain" },
      })).status,
      415,
    );
  }),
);

Deno.test(
  "mods of a save may be read while the game runs: it changes nothing",
  withGamePanel(async (p) => {
    const c = await p.login();
    await startGame(c, { savefile: "world.zip" });
    const r = await c.post("/api/saves/mods", { saveFile: "world.zip" });
    assert.equal(r.status, 200);
    assert.equal(r.body.factorio_version, "2.0.72.0");
  }),
);

Deno.test(
  "create: checked names, and nothing is written for a refused one",
  withPanel(async (p) => {
    const c = await p.login();
    putFixture(p, "test_1_1.zip", "taken.zip");
    const cases: [string, number, string][] = [
      [
        "_autosave1",
        400,
        "Savefile Name must not start with _autosave: the game keeps those names for its autosaves",
      ],
      [
        "_AutoSave9.zip",
        400,
        "Savefile Name must not start with _autosave: the game keeps those names for its autosaves",
      ],
      [
        encodeURIComponent(LOAD_LATEST),
        400,
        'Savefile Name must not be "Load Latest": that entry of the list means "start from the newest save"',
      ],
      ["%20%20", 400, MSG.savefileNameRequired],
      ["taken", 409, "A save named taken.zip already exists. Choose another name."],
    ];
    for (const [name, status, message] of cases) {
      const r = await c.get(`/api/saves/create/${name}`);
      assert.equal(r.status, status, name);
      assert.equal(r.body, message);
    }
    assert.deepEqual(readdirSync(savesDir(p)), ["taken.zip"]);
  }),
);

for (const version of ["2.0", "1.1"] as const) {
  Deno.test(
    `create on a ${version} game: the game's --create writes the save, with its version and mods`,
    withGamePanel(async (p) => {
      const c = await p.login();
      const r = await c.get("/api/saves/create/My New World");
      assert.equal(r.status, 200, r.text);
      assert.match(r.body, /^Save My New World\.zip created successfully\. Command output: \n/);
      assert.match(r.body, /Saving map as .*My New World\.zip/);
      const list = (await c.get("/api/saves/list")).body.map((s: { name: string }) => s.name);
      assert.deepEqual(list, ["My New World.zip", LOAD_LATEST]);
      const header = (await c.post("/api/saves/mods", { saveFile: "My New World.zip" })).body as SaveHeader;
      const full = version === "2.0" ? "2.0.72" : "1.1.110";
      assert.equal(header.factorio_version, `${full}.0`);
      assert.equal(header.loaded_from_build, version === "2.0" ? 83505 : 62580);
      const builtIn = version === "2.0" ? ["base", "elevated-rails", "quality", "space-age"] : ["base"];
      assert.deepEqual(
        header.mods.map((m) => [m.name, m.version, m.built_in]),
        builtIn.map((m) => [m, `${full}.0`, true]),
      );
      // The new save can be started.
      await startGame(c, { savefile: "My New World.zip" });
    }, { version, saves: [] }),
  );
}

/**
 * A panel whose game binary is the simulator slowed down to `startupMs` of loading. The knob is set in
 * a wrapper script, never in this process's environment: test files run in parallel in one process, and
 * every game they start would inherit it.
 */
function withSlowGame(
  startupMs: number,
  fn: (p: GamePanel) => Promise<void>,
  opts: { saves?: string[]; args?: string[] } = {},
) {
  return async () => {
    const factorio = await installGame("2.0", opts.saves ?? ["world.zip"]);
    const slow = join(factorio.dir, "bin", "x64", "factorio-slow");
    writeFileSync(slow, `#!/bin/sh\nFAKE_FACTORIO_STARTUP_MS=${startupMs} exec "${factorio.binary}" "$@"\n`);
    chmodSync(slow, 0o755);
    const p = await startPanelWithGame({ factorio, args: ["--factorio-binary", slow, ...(opts.args ?? [])] });
    try {
      await fn(p);
    } finally {
      await p.close();
      rmSync(factorio.dir, { recursive: true, force: true });
    }
  };
}

Deno.test(
  "create is refused with 423 while the game is starting or running",
  withSlowGame(3000, async (p) => {
    const c = await p.login();
    const starting = startGame(c, { savefile: "world.zip" });
    await waitForStatus(p.ctx, "starting");
    const early = await c.get("/api/saves/create/early");
    assert.equal(early.status, 423);
    assert.equal(early.body, PANEL_MSG.serverNotStopped);
    await starting;
    const r = await c.get("/api/saves/create/new-world");
    assert.equal(r.status, 423);
    assert.equal(r.body, PANEL_MSG.serverNotStopped);
    assert.deepEqual(readdirSync(savesDir(p)), ["world.zip"]);
  }),
);

Deno.test(
  "create: a failing game is reported with its output, and leaves no file",
  withGamePanel(async (p) => {
    const c = await p.login();
    writeFileSync(join(p.factorio.dir, "mods", "mod-list.json"), "{ this is not json");
    const r = await c.get("/api/saves/create/broken");
    assert.equal(r.status, 500);
    assert.match(r.body, /^Error creating save broken\.zip: exit status 1\nGame output:\n/);
    assert.match(r.body, /Failed to load mods: Failed to parse .*mod-list\.json/);
    assert.deepEqual(readdirSync(savesDir(p)), []);
  }, { saves: [] }),
);

Deno.test(
  "create: a game that hangs is stopped after the timeout; one create at a time",
  withSlowGame(600_000, async (p) => {
    const c = await p.login();
    const slow = c.get("/api/saves/create/slow");
    for (let i = 0; i < 3000 && !p.ctx.saves.creatingNow; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(p.ctx.saves.creatingNow, "slow.zip");
    const second = await c.get("/api/saves/create/second");
    assert.equal(second.status, 409);
    assert.equal(second.body, "The save slow.zip is being created; wait until it is done.");
    // Nor may the server start while the create runs: both would work on the same saves and mods.
    const start = await c.post("/api/server/start", {
      bindip: "127.0.0.1",
      port: 34197,
      savefile: "Load Latest",
    });
    assert.deepEqual([start.status, start.body], [
      409,
      "The server cannot start while creating a save is under way; try again when it is done.",
    ]);
    assert.equal(p.ctx.game.status().status, "stopped");
    const r = await slow;
    assert.equal(r.status, 500);
    assert.match(
      r.body,
      /^Error creating save slow\.zip: the game did not finish within 5 s and was stopped\nGame output:\n/,
    );
    assert.match(r.body, /Loading mod base/);
    assert.deepEqual(readdirSync(savesDir(p)), []);
    assert.equal(p.ctx.saves.creatingNow, null);
  }, { saves: [], args: ["--save-create-timeout", "5"] }),
);

/** A stand-in executable for the one failure the simulator cannot show (exit 0 without a save). */
function fakeBinary(p: TestPanel, script: string): void {
  const bin = join(p.config.factorioDir, "bin", "x64");
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, "factorio"), `#!/bin/sh\n${script}\n`);
  chmodSync(join(bin, "factorio"), 0o755);
}

Deno.test(
  "create: a game that exits 0 without writing the file is an error",
  withPanel(async (p) => {
    const c = await p.login();
    savesDir(p);
    fakeBinary(p, 'echo "Goodbye"; exit 0');
    const nothing = await c.get("/api/saves/create/ghost");
    assert.equal(nothing.status, 500);
    assert.equal(
      nothing.body,
      "Error creating save ghost.zip: the game exited without writing the file\nGame output:\nGoodbye",
    );
  }),
);

Deno.test(
  "create: no game installed is a clear error",
  withPanel(async (p) => {
    const c = await p.login();
    const r = await c.get("/api/saves/create/world");
    assert.equal(r.status, 500);
    assert.match(r.body, /^Error creating save world\.zip: cannot run the game \(.*bin\/x64\/factorio\)/);
  }),
);

Deno.test("download helpers: Content-Disposition and ranges", () => {
  assert.equal(contentDisposition("a.zip"), `attachment; filename="a.zip"; filename*=UTF-8''a.zip`);
  assert.equal(
    contentDisposition("100%'s (x).zip"),
    `attachment; filename="100_'s (x).zip"; filename*=UTF-8''100%25%27s%20%28x%29.zip`,
  );
  assert.deepEqual(parseRange("bytes=0-9", 100), { start: 0, end: 9 });
  assert.deepEqual(parseRange("bytes=90-", 100), { start: 90, end: 99 });
  assert.deepEqual(parseRange("bytes=-10", 100), { start: 90, end: 99 });
  assert.deepEqual(parseRange("bytes=50-500", 100), { start: 50, end: 99 });
  assert.equal(parseRange("bytes=100-", 100), "unsatisfiable");
  assert.equal(parseRange("bytes=0-1,5-6", 100), null);
  assert.equal(parseRange("bytes=9-2", 100), null);
  assert.equal(parseRange(undefined, 100), null);
});
