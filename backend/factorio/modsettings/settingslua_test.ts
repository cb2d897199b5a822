import assert from "node:assert/strict";
import fc from "fast-check";
import { LuaReadError, readLocaleCfg, readSettingsLua } from "./settingslua.ts";
import { LOCALE, MORE_SETTINGS_LUA, SETTINGS_LUA } from "../../../tests/support/testmod.ts";

Deno.test("settings.lua: literal definitions are read, computed ones skipped, requires reported", () => {
  const { definitions, requires } = readSettingsLua("tm", SETTINGS_LUA);
  assert.deepEqual(requires, ["prototypes.more-settings"]);
  assert.deepEqual(definitions, [
    { mod: "tm", name: "tm-enabled", setting_type: "startup", type: "bool", default: true, order: "a" },
    {
      mod: "tm",
      name: "tm-count",
      setting_type: "runtime-global",
      type: "int",
      default: 5,
      minimum: 1,
      maximum: 100,
    },
    {
      mod: "tm",
      name: "tm-ratio",
      setting_type: "runtime-global",
      type: "double",
      default: -0.5,
      minimum: -1,
      maximum: 10,
    },
    {
      mod: "tm",
      name: "tm-mode",
      setting_type: "runtime-per-user",
      type: "string",
      default: "fast",
      allowed_values: ["fast", "slow", 'odd "quoted"'],
    },
    {
      mod: "tm",
      name: "tm-colour",
      setting_type: "runtime-per-user",
      type: "color",
      default: { r: 1, g: 0.5, b: 0, a: 1 },
    },
    // the computed default is left out, the setting stays
    { mod: "tm", name: "tm-computed-default", setting_type: "startup", type: "int" },
  ]);
});

Deno.test("settings.lua: long strings, ; separators and code in comments", () => {
  const { definitions } = readSettingsLua("tm", MORE_SETTINGS_LUA);
  assert.deepEqual(definitions, [
    { mod: "tm", name: "tm-text", setting_type: "startup", type: "string", allow_blank: true, default: "" },
  ]);
});

Deno.test("settings.lua: an unfinished string is a LuaReadError; any text ends in a result or a LuaReadError", () => {
  assert.throws(() => readSettingsLua("tm", 'data:extend{{name = "x}}'), LuaReadError);
  fc.assert(
    fc.property(fc.string({ maxLength: 300 }), fc.nat(SETTINGS_LUA.length), (noise, at) => {
      for (const src of [noise, SETTINGS_LUA.slice(0, at) + noise + SETTINGS_LUA.slice(at)]) {
        try {
          readSettingsLua("tm", src);
        } catch (e) {
          if (!(e instanceof LuaReadError)) throw e;
        }
      }
    }),
    { numRuns: 500 },
  );
});

Deno.test("locale: names and descriptions of settings", () => {
  const loc = readLocaleCfg(LOCALE);
  assert.deepEqual([...loc.names], [["tm-enabled", "Enable the thing"], ["tm-count", "How many"]]);
  assert.deepEqual([...loc.descriptions], [["tm-count", "Between 1 and 100"]]);
});
