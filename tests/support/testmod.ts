// A mod with settings of every kind, for the mod-settings tests (the reader's unit tests, the API tests).
// Written for these tests in the shapes mods use: literal tables, a computed name and default that must be
// skipped, a require()d second file, comments that look like code, and English locale names.

import { buildModZip } from "../fake-portal/catalog.ts";

export const SETTINGS_LUA = `-- settings of a test mod
local prefix = "tm-"
data:extend({
  {
    type = "bool-setting",
    name = "tm-enabled",
    setting_type = "startup",
    default_value = true,
    order = "a",
  },
  { type = "int-setting", name = "tm-count", setting_type = "runtime-global", default_value = 5, minimum_value = 1, maximum_value = 100 },
  { type = "double-setting", name = "tm-ratio", setting_type = "runtime-global", default_value = -0.5, minimum_value = -1.0, maximum_value = 1e1 },
  { type = "string-setting", name = "tm-mode", setting_type = "runtime-per-user", default_value = "fast", allowed_values = {"fast", "slow", 'odd "quoted"'} },
  { type = "color-setting", name = "tm-colour", setting_type = "runtime-per-user", default_value = {r = 1, g = 0.5, b = 0, a = 1} },
  { type = "bool-setting", name = prefix .. "computed", setting_type = "startup", default_value = false },
  { type = "int-setting", name = "tm-computed-default", setting_type = "startup", default_value = 2 * 3 },
})
require("prototypes.more-settings")
`;

export const MORE_SETTINGS_LUA =
  `--[[ data:extend{ {type = "bool-setting", name = "tm-in-a-comment", setting_type = "startup"} } ]]
data:extend{
  { type = "string-setting", name = [[tm-text]], setting_type = "startup", default_value = "", allow_blank = true };
}
`;

export const LOCALE = `[mod-setting-name]
tm-enabled=Enable the thing
tm-count=How many

[mod-setting-description]
tm-count=Between 1 and 100
`;

export function testModZip(version = "1.0.0"): Promise<Uint8Array> {
  return buildModZip(
    {
      name: "test-settings-mod",
      version,
      title: "Test settings",
      author: "tests",
      factorio_version: "2.0",
      dependencies: ["base"],
    },
    {
      "settings.lua": SETTINGS_LUA,
      "prototypes/more-settings.lua": MORE_SETTINGS_LUA,
      "locale/en/settings.cfg": LOCALE,
    },
  );
}
