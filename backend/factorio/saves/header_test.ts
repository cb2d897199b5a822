import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import fc from "fast-check";
import { parseSaveHeader, readSaveHeader, SaveFileError } from "./header.ts";
import { ZipReader } from "../../lib/zip.ts";
import { encodeSaveHeader, saveZip, zlib } from "../../../tests/support/savefile.ts";
import type { SaveHeader, SaveMod } from "../../../shared/api.ts";
import { builtInMods, installFakeFactorio, VERSIONS } from "../../../tests/fake-factorio/install.ts";

const FIXTURES = resolve(import.meta.dirname!, "../../../tests/fixtures/saves");

function tempDir(): { dir: string; [Symbol.dispose](): void } {
  const dir = mkdtempSync(join(tmpdir(), "savefile-"));
  return { dir, [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

async function readBytes(bytes: Uint8Array): Promise<SaveHeader> {
  using t = tempDir();
  const path = join(t.dir, "save.zip");
  writeFileSync(path, bytes);
  return await readSaveHeader(path);
}

/** The bytes of one entry of a fixture zip. */
async function entryOf(zipPath: string, name: string): Promise<Uint8Array> {
  const zip = await ZipReader.open(zipPath);
  try {
    return await zip.read(zip.find(name)!, 64 * 1024 * 1024);
  } finally {
    await zip.close();
  }
}

const mod = (name: string, version: string, crc: number | null = null, built_in = false): SaveMod => ({
  name,
  version,
  crc,
  built_in,
});

/** What fsm-behaviour.md 7.4 asserts for every campaign test save. */
const CAMPAIGN = {
  campaign: "transport-belt-madness",
  name: "level-01",
  base_mod: "base",
  finished: false,
  player_won: false,
  next_level: "",
  can_continue: false,
  finished_but_continuing: false,
  allowed_commands: 1,
};

const EXPECTED_0_17: SaveHeader = {
  ...CAMPAIGN,
  factorio_version: "0.17.1.1",
  difficulty: 0,
  saving_replay: true,
  allow_non_admin_debug_options: true,
  loaded_from: "0.17.1.0",
  loaded_from_build: 43001,
  mods: [mod("Warehousing", "0.2.0.0", 0x89a31ff0), mod("base", "0.17.1.0", 0x30dd635b, true)],
};

const EXPECTED_1_1: SaveHeader = {
  ...CAMPAIGN,
  factorio_version: "1.1.6.4",
  difficulty: 1,
  saving_replay: false,
  allow_non_admin_debug_options: true,
  loaded_from: "1.1.6.0",
  loaded_from_build: 57355,
  mods: [
    mod("base", "1.1.6.0", 2570609689, true),
    mod("belt-balancer", "3.0.0.0", 1386746210),
    mod("train-station-overview", "3.0.0.0", 442638023),
  ],
};

// Read from the bytes of tests/fixtures/saves/2_0_spaceage.level-init.dat with the 2.0 layout of
// fsm-behaviour.md 7.3: version 2.0.7.0, the 0.17+ byte, "" / "freeplay" / "base", difficulty 1, four
// flags 0, non-admin debug 1, loaded_from 2.0.7 with the 4-byte build 0x00013619, allowed_commands 1,
// the four new bytes 00 00 A0 00, then four mods with their CRCs.
const EXPECTED_2_0: SaveHeader = {
  factorio_version: "2.0.7.0",
  campaign: "",
  name: "freeplay",
  base_mod: "base",
  difficulty: 1,
  finished: false,
  player_won: false,
  next_level: "",
  can_continue: false,
  finished_but_continuing: false,
  saving_replay: false,
  allow_non_admin_debug_options: true,
  loaded_from: "2.0.7.0",
  loaded_from_build: 79385,
  allowed_commands: 1,
  mods: [
    mod("base", "2.0.7.0", 0x9e2cba17, true),
    mod("elevated-rails", "2.0.7.0", 0x70c18394, true),
    mod("quality", "2.0.7.0", 0xdd767498, true),
    mod("space-age", "2.0.7.0", 0xd08ee5e1, true),
  ],
};

Deno.test("a 0.17 save: the values of the old panel's Test0_17", async () => {
  assert.deepEqual(await readSaveHeader(join(FIXTURES, "test_0_17.zip")), EXPECTED_0_17);
});

Deno.test("a 1.1 save: the values of the old panel's Test1_1, with the CRCs", async () => {
  assert.deepEqual(await readSaveHeader(join(FIXTURES, "test_1_1.zip")), EXPECTED_1_1);
});

Deno.test("level.dat alone gives the same header as level-init.dat (saves before 1.1.14)", async () => {
  for (
    const [zip, folder, expected] of [
      ["test_0_17.zip", "test_0_17_1", EXPECTED_0_17],
      ["test_1_1.zip", "test_1_1", EXPECTED_1_1],
    ] as const
  ) {
    const levelDat = await entryOf(join(FIXTURES, zip), `${folder}/level.dat`);
    const onlyLevelDat = await saveZip({
      "level.dat": levelDat,
      "info.json": new TextEncoder().encode("{}"),
    });
    assert.deepEqual(await readBytes(onlyLevelDat), expected, zip);
  }
});

Deno.test("the zlib-compressed level.dat0 chunk of the split format (1.1.14 and later) is read too", async () => {
  const levelDat = await entryOf(join(FIXTURES, "test_1_1.zip"), "test_1_1/level.dat");
  // The game cuts the map into 1 MiB pieces, each a zlib stream stored uncompressed in the zip.
  const chunks = [levelDat.subarray(0, 1 << 20), levelDat.subarray(1 << 20)];
  const split = await saveZip({
    "level.dat0": await zlib(chunks[0]),
    "level.dat1": await zlib(chunks[1]),
    "level.datmetadata": new Uint8Array(8),
  }, { method: "store" });
  assert.deepEqual(await readBytes(split), EXPECTED_1_1);
});

Deno.test("a 2.0 Space Age level-init.dat: 4-byte build, the extra bytes, built-in DLC mods", async () => {
  const raw = new Uint8Array(readFileSync(join(FIXTURES, "2_0_spaceage.level-init.dat")));
  const zip = await saveZip({ "level-init.dat": raw, "level.dat0": await zlib(raw) }, { folder: "spaceage" });
  const header = await readBytes(zip);
  assert.deepEqual(header, EXPECTED_2_0);
  assert.deepEqual(parseSaveHeader(raw), EXPECTED_2_0);
  assert.ok(
    header.mods.every((m) => m.built_in),
    "base, elevated-rails, quality and space-age ship with the game",
  );
});

Deno.test("an entry at the zip's top level and level-init.dat preferred over level.dat", async () => {
  const newer = encodeSaveHeader({ ...EXPECTED_1_1, name: "from-level-init" });
  const older = encodeSaveHeader({ ...EXPECTED_1_1, name: "from-level-dat" });
  const zip = await saveZip({ "level.dat": older, "level-init.dat": newer }, { folder: "" });
  assert.equal((await readBytes(zip)).name, "from-level-init");
});

Deno.test("the synthetic writer puts the mod count where the real saves have it (fsm-behaviour 7.4)", () => {
  const offsets: [string, number][] = [["0.13.20.0", 73], ["0.14.23.0", 70], ["0.15.40.0", 70], [
    "0.16.51.0",
    59,
  ], [
    "0.17.1.1",
    60,
  ], ["1.1.6.4", 60]];
  for (const [version, offset] of offsets) {
    const bytes = encodeSaveHeader({
      ...EXPECTED_1_1,
      factorio_version: version,
      loaded_from: version,
      mods: [],
    });
    const countBytes = atLeast(version, "0.16.0.0") ? 1 : 4; // an optimised count from 0.16, a u32 before
    assert.equal(bytes.length - countBytes, offset, version);
  }
  // And the real 2.0 header is byte for byte what it writes.
  const written = encodeSaveHeader(EXPECTED_2_0);
  const real = new Uint8Array(readFileSync(join(FIXTURES, "2_0_spaceage.level-init.dat")));
  assert.deepEqual(written, real.subarray(0, written.length));
});

Deno.test("only the start of the level file is inflated: damage further in does not matter", async () => {
  const noise = new Uint8Array(8 * 1024 * 1024);
  crypto.getRandomValues(noise.subarray(0, 65536));
  for (let i = 65536; i < noise.length; i += 65536) noise.copyWithin(i, 0, 65536);
  const zip = await saveZip({ "level.dat": encodeSaveHeader(EXPECTED_1_1, { trailer: noise }) });
  // Overwrite the compressed data well past the header with garbage: inflating it all would fail.
  const damaged = zip.slice();
  const start = 30 + "world/level.dat".length + 4 * 1024 * 1024;
  damaged.fill(0xff, start, start + 4096);
  using t = tempDir();
  const path = join(t.dir, "damaged.zip");
  writeFileSync(path, damaged);
  const z = await ZipReader.open(path);
  await assert.rejects(z.read(z.entries[0], 64 * 1024 * 1024), /corrupt/, "the damage is real");
  await z.close();
  assert.deepEqual(await readSaveHeader(path), EXPECTED_1_1);
});

Deno.test("a header larger than the first read (thousands of mods) is read in full", async () => {
  const mods = Array.from(
    { length: 3000 },
    (_, i) => mod(`some-rather-long-mod-name-number-${i}`, "1.2.3.0", i),
  );
  const big: SaveHeader = { ...EXPECTED_1_1, mods };
  const zip = await saveZip({ "level-init.dat": encodeSaveHeader(big, { trailer: new Uint8Array(100) }) });
  assert.deepEqual(await readBytes(zip), big);
});

// ---- Property-based: every format, and hostile input ----

/** Versions from 0.13 to 2.x, including each boundary where the layout changes. */
const versionArb = fc.oneof(
  fc.constantFrom(
    "0.13.0.0",
    "0.13.0.41",
    "0.13.0.42",
    "0.13.0.86",
    "0.13.0.87",
    "0.13.20.0",
    "0.14.13.0",
    "0.14.14.0",
    "0.15.0.91",
    "0.15.0.92",
    "0.15.40.0",
    "0.16.0.0",
    "0.16.51.0",
    "0.17.0.0",
    "0.18.2.2",
    "1.0.0.0",
    "1.1.14.0",
    "1.1.110.0",
    "1.99.0.0",
    "2.0.0.0",
    "2.0.72.0",
    "2.1.12.0",
  ),
  fc.tuple(fc.constantFrom(0, 1, 2), fc.nat(300), fc.nat(300), fc.nat(0xffff)).filter(([a, b]) =>
    a > 0 || b >= 13
  )
    .map((v) => v.join(".")),
);

function atLeast(version: string, min: string): boolean {
  const a = version.split(".").map(Number);
  const b = min.split(".").map(Number);
  for (let i = 0; i < 4; i++) if (a[i] !== b[i]) return a[i] > b[i];
  return true;
}

const text = fc.string({ unit: "grapheme", maxLength: 300 });
const v3 = fc.tuple(fc.nat(0xffff), fc.nat(0xffff), fc.nat(0xffff)).map((v) => `${v.join(".")}.0`);

const headerArb = versionArb.chain((version) =>
  fc.record({
    factorio_version: fc.constant(version),
    campaign: text,
    name: text,
    base_mod: text,
    difficulty: fc.nat(255),
    finished: fc.boolean(),
    player_won: fc.boolean(),
    next_level: text,
    can_continue: fc.boolean(),
    finished_but_continuing: fc.boolean(),
    saving_replay: fc.boolean(),
    allow_non_admin_debug_options: fc.boolean(),
    loaded_from: v3,
    loaded_from_build: atLeast(version, "2.0.0.0") ? fc.nat(0xffffffff) : fc.nat(0xffff),
    allowed_commands: fc.nat(255),
    mods: fc.array(
      fc.record({
        name: fc.oneof(text, fc.constantFrom("base", "space-age", "quality", "elevated-rails", "recycler")),
        version: v3,
        crc: fc.nat(0xffffffff),
        built_in: fc.constant(false),
      }),
      { maxLength: 40 },
    ),
  })
);

/** What the reader gives for a header of an older format: fields the format lacks take their defaults. */
function asRead(h: SaveHeader): SaveHeader {
  const v = h.factorio_version;
  const builtIn = new Set(["base", "core", "space-age", "quality", "elevated-rails", "recycler"]);
  return {
    ...h,
    allow_non_admin_debug_options: atLeast(v, "0.16.0.0") && h.allow_non_admin_debug_options,
    allowed_commands: atLeast(v, "0.13.0.87") ? h.allowed_commands : h.allowed_commands === 0 ? 2 : 1,
    mods: h.mods.map((m) => ({
      ...m,
      crc: atLeast(v, "0.15.0.92") ? m.crc : null,
      built_in: builtIn.has(m.name),
    })),
  };
}

Deno.test("property: every header of every version from 0.13 to 2.x reads back as written", () => {
  fc.assert(
    fc.property(headerArb, (h) => {
      assert.deepEqual(
        parseSaveHeader(encodeSaveHeader(h, { trailer: new Uint8Array([9, 9, 9]) })),
        asRead(h),
      );
    }),
    { numRuns: 400 },
  );
});

Deno.test("property: a header cut anywhere is 'cut short', never a crash or a wrong answer", () => {
  fc.assert(
    fc.property(headerArb, fc.nat(), (h, at) => {
      const bytes = encodeSaveHeader(h);
      const cut = bytes.subarray(0, at % bytes.length);
      assert.throws(() => parseSaveHeader(cut), SaveFileError);
    }),
    { numRuns: 300 },
  );
});

/** Either a header or SaveFileError: nothing else may come out. */
function readsOrRefuses(fn: () => unknown) {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof SaveFileError)) throw e;
  }
}

Deno.test("property: random bytes and damaged real headers are read or refused, never crash", () => {
  const real = new Uint8Array(readFileSync(join(FIXTURES, "2_0_spaceage.level-init.dat"))).subarray(0, 4096);
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 2000 }), (b) => readsOrRefuses(() => parseSaveHeader(b))),
    {
      numRuns: 1000,
    },
  );
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(200), fc.nat(255)), { minLength: 1, maxLength: 8 }), (flips) => {
      const b = real.slice();
      for (const [at, value] of flips) b[at] = value;
      readsOrRefuses(() => parseSaveHeader(b));
    }),
    { numRuns: 1000 },
  );
});

Deno.test("property: random files and zips with random level files are refused with a reason", async () => {
  using t = tempDir();
  const path = join(t.dir, "x.zip");
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.uint8Array({ maxLength: 3000 }),
        fc.record({
          name: fc.constantFrom("level-init.dat", "level.dat", "level.dat0"),
          b: fc.uint8Array({ maxLength: 600 }),
        }),
      ),
      async (input) => {
        const bytes = input instanceof Uint8Array ? input : await saveZip({ [input.name]: input.b });
        writeFileSync(path, bytes);
        try {
          await readSaveHeader(path);
        } catch (e) {
          if (!(e instanceof SaveFileError)) throw e;
          assert.ok(e.message.length > 0);
        }
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("empty, truncated and non-save files get a plain reason", async () => {
  const good = readFileSync(join(FIXTURES, "test_1_1.zip"));
  const cases: [Uint8Array, RegExp][] = [
    [new Uint8Array(0), /not a zip file/],
    [new TextEncoder().encode("hello, not a zip"), /not a zip file/],
    [new Uint8Array(good.subarray(0, good.length - 100)), /not a zip file|damaged/],
    [new Uint8Array(good.subarray(0, 4096)), /not a zip file/],
    [await saveZip({ "readme.txt": new Uint8Array(10) }), /no level-init.dat or level.dat/],
    [await saveZip({ "level-init.dat": new Uint8Array(0) }), /ends inside the header/],
    [
      await saveZip({ "level-init.dat": encodeSaveHeader(EXPECTED_1_1).subarray(0, 40) }),
      /ends inside the header/,
    ],
    [
      await saveZip({
        "level-init.dat": encodeSaveHeader({ ...EXPECTED_1_1, factorio_version: "0.12.35.0" }),
      }),
      /older than 0.13/,
    ],
    [
      await saveZip({ "level.dat0": (await zlib(encodeSaveHeader(EXPECTED_1_1))).subarray(0, 30) }),
      /corrupt|ends inside/,
    ],
  ];
  for (const [bytes, reason] of cases) {
    await assert.rejects(
      readBytes(bytes),
      (e: Error) => e instanceof SaveFileError && reason.test(e.message),
      String(reason),
    );
  }
  // A zip whose central directory points past the end of the file.
  const cut = new Uint8Array(good);
  const view = new DataView(cut.buffer);
  view.setUint32(cut.length - 22 + 16, cut.length + 1000, true);
  await assert.rejects(readBytes(cut), SaveFileError);
});

Deno.test("saves the simulated game's --create writes for 1.1, 2.0 and 2.1 read as that game", async () => {
  for (const version of ["1.1", "2.0", "2.1"] as const) {
    using t = tempDir();
    const game = installFakeFactorio(join(t.dir, "factorio"), version);
    const target = join(game.dir, "saves", "created.zip");
    const run = await new Deno.Command(game.binary, {
      args: ["--create", target],
      stdout: "piped",
      stderr: "piped",
    })
      .output();
    assert.equal(run.code, 0, new TextDecoder().decode(run.stdout) + new TextDecoder().decode(run.stderr));
    const header = await readSaveHeader(target);
    const { version: full, build } = VERSIONS[version];
    assert.equal(header.factorio_version, `${full}.0`, version);
    assert.equal(header.loaded_from, `${full}.0`);
    assert.equal(header.loaded_from_build, build, "a u16 build up to 1.1, a u32 from 2.0");
    assert.equal(header.name, "freeplay");
    assert.deepEqual(
      header.mods.map((m) => [m.name, m.version, m.built_in]),
      builtInMods(version).map((m) => [m, `${full}.0`, true]),
    );
    assert.ok(header.mods.every((m) => typeof m.crc === "number"));
  }
});
