// Following the game's output file (FileTail): every line in order, through a burst of single-line
// writes (read on a timer without the watch), a line split over two writes, a quiet spell (the watch
// back in place), and a file truncated by a new run.

import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileTail } from "./gamelog.ts";
import { until } from "../../../tests/support/until.ts";

Deno.test("a followed file: bursts, split lines, quiet spells and truncation, every line once and in order", async () => {
  const dir = mkdtempSync(join(tmpdir(), "filetail-"));
  const file = join(dir, "out.log");
  writeFileSync(file, "before the panel looked\n");
  const seen: string[] = [];
  const tail = new FileTail(file, "before the panel looked\n".length, (lines) => seen.push(...lines));
  tail.start();
  try {
    await until("the watch", () => tail.watching);
    // A burst, one write per line as the game does: the watch is put away while the file keeps growing.
    let n = 0;
    let putAway = false;
    const deadline = Date.now() + 30_000;
    while (!putAway && Date.now() < deadline) {
      appendFileSync(file, `line ${n++}\n`);
      await new Promise((r) => setTimeout(r, 1));
      putAway = !tail.watching;
    }
    assert.ok(putAway, "the watch was put away while the file kept growing");
    for (let i = 0; i < 500; i++) appendFileSync(file, `line ${n++}\n`);
    appendFileSync(file, "half a ");
    appendFileSync(file, "line\n");
    await until("every line of the burst", () => seen.length === n + 1);
    assert.deepEqual(seen, [...Array.from({ length: n }, (_, i) => `line ${i}`), "half a line"]);
    // Quiet: the watch is back, and a single line after it is seen.
    await until("the watch back", () => tail.watching);
    appendFileSync(file, "after a quiet spell\n");
    await until("the line after the quiet spell", () => seen.at(-1) === "after a quiet spell");
    // A new run of the game starts the file over.
    writeFileSync(file, "a new run\n");
    await until("the new run's line", () => seen.at(-1) === "a new run");
    assert.equal(seen.length, n + 3);
  } finally {
    await tail.close();
    rmSync(dir, { recursive: true, force: true });
  }
  assert.equal(tail.watching, false);
});
