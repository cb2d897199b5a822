// How the Saves page shows dates, sizes, versions and upload progress (spec section 9 for the table).

import { formatVersion, parseVersion } from "../../../../shared/versions.ts";

/** "YYYY-MM-DD HH:MM:SS" in UTC; empty for a date that does not parse. */
export function formatSaveDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  return d.toISOString().replace("T", " ").slice(0, 19);
}

/** Bytes in MB (2^20 bytes, as the old panel counted) with 3 decimals. */
export function formatSaveSize(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(3)} MB`;
}

/** The game version as the game shows it ("2.0.28" for the header's "2.0.28.0"); empty when unknown. */
export function formatSaveVersion(version: string | null | undefined): string {
  const v = version ? parseVersion(version) : null;
  return v ? formatVersion(v, 3) : "";
}

/** An upload's speed, in the page's MB: "2.4 MB/s". */
export function formatRate(bytesPerSecond: number): string {
  return `${(bytesPerSecond / 1024 / 1024).toFixed(1)} MB/s`;
}

/** Time left: "40 s", "3 min 05 s", "1 h 02 min". */
export function formatTimeLeft(seconds: number): string {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min`;
}
