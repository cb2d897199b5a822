import assert from "node:assert/strict";
import { expiredByRules, expiredBySpace } from "./retention.ts";
import type { Backup, BackupSettings } from "../../../shared/backups.ts";

const DAY = 86_400_000;
const NOW = Date.parse("2026-06-30T12:00:00Z");

function b(
  id: string,
  daysAgo: number,
  reason: Backup["reason"] = "schedule",
  locked = false,
  size = 100,
): Backup {
  return {
    id,
    created: new Date(NOW - daysAgo * DAY).toISOString(),
    reason,
    save: "world.zip",
    size,
    sha256: "",
    locked,
    game_version: "2.0.72",
    includes: [],
    mods: [],
  };
}

const settings = (
  keep_last: number | null,
  keep_days: number | null,
  extra: Partial<BackupSettings> = {},
): BackupSettings => ({
  include: [],
  retention: { keep_last, keep_days },
  by_reason: {},
  min_free_mb: 0,
  ...extra,
});

Deno.test("retention: keep the last N per reason, locked ones kept and not counted", () => {
  const list = [
    b("s1", 1),
    b("s2", 2),
    b("s3", 3, "schedule", true),
    b("s4", 4),
    b("s5", 5),
    b("m1", 9, "manual"),
  ];
  assert.deepEqual(expiredByRules(list, settings(2, null), NOW).sort(), ["s4", "s5"]);
});

Deno.test("retention: keep D days; with both rules either one keeps a backup", () => {
  const list = [b("a", 0.5), b("b", 2.5), b("c", 6), b("d", 8, "schedule", true), b("e", 10)];
  assert.deepEqual(expiredByRules(list, settings(null, 3), NOW).sort(), ["c", "e"]);
  // The newest 3 unlocked are a, b, c: c stays by count even though it is older than 3 days.
  assert.deepEqual(expiredByRules(list, settings(3, 3), NOW).sort(), ["e"]);
  assert.deepEqual(expiredByRules(list, settings(null, null), NOW), []);
});

Deno.test("retention: a rule for one reason overrides the default for it only", () => {
  const list = [b("s1", 1), b("s2", 2), b("m1", 1, "manual"), b("m2", 2, "manual")];
  const s = settings(1, null, { by_reason: { manual: { keep_last: null, keep_days: null } } });
  assert.deepEqual(expiredByRules(list, s, NOW), ["s2"]);
});

Deno.test("retention: the space floor removes the oldest unlocked first, never the newest", () => {
  const list = [
    b("new", 0, "manual", false, 50),
    b("old", 9, "schedule", false, 30),
    b("locked", 10, "manual", true, 500),
    b("mid", 5, "schedule", false, 30),
  ];
  assert.deepEqual(expiredBySpace(list, 1000, 1040), { ids: ["old", "mid"], short: false });
  assert.deepEqual(expiredBySpace(list, 1000, 1020), { ids: ["old"], short: false });
  assert.deepEqual(expiredBySpace(list, 1000, 5000), { ids: ["old", "mid"], short: true });
  assert.deepEqual(expiredBySpace(list, 1000, 900), { ids: [], short: false });
  assert.deepEqual(expiredBySpace(list, 1000, 0), { ids: [], short: false });
});
