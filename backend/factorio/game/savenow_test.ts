// The end of a save as real games print it: a whole 2.0.47 server log (autosaves "Saving to NAME
// (blocking).", saves by name "Saving game as PATH"), the "Saving finished" line of a real 1.1 server's
// stdout, and 1.1's "Saving game as" line as issue 47 quotes it from a 1.1 server.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { saveFinishedWatcher } from "./savenow.ts";

const log20 = readFileSync(
  new URL("../../../tests/fixtures/logs/factorio-current-2.0.47.log", import.meta.url),
  "utf8",
)
  .split("\n");
const stdout11 = readFileSync(new URL("../../../tests/fixtures/logs/stdout-1.1.log", import.meta.url), "utf8")
  .split("\n");

/** The lines (their timestamps) at which the watcher says a save of `save` finished. */
function finishes(lines: string[], save: string | null): string[] {
  const watch = saveFinishedWatcher(save);
  return lines.filter((l) => watch(l)).map((l) => l.trim().split(" ")[0]);
}

Deno.test('2.0.47: a save by name ends at the "Saving finished" after its "Saving game as"', () => {
  // The server ran init.zip; it was saved by name four times, between autosaves of other names.
  assert.deepEqual(finishes(log20, "init.zip"), ["2988.247", "5465.813", "5543.897", "5548.347"]);
  assert.deepEqual(finishes(log20, "/opt/factorio/saves/init.zip"), [
    "2988.247",
    "5465.813",
    "5543.897",
    "5548.347",
  ]);
});

Deno.test('2.0.47: autosaves ("Saving to NAME (blocking).") end only their own wait', () => {
  assert.deepEqual(finishes(log20, "_autosave1"), ["570.063", "3570.347"]);
  assert.deepEqual(finishes(log20, "world.zip"), [], "no save of another name counts");
  assert.equal(finishes(log20, null).length, 13, "every save of the log, when the loaded save is not known");
});

Deno.test('1.1: "Saving game as /opt/factorio/saves/NAME.zip" then the real 1.1 "Saving finished"', () => {
  const finished = stdout11.find((l) => /Saving finished/.test(l))!;
  assert.match(finished, /^\d+\.\d{3} Info AppManagerStates\.cpp:1941: Saving finished$/);
  const lines = [
    "29499.100 Info AppManager.cpp:440: Saving game as /opt/factorio/saves/NAME.zip",
    ...stdout11.slice(1, 4),
    finished,
  ];
  assert.deepEqual(finishes(lines, "NAME.zip"), ["29499.783"]);
  assert.deepEqual(finishes(lines, "other.zip"), []);
  // Without its start line, a "Saving finished" is someone else's.
  assert.deepEqual(finishes(stdout11, "NAME.zip"), []);
});

Deno.test("the non-blocking form and the simulator's 2.x line", () => {
  const nonBlocking = [
    "  2.000 Info AppManager.cpp:323: Saving to world (non-blocking).",
    "  2.050 Info AppManagerStates.cpp:2103: Saving finished",
  ];
  assert.deepEqual(finishes(nonBlocking, "world.zip"), ["2.050"]);
  assert.deepEqual(
    finishes([
      "  1.000 Info AppManager.cpp:287: Saving to World (blocking).",
      "  1.100 Info AppManagerStates.cpp:1843: Saving finished",
    ], "world.zip"),
    [
      "1.100",
    ],
  );
});
