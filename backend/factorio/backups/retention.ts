// Which backups retention removes. Pure functions over the list, so the rules are tested without files.
//
// Per reason (manual, schedule, before-update, ...): a backup is kept while it is among the newest
// `keep_last` of its reason or younger than `keep_days`; with both set, either keeps it (retention never
// removes more than either rule alone would). A locked backup is never removed and does not count
// towards `keep_last`. The space floor then removes the oldest unlocked backups, never the newest one.

import type { Backup, BackupSettings, RetentionRule } from "../../../shared/backups.ts";

const DAY_MS = 86_400_000;

function ruleFor(settings: BackupSettings, reason: Backup["reason"]): RetentionRule {
  return settings.by_reason[reason] ?? settings.retention;
}

/** The ids the count and age rules remove. `backups` in any order. */
export function expiredByRules(backups: Backup[], settings: BackupSettings, now: number): string[] {
  const byReason = new Map<string, Backup[]>();
  for (const b of backups) {
    if (b.locked) continue;
    const list = byReason.get(b.reason) ?? [];
    list.push(b);
    byReason.set(b.reason, list);
  }
  const out: string[] = [];
  for (const [reason, list] of byReason) {
    const rule = ruleFor(settings, reason as Backup["reason"]);
    if (rule.keep_last === null && rule.keep_days === null) continue;
    list.sort((a, b) => Date.parse(b.created) - Date.parse(a.created));
    list.forEach((b, i) => {
      const byCount = rule.keep_last !== null && i < rule.keep_last;
      const byAge = rule.keep_days !== null && now - Date.parse(b.created) < rule.keep_days * DAY_MS;
      if (!byCount && !byAge) out.push(b.id);
    });
  }
  return out;
}

/**
 * The oldest unlocked backups to remove, in order, until `freeBytes` reaches the floor; never the newest
 * backup. `short` says whether the floor is still not met after removing all of them.
 */
export function expiredBySpace(
  backups: Backup[],
  freeBytes: number,
  floorBytes: number,
): { ids: string[]; short: boolean } {
  if (floorBytes <= 0 || freeBytes >= floorBytes) return { ids: [], short: false };
  const newest = backups.reduce<Backup | null>(
    (a, b) => (!a || Date.parse(b.created) > Date.parse(a.created) ? b : a),
    null,
  );
  const candidates = backups
    .filter((b) => !b.locked && b !== newest)
    .sort((a, b) => Date.parse(a.created) - Date.parse(b.created));
  const ids: string[] = [];
  let free = freeBytes;
  for (const b of candidates) {
    if (free >= floorBytes) break;
    ids.push(b.id);
    free += b.size;
  }
  return { ids, short: free < floorBytes };
}
