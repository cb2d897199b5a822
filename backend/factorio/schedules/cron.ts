// Cron expressions: parsed and stepped by croner (a well-kept library, time zones and DST included), and
// described in plain words for the schedule form ("every day at 04:00").

import { Cron } from "croner";
import { Invalid } from "../../lib/errors.ts";
import { listInWords } from "../../../shared/backups.ts";

/** A 5-field expression checked by croner; Invalid with croner's reason otherwise. */
export function parseCron(expr: unknown, timeZone: string): Cron {
  if (typeof expr !== "string" || expr.trim().split(/\s+/).length !== 5) {
    throw new Invalid(
      "The schedule needs a cron expression with 5 fields: minute hour day-of-month month day-of-week.",
    );
  }
  try {
    return new Cron(expr.trim(), { timezone: timeZone, paused: true, mode: "5-part" });
  } catch (e) {
    throw new Invalid(
      `The cron expression "${expr}" is not valid: ${(e as Error).message.replace(/^CronPattern: /, "")}.`,
    );
  }
}

/** The next `count` run times strictly after `from`. */
export function nextRuns(expr: string, timeZone: string, from: number, count: number): Date[] {
  return parseCron(expr, timeZone).nextRuns(count, new Date(from));
}

/** Every run time in (from, to], at most `limit` of them (for missed runs). */
export function runsBetween(expr: string, timeZone: string, from: number, to: number, limit = 1000): Date[] {
  const cron = parseCron(expr, timeZone);
  const out: Date[] = [];
  let at: Date | null = new Date(from);
  while (out.length < limit && (at = cron.nextRun(at)) && at.getTime() <= to) out.push(at);
  return out;
}

/** A time as RFC 3339 with the offset of `timeZone` ("2026-03-29T04:00:00+02:00"). */
export function zonedIso(d: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    }).formatToParts(d).map((p) => [p.type, p.value]),
  );
  const local = Date.UTC(
    +parts.year,
    +parts.month - 1,
    +parts.day,
    +parts.hour,
    +parts.minute,
    +parts.second,
  );
  const offsetMin = Math.round((local - Math.floor(d.getTime() / 1000) * 1000) / 60_000);
  const sign = offsetMin < 0 ? "-" : "+";
  const abs = Math.abs(offsetMin);
  const off = `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}${off}`;
}

// ---- Plain-language description ----

const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const MONTHS = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
];
const DAY_ALIASES: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const MONTH_ALIASES: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

const two = (n: number) => String(n).padStart(2, "0");

/** A number, a name alias, or null for anything more complex. */
function single(field: string, aliases: Record<string, number> = {}): number | null {
  if (/^\d+$/.test(field)) return Number(field);
  const a = aliases[field.toLowerCase()];
  return a ?? null;
}

/** Words for a day-of-week or month field ("Monday to Friday", "Monday and Thursday"). */
function named(field: string, names: string[], aliases: Record<string, number>, base: number): string | null {
  const parts: string[] = [];
  for (const piece of field.split(",")) {
    const range = piece.split("-");
    if (range.length === 2) {
      const a = single(range[0], aliases);
      const b = single(range[1], aliases);
      if (a === null || b === null) return null;
      parts.push(`${names[(a - base) % names.length]} to ${names[(b - base) % names.length]}`);
      continue;
    }
    const v = single(piece, aliases);
    if (v === null) return null;
    parts.push(names[(v - base) % names.length]);
  }
  return listInWords(parts);
}

/** "every day at 04:00", "every 15 minutes", "on Monday to Friday at 06:30", or the expression itself. */
export function describeCron(expr: string): string {
  const f = expr.trim().split(/\s+/);
  if (f.length !== 5) return expr;
  const [min, hour, dom, mon, dow] = f;
  let when: string | null = null;
  const minStep = /^\*\/(\d+)$/.exec(min);
  const hourStep = /^\*\/(\d+)$/.exec(hour);
  if (min === "*" && hour === "*") when = "every minute";
  else if (minStep && hour === "*") when = `every ${minStep[1]} minutes`;
  else if (/^\d+$/.test(min) && hour === "*") {
    when = min === "0" ? "every hour" : `every hour at minute ${Number(min)}`;
  } else if (/^\d+$/.test(min) && hourStep) when = `every ${hourStep[1]} hours at minute ${Number(min)}`;
  else if (/^\d+$/.test(min) && /^\d+(,\d+)*$/.test(hour)) {
    when = `at ${listInWords(hour.split(",").map((h) => `${two(Number(h))}:${two(Number(min))}`))}`;
  } else return expr;

  const dayParts: string[] = [];
  if (dom !== "*") {
    if (!/^\d+(,\d+)*$/.test(dom)) return expr;
    dayParts.push(`on day ${listInWords(dom.split(","))} of the month`);
  }
  if (dow !== "*") {
    const d = named(dow, DAYS.concat(DAYS[0]), DAY_ALIASES, 0);
    if (!d) return expr;
    dayParts.push(`on ${d}`);
  }
  let months = "";
  if (mon !== "*") {
    const m = named(mon, MONTHS, MONTH_ALIASES, 1);
    if (!m) return expr;
    months = ` in ${m}`;
  }
  const daily = when.startsWith("at ");
  const days = dayParts.length > 0 ? dayParts.join(" or ") : daily ? "every day" : "";
  return [daily ? `${days} ${when}` : `${when}${days ? ` ${days}` : ""}`, months].join("").trim();
}
