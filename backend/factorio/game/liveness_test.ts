// The identity check of a game's pid: its start, read from `ps`, must come out the same however young the
// process is and however late the panel reads ps's answer; otherwise a panel restart forgets a running game.

import assert from "node:assert/strict";
import { isAlive, parsePsLine, startOf } from "./liveness.ts";

function sleeper(): Deno.ChildProcess {
  return new Deno.Command("sleep", { args: ["60"], stdin: "null", stdout: "null", stderr: "null" }).spawn();
}

async function reap(child: Deno.ChildProcess): Promise<void> {
  child.kill("SIGKILL");
  await child.status;
}

Deno.test("a ps line: start from the age; a wrapped age (just started) is age 0; zombies; args with spaces", () => {
  // Seen from procps 4.0.2 for a process a few milliseconds old.
  assert.deepEqual(parsePsLine(" 3011 4123168608 S /usr/bin/sleep 30", 80495), {
    pid: 3011,
    info: { bootStart: 80495, zombie: false, args: "/usr/bin/sleep 30" },
  });
  assert.deepEqual(
    parsePsLine(" 2091      88 Sl   /opt/factorio/bin/x64/factorio --start-server a b.zip", 80489),
    {
      pid: 2091,
      info: {
        bootStart: 80401,
        zombie: false,
        args: "/opt/factorio/bin/x64/factorio --start-server a b.zip",
      },
    },
  );
  assert.equal(parsePsLine("  77 5 Z [factorio] <defunct>", 100)?.info.zombie, true);
  assert.equal(parsePsLine("", 100), null);
  assert.equal(parsePsLine("garbage", 100), null);
});

Deno.test("the start of a process read right after it was spawned is its start", async () => {
  // Spawned and read at once, as a game start does: with procps 4 this came out wrapped in 4 of 10 tries.
  const children: Deno.ChildProcess[] = [];
  try {
    for (let i = 0; i < 12; i++) {
      const child = sleeper();
      children.push(child);
      const start = await startOf(child.pid);
      assert.ok(start !== null);
      assert.ok(Math.abs(start - Deno.osUptime()) <= 2, `start ${start}, uptime ${Deno.osUptime()}`);
      assert.ok(await isAlive(child.pid, start), "the same process");
    }
  } finally {
    for (const child of children) await reap(child);
  }
});

Deno.test("a panel busy while ps answers still recognises the game", async () => {
  const child = sleeper();
  try {
    const start = await startOf(child.pid);
    assert.ok(start !== null);
    const answer = isAlive(child.pid, start);
    // The panel's thread blocked for 5.5 s (as a panel starting up on a loaded machine can be) while ps
    // has already answered: the age ps printed then must not be read against the clock after the wait.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5_500);
    assert.equal(await answer, true);
    assert.equal(await isAlive(child.pid, start), true);
    assert.equal(
      await isAlive(child.pid, start - 60),
      false,
      "a process that started a minute later is not the game",
    );
  } finally {
    await reap(child);
  }
});

Deno.test("a start below zero (recorded from a wrapped age by an earlier panel) is treated as unknown", async () => {
  const child = sleeper();
  try {
    assert.equal(await isAlive(child.pid, 80495 - 4123168608), true);
  } finally {
    await reap(child);
  }
  assert.equal(await isAlive(child.pid, 80495 - 4123168608), false, "gone");
});
