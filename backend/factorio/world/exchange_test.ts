// Map exchange strings: strings the game made (tests/fixtures/exchange-strings/SOURCES.md) decode, and
// encode back to the very same text; settings changed in JSON survive encode and decode; damaged and
// hostile strings end in an ExchangeError with a message, never another exception.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import fc from "fast-check";
import { MOD_FIXTURES } from "../../../tests/support/modpanel.ts";
import {
  crc32,
  decodeExchangeString,
  encodeExchangeString,
  exchangeBytes,
  ExchangeError,
} from "./exchange.ts";

const read = (f: string) => readFileSync(join(MOD_FIXTURES, "exchange-strings", f), "utf8");
const REAL = ["2.0.76.txt", "2.0.43-space-age.txt", "1.1.42.txt", "1.1.61.txt"];
// deno-lint-ignore no-explicit-any
type Obj = Record<string, any>;

for (const f of REAL) {
  Deno.test(`game string ${f}: decodes, and encodes back to the same text`, () => {
    const text = read(f);
    const data = decodeExchangeString(text);
    assert.ok(data.version.startsWith(f.replace(/(-space-age)?\.txt$/, "") + "."), data.version);
    assert.equal(encodeExchangeString(data), text.replace(/\s+/g, ""));
  });
}

Deno.test("game strings: the values inside", () => {
  const v2 = decodeExchangeString(read("2.0.76.txt"));
  const gen = v2.map_gen_settings as Obj;
  assert.equal(gen.seed, 932326217);
  assert.deepEqual(gen.autoplace_controls.water, { frequency: 1, size: 0.75, richness: 1 });
  assert.equal(gen.autoplace_controls["enemy-base"].size, 0);
  assert.equal(gen.no_enemies_mode, false);
  assert.deepEqual(gen.starting_points, [{ x: 0, y: 0 }]);
  assert.equal((v2.map_settings as Obj).pollution.enabled, false);
  assert.deepEqual(Object.keys(v2.map_settings), [
    "pollution",
    "steering",
    "enemy_evolution",
    "enemy_expansion",
    "unit_group",
    "path_finder",
    "max_failed_behavior_count",
    "difficulty_settings",
    "asteroids",
  ]);

  const sa = decodeExchangeString(read("2.0.43-space-age.txt"));
  assert.equal(sa.version, "2.0.43.3");
  for (const c of ["calcite", "tungsten_ore", "gleba_plants", "scrap", "fluorine_vent", "lithium_brine"]) {
    assert.ok(c in (sa.map_gen_settings as Obj).autoplace_controls, c);
  }

  const v11 = decodeExchangeString(read("1.1.61.txt"));
  const g11 = v11.map_gen_settings as Obj;
  assert.equal(g11.water, 6);
  assert.equal(g11.starting_area, 4);
  assert.equal(g11.autoplace_controls.coal.richness, Math.fround(4 / 3));
  assert.equal((v11.map_settings as Obj).difficulty_settings.research_queue_setting, "always");
});

Deno.test("a string of a layout this panel does not know is refused with its version", () => {
  assert.throws(
    () => decodeExchangeString(read("1.0.0.txt")),
    /from Factorio 1\.0\.0; strings of 1\.1 and 2\.x can be read/,
  );
});

Deno.test("2.1 layout: no steering, new enemy expansion keys; encodes and decodes", () => {
  const base = decodeExchangeString(read("2.0.76.txt"));
  const ms = structuredClone(base.map_settings) as Obj;
  delete ms.steering;
  ms.enemy_expansion.min_expansion_distance = 2;
  ms.enemy_expansion.evolution_group_size_factor = 0.5;
  const data = { version: "2.1.12", map_gen_settings: base.map_gen_settings, map_settings: ms };
  const back = decodeExchangeString(encodeExchangeString(data));
  assert.equal(back.version, "2.1.12.0");
  assert.deepEqual(back.map_settings, ms);
  assert.throws(
    () => encodeExchangeString({ ...data, map_settings: base.map_settings }),
    /map_settings\.steering is not a setting of this game version/,
  );
});

Deno.test("property: settings changed in JSON survive encode and decode", () => {
  const base = decodeExchangeString(read("2.0.43-space-age.txt"));
  const f32 = fc.float({ min: 0, max: 6, noNaN: true }).map(Math.fround);
  fc.assert(
    fc.property(
      fc.nat(0xffffffff),
      f32,
      f32,
      fc.boolean(),
      fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
      fc.array(
        fc.record({ x: fc.integer({ min: -1e6, max: 1e6 }), y: fc.integer({ min: -1e6, max: 1e6 }) }).map((
          p,
        ) => ({ x: p.x / 256, y: p.y / 256 })),
        { maxLength: 4 },
      ),
      (seed, freq, size, peaceful, diffusion, points) => {
        const data = structuredClone(base) as Obj;
        data.map_gen_settings.seed = seed;
        data.map_gen_settings.autoplace_controls["iron-ore"] = { frequency: freq, size, richness: 1 };
        data.map_gen_settings.peaceful_mode = peaceful;
        data.map_gen_settings.starting_points = points;
        if (diffusion === undefined) delete data.map_settings.pollution.diffusion_ratio;
        else data.map_settings.pollution.diffusion_ratio = diffusion;
        assert.deepEqual(decodeExchangeString(encodeExchangeString(data as never)), data);
      },
    ),
    { numRuns: 200 },
  );
});

Deno.test("wrong JSON for encode: a message naming the setting", () => {
  const base = decodeExchangeString(read("2.0.76.txt")) as Obj;
  const bad = (mutate: (d: Obj) => void, msg: RegExp) => {
    const d = structuredClone(base);
    mutate(d);
    assert.throws(
      () => encodeExchangeString(d as never),
      (e) => e instanceof ExchangeError && msg.test(e.message),
    );
  };
  bad(
    (d) => (d.map_gen_settings.seed = -1),
    /map_gen_settings\.seed must be a whole number from 0 to 4294967295/,
  );
  bad(
    (d) => (d.map_gen_settings.peaceful_mode = "yes"),
    /map_gen_settings\.peaceful_mode must be true or false/,
  );
  bad((d) => delete d.map_gen_settings.width, /map_gen_settings\.width is missing/);
  bad(
    (d) => (d.map_gen_settings.autoplace_controls.coal.size = "big"),
    /autoplace_controls\.coal\.size must be a number/,
  );
  bad(
    (d) => (d.map_gen_settings.starting_points = [{ x: 0.001, y: 0 }]),
    /starting_points\[0\]\.x must be a number of tiles in steps of 1\/256/,
  );
  bad((d) => (d.version = "banana"), /version must be a game version/);
  bad((d) => (d.version = "0.17.79"), /1\.1 and 2\.x, not 0\.17\.79/);
});

const wrap = (bytes: Uint8Array) => `>>>${Buffer.from(deflateSync(bytes)).toString("base64")}<<<`;
const withCrc = (body: Uint8Array) => {
  const out = new Uint8Array(body.length + 4);
  out.set(body);
  new DataView(out.buffer).setUint32(body.length, crc32(body), true);
  return out;
};

Deno.test("damaged and hostile strings: clear errors", () => {
  const text = read("2.0.76.txt").replace(/\s+/g, "");
  const cases: [string, RegExp][] = [
    ["hello", /starts with ">>>" and ends with "<<<"/],
    [text.slice(0, 200) + "<<<", /does not unpack/],
    [">>>" + "A".repeat(70_000) + "<<<", /far too long/],
    [wrap(new Uint8Array(4 * 1024 * 1024)), /far more than map settings/],
  ];
  const inner = exchangeBytes(text);
  const flipped = inner.slice();
  flipped[100] ^= 1;
  cases.push([wrap(flipped), /checksum does not match/]);
  cases.push([wrap(withCrc(inner.subarray(0, 500))), /end too early/]);
  cases.push([wrap(withCrc(new Uint8Array([...inner.subarray(0, inner.length - 4), 7]))), /1 bytes follow/]);
  for (const [s, msg] of cases) {
    assert.throws(
      () => decodeExchangeString(s),
      (e) => e instanceof ExchangeError && msg.test(e.message),
      s.slice(0, 40),
    );
  }
});

Deno.test("property: any bytes with a good checksum decode exactly or fail with an ExchangeError", () => {
  const inner = exchangeBytes(read("1.1.42.txt"));
  const body = inner.subarray(0, inner.length - 4);
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(body.length - 1), fc.nat(255)), { maxLength: 6 }),
      fc.nat(body.length),
      (changes, cut) => {
        const b = body.slice(0, Math.max(9, cut));
        for (const [at, v] of changes) if (at < b.length) b[at] = v;
        const s = wrap(withCrc(b));
        try {
          const d = decodeExchangeString(s);
          assert.deepEqual(exchangeBytes(encodeExchangeString(d)), withCrc(b));
        } catch (e) {
          if (!(e instanceof ExchangeError)) throw e;
        }
      },
    ),
    { numRuns: 300 },
  );
});
