// Mod facts both sides need: the dependency grammar of info.json and the rule that says whether an
// installed mod fits the game.

import { factorioVersionFits, parseVersion, satisfies, type VersionOp } from "./versions.ts";
import type { Mod } from "./api.ts";

/**
 * What a dependency's prefix means:
 * required (none), incompatible "!", optional "?", hidden optional "(?)", required without load-order
 * effect "~", and (2.1) optional but recommended, enabled by default "+".
 */
export type DependencyKind =
  | "required"
  | "incompatible"
  | "optional"
  | "hidden-optional"
  | "no-load-order"
  | "recommended";

export interface Dependency {
  kind: DependencyKind;
  name: string;
  /** Present together with `version`: "base >= 1.1" gives op ">=" and version "1.1". */
  op?: VersionOp;
  version?: string;
}

const PREFIXES: [string, DependencyKind][] = [
  ["(?)", "hidden-optional"],
  ["!", "incompatible"],
  ["?", "optional"],
  ["~", "no-load-order"],
  ["+", "recommended"],
];

/**
 * Parses one info.json dependency such as "? bobplates >= 1.1.0", "!bad-mod" or "base >=1.1" (spaces
 * around the prefix and the operator are optional; mod names may contain spaces). Null when it is not a
 * dependency at all.
 */
export function parseDependency(text: unknown): Dependency | null {
  if (typeof text !== "string") return null;
  let rest = text.trim();
  let kind: DependencyKind = "required";
  for (const [prefix, k] of PREFIXES) {
    if (rest.startsWith(prefix)) {
      kind = k;
      rest = rest.slice(prefix.length).trim();
      break;
    }
  }
  const m = /^(.*?)\s*(<=|>=|<|>|=)\s*(\d+(?:\.\d+){1,3})$/.exec(rest);
  const name = (m ? m[1] : rest).trim();
  if (name === "" || /[<>=]/.test(name)) return null;
  if (!m) return { kind, name };
  return { kind, name, op: m[2] as VersionOp, version: m[3] };
}

/** Dependencies that must be present for the mod to load: no prefix, or "~". */
export function isRequired(dep: Dependency): boolean {
  return dep.kind === "required" || dep.kind === "no-load-order";
}

/** Whether `version` meets the dependency's version condition (true when it has none). */
export function meetsDependency(dep: Dependency, version: string): boolean {
  if (!dep.op || !dep.version) return parseVersion(version) !== null;
  return satisfies(version, dep.op, dep.version);
}

/**
 * The Compatibility column: the mod's factorio_version fits the game, and a "base OP X" dependency, if
 * there is one, holds for the game's base version.
 */
export function modFitsGame(
  gameVersion: string | null,
  factorioVersion: string,
  dependencies: readonly string[],
): boolean {
  if (!gameVersion || !factorioVersionFits(gameVersion, factorioVersion)) return false;
  for (const text of dependencies) {
    const dep = parseDependency(text);
    if (dep?.name === "base" && isRequired(dep)) return meetsDependency(dep, gameVersion);
  }
  return true;
}

/** The file name the game expects for a mod zip. */
export function modFileName(name: string, version: string): string {
  return `${name}_${version}.zip`;
}

/** "a", "a and b", "a, b and c". */
function listed(names: string[]): string {
  return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * Who can join a server with these mods (a folder's list, built-ins included), said before it starts.
 * Every built-in mod but base (elevated-rails, quality, space-age; recycler in 2.1, which the game
 * switches on by itself when mod-list.json does not name it) is Space Age content: a player without
 * the expansion cannot join while one is on. Other mods a joining player's game offers to download.
 */
export function whoCanJoin(mods: readonly Mod[]): { vanilla: boolean; text: string } {
  const on = mods.filter((m) => m.enabled && m.error === null);
  const expansion = on.filter((m) => m.built_in && m.name !== "base" && m.name !== "core").map((m) => m.name)
    .sort();
  if (expansion.length > 0) {
    const one = expansion.length === 1;
    return {
      vanilla: false,
      text:
        `Vanilla clients cannot join: ${listed(expansion)} ${one ? "is" : "are"} on, which ${
          one ? "needs" : "need"
        } Space Age. ` +
        `Switch ${one ? "it" : "them"} off to let players without Space Age join.`,
    };
  }
  const others = on.filter((m) => !m.built_in).length;
  const hasExpansion = mods.some((m) => m.built_in && m.name !== "base" && m.name !== "core");
  const without = hasExpansion ? "Players without Space Age can join" : "Players can join";
  if (others > 0) {
    return {
      vanilla: false,
      text: `${without} with the same ${
        others === 1 ? "mod" : `${others} mods`
      }, which their game offers to download when they join.`,
    };
  }
  return {
    vanilla: true,
    text: `Vanilla clients can join: ${
      hasExpansion ? "no Space Age content and no other mods are" : "no mods are"
    } on.`,
  };
}
