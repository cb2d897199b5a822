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
