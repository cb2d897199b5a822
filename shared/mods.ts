// Mod facts both sides need: the dependency grammar of info.json and the rule that says whether an
// installed mod fits the game.

import { factorioVersionFits, parseVersion, satisfies, type VersionOp } from "./versions.ts";

/**
 * What a dependency's prefix means:
 * required (none), incompatible "!", optional "?", hidden optional "(?)", required without load-order
 * effect "~", and (2.1) optional but recommended, enabled by default "+".
 */
export type DependencyKind = "required" | "incompatible" | "optional" | "hidden-optional" | "no-load-order" | "recommended";

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
export function modFitsGame(gameVersion: string | null, factorioVersion: string, dependencies: readonly string[]): boolean {
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
