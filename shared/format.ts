// Display formats the spec fixes, shared by every page.

/** 'YYYY-MM-DD HH:MM:SS' in UTC (spec section 9); "" for a missing or invalid time. */
export function formatUtc(time: string | number | Date | null | undefined): string {
  if (time === null || time === undefined || time === "") return "";
  const d = new Date(time);
  if (Number.isNaN(d.getTime())) return "";
  return d.toISOString().slice(0, 19).replace("T", " ");
}
