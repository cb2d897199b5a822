// Factorio versions: "major.minor.patch" with an optional fourth "build" part. The old API prints them with
// four parts ("1.1.6.0"), so both forms are parsed and either can be produced.

export type Version = [number, number, number, number];

export function parseVersion(text: string): Version | null {
  const m = /^\s*(\d+)\.(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(text);
  if (!m) return null;
  const parts = [m[1], m[2], m[3] ?? "0", m[4] ?? "0"].map((p) => Number(p));
  if (parts.some((p) => !Number.isSafeInteger(p))) return null;
  return parts as Version;
}

export function compareVersions(a: Version, b: Version): number {
  for (let i = 0; i < 4; i++) {
    if (a[i] !== b[i]) return a[i] < b[i] ? -1 : 1;
  }
  return 0;
}

/** Compares two version strings; unparsable strings sort before every real version. */
export function compareVersionStrings(a: string, b: string): number {
  const va = parseVersion(a);
  const vb = parseVersion(b);
  if (!va || !vb) return va ? 1 : vb ? -1 : 0;
  return compareVersions(va, vb);
}

export function formatVersion(v: Version, parts: 2 | 3 | 4 = 3): string {
  return v.slice(0, parts).join(".");
}

/** A version as the old API printed it ("1.1" -> "1.1.0.0"); text that is not a version stays as it is. */
export function fourPartVersion(text: string): string {
  const v = parseVersion(text);
  return v ? formatVersion(v, 4) : text;
}

// ---- Compatibility with the game ----

/**
 * Whether a mod made for `modFactorioVersion` (info.json factorio_version, "major.minor") loads on a game
 * of version `gameVersion`. The game wants the same major.minor, with one exception it made when 1.0
 * came out: 1.0 also loads mods made for 0.18. (2.1 does not load 2.0 mods: authors re-release them.)
 */
export function factorioVersionFits(gameVersion: string, modFactorioVersion: string): boolean {
  const game = parseVersion(gameVersion);
  const mod = parseVersion(modFactorioVersion);
  if (!game || !mod) return false;
  if (game[0] === mod[0] && game[1] === mod[1]) return true;
  return game[0] === 1 && game[1] === 0 && mod[0] === 0 && mod[1] === 18;
}

export type VersionOp = "<" | "<=" | "=" | ">=" | ">";

/** `version OP wanted`, e.g. satisfies("1.1.6", ">=", "1.1.0"). Unparsable versions satisfy nothing. */
export function satisfies(version: string, op: VersionOp, wanted: string): boolean {
  const a = parseVersion(version);
  const b = parseVersion(wanted);
  if (!a || !b) return false;
  const c = compareVersions(a, b);
  switch (op) {
    case "<":
      return c < 0;
    case "<=":
      return c <= 0;
    case "=":
      return c === 0;
    case ">=":
      return c >= 0;
    case ">":
      return c > 0;
  }
}

/** A release as far as choosing an update is concerned. */
export interface ReleaseLike {
  version: string;
  factorio_version: string;
}

/**
 * The update for an installed mod: the newest release newer than `installed` that fits the game.
 * Null when there is none (or the installed version cannot be read).
 */
export function newestUpdate<R extends ReleaseLike>(
  installed: string,
  releases: readonly R[],
  gameVersion: string,
): R | null {
  const current = parseVersion(installed);
  if (!current) return null;
  let best: R | null = null;
  for (const r of releases) {
    const v = parseVersion(r.version);
    if (!v || compareVersions(v, current) <= 0 || !factorioVersionFits(gameVersion, r.factorio_version)) {
      continue;
    }
    if (!best || compareVersions(v, parseVersion(best.version)!) > 0) best = r;
  }
  return best;
}

/** Releases sorted newest first (the Select Version list). */
export function newestFirst<R extends { version: string }>(releases: readonly R[]): R[] {
  return [...releases].sort((a, b) => compareVersionStrings(b.version, a.version));
}
