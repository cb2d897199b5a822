// Display formats the spec fixes, shared by every page.

/** 'YYYY-MM-DD HH:MM:SS' in UTC (spec section 9); "" for a missing or invalid time. */
export function formatUtc(time: string | number | Date | null | undefined): string {
  if (time === null || time === undefined || time === "") return "";
  const d = new Date(time);
  if (Number.isNaN(d.getTime())) return "";
  return d.toISOString().slice(0, 19).replace("T", " ");
}

/** A span of time as people read it: "3 d 4 h", "2 h 5 min", "7 min", "less than a minute". */
export function formatUptime(ms: number): string {
  const min = Math.floor(ms / 60_000);
  if (min < 1) return "less than a minute";
  const d = Math.floor(min / 1440), h = Math.floor((min % 1440) / 60), m = min % 60;
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  return `${m} min`;
}
