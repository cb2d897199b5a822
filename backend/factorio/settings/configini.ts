// The game's config.ini, read-only: sections become groups of key -> value as written. Lines starting
// with ";" or "#" are comments (Factorio's own file is mostly commented-out defaults). Values are shown
// exactly as written, "__PATH__executable__/../../data" included: the game, not the panel, resolves them.

import { existsSync, readFileSync, statSync } from "node:fs";
import { Conflict, NotFound } from "../../lib/errors.ts";
import type { ConfigGroups } from "../../../shared/settings.ts";

const MAX_BYTES = 1024 * 1024;

/**
 * Parses INI text the way Factorio writes it. Keys before the first section belong to no group and are
 * left out (the game ignores them too). A value runs to the end of its line: a ";" after "=" is part of
 * the value, not a comment, so a password like "a;b" survives. Later duplicates win; a section that
 * appears twice is one group. Groups and keys keep the order of their first appearance.
 */
export function parseConfigIni(text: string): ConfigGroups {
  // Maps, so that a section or key named "__proto__" is a plain entry and not the object's prototype.
  const groups = new Map<string, Map<string, string>>();
  let current: Map<string, string> | null = null;
  for (const raw of text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith(";") || line.startsWith("#")) continue;
    if (line.startsWith("[")) {
      const close = line.indexOf("]");
      if (close === -1) continue;
      const name = line.slice(1, close).trim();
      current = groups.get(name) ?? new Map();
      groups.set(name, current);
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0 || current === null) continue;
    const key = line.slice(0, eq).trim();
    if (key === "") continue;
    current.set(key, line.slice(eq + 1).trim());
  }
  return Object.fromEntries([...groups].map(([name, keys]) => [name, Object.fromEntries(keys)]));
}

export function readConfigIni(path: string): ConfigGroups {
  if (!existsSync(path)) {
    throw new NotFound(`There is no config.ini at ${path} yet. The game writes it the first time it starts.`);
  }
  if (statSync(path).size > MAX_BYTES) {
    throw new Conflict(`${path} is too large to be the game's config.ini.`);
  }
  return parseConfigIni(new TextDecoder().decode(readFileSync(path)));
}
