// How the Saves table shows dates and sizes (spec section 9).

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
