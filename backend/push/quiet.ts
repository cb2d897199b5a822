// Quiet hours of a push device: "22:00" to "07:00" in the device's own time zone (an end before the start
// runs over midnight). Checked when an alert is sent, so a device in another zone than the panel is right.

import type { QuietHours } from "../../shared/alerts.ts";

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

function minutes(hhmm: string): number {
  const m = HHMM.exec(hhmm)!;
  return Number(m[1]) * 60 + Number(m[2]);
}

export function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** A valid QuietHours value, or null when `value` is not one. */
export function parseQuietHours(value: unknown): QuietHours | null {
  if (typeof value !== "object" || value === null) return null;
  const { start, end, tz } = value as Record<string, unknown>;
  if (typeof start !== "string" || typeof end !== "string" || typeof tz !== "string") return null;
  if (!HHMM.test(start) || !HHMM.test(end) || start === end || tz.length > 64 || !isTimeZone(tz)) return null;
  return { start, end, tz };
}

/** The minute of the day (0..1439) at `at` in time zone `tz`. */
export function minuteOfDay(at: number, tz: string): number {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone: tz,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  })
    .formatToParts(new Date(at));
  const get = (t: string) => Number(parts.find((p) => p.type === t)?.value ?? 0);
  return get("hour") * 60 + get("minute");
}

export function inQuietHours(q: QuietHours, at: number): boolean {
  const now = minuteOfDay(at, q.tz);
  const start = minutes(q.start);
  const end = minutes(q.end);
  return start < end ? now >= start && now < end : now >= start || now < end;
}
