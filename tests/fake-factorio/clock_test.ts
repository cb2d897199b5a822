// The simulated game's clock against what the real game does (sources in server.ts): /time's wording, the
// tick over RCON with its first-Lua-command warning per version, a speed the test sets (/fake-ups), auto_pause,
// a hang (/fake-hang), and the tick kept in the save across a restart.

import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { createFakeSave, installFakeFactorio, type SimulatedVersion } from "./install.ts";
import { type HostedSim, hostGame } from "./hosted.ts";
import { LUA_WARNING } from "./server.ts";
import { RconClient } from "../../backend/factorio/game/rcon.ts";

/** 110 hours, 28 minutes and 57 seconds, in ticks: the age a real 2.0.28 server worded so. */
const AGE_TICKS = (110 * 3600 + 28 * 60 + 57) * 60;

interface Hosted extends HostedSim {
  rcon: RconClient;
}

async function host(version: SimulatedVersion, opts: Parameters<typeof hostGame>[1] = {}): Promise<Hosted> {
  const hosted = await hostGame(version, opts);
  return { ...hosted, rcon: await hosted.connect() };
}

async function stop(h: Hosted, removeDir = true): Promise<void> {
  h.rcon.close();
  await h.stop(removeDir);
}

/** game.tick, asked the way a client that knows the warning does: once more after the warning. */
async function tickOf(rcon: RconClient): Promise<number> {
  let reply = await rcon.exec("/sc rcon.print(game.tick)");
  if (!/^\d+\n$/.test(reply)) reply = await rcon.exec("/sc rcon.print(game.tick)");
  assert.match(reply, /^\d+\n$/);
  return Number(reply);
}

/** Ticks per second between two readings, each stamped halfway through its round trip. */
async function rate(rcon: RconClient, ms: number): Promise<number> {
  const read = async () => {
    const sent = performance.now();
    const tick = await tickOf(rcon);
    return { tick, at: (sent + performance.now()) / 2 };
  };
  const a = await read();
  await new Promise((r) => setTimeout(r, ms));
  const b = await read();
  return (b.tick - a.tick) / ((b.at - a.at) / 1000);
}

Deno.test("/time words the map's age in hours, minutes and seconds, as the real game does", async () => {
  const h = await host("2.0", { tick: AGE_TICKS });
  try {
    // auto_pause with nobody online: the clock stands still, so the answer is exact.
    assert.equal(await h.rcon.exec("/time"), "110 hours, 28 minutes and 57 seconds");
  } finally {
    await stop(h);
  }
  for (
    const [ticks, words] of [
      [0, "0 seconds"],
      [60, "1 second"],
      [61 * 60, "1 minute and 1 second"],
      [3600 * 60, "1 hour"],
      [(3600 + 5) * 60, "1 hour and 5 seconds"],
      [(26 * 3600 + 120) * 60, "26 hours and 2 minutes"],
    ] as const
  ) {
    const g = await host("2.0", { tick: ticks });
    try {
      assert.equal(await g.rcon.exec("/time"), words);
    } finally {
      await stop(g);
    }
  }
});

for (const version of ["1.1", "2.0", "2.1"] as const) {
  Deno.test(`${version}: the first Lua command of a save is held back with the achievements warning, its repeat runs`, async () => {
    const h = await host(version, { tick: 1234 });
    try {
      const first = await h.rcon.exec("/sc rcon.print(game.tick)");
      if (version === "2.1") {
        // 2.1 answers nothing over RCON and says it on the console.
        assert.equal(first, "");
        await h.game.waitForLine(
          new RegExp(
            `^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d \\[WARNING\\] ${LUA_WARNING.replace(/\./g, "\\.")}$`,
          ),
        );
      } else {
        assert.equal(first, LUA_WARNING);
      }
      // Another command than the one warned about is warned about in its turn; the same one again runs.
      assert.equal(
        await h.rcon.exec("/silent-command rcon.print(game.ticks_played)"),
        version === "2.1" ? "" : LUA_WARNING,
      );
      assert.equal(await h.rcon.exec("/silent-command rcon.print(game.ticks_played)"), "1234\n");
      // From then on, no more warnings on this map; rcon.print ends its line.
      assert.equal(await h.rcon.exec("/sc rcon.print(game.tick)"), "1234\n");
      assert.equal(await h.rcon.exec("/sc game.print('hi')"), "", "other Lua prints nothing back");
      // /c is logged on the console, /silent-command is not.
      assert.equal(await h.rcon.exec("/c rcon.print(game.tick)"), "1234\n");
      await h.game.waitForLine(/\[COMMAND\] <server> \(command\): rcon\.print\(game\.tick\)$/);
      assert.ok(
        !h.game.lines.some((l) => l.includes("(command): rcon.print(game.ticks_played)")),
        h.game.lines.join("\n"),
      );
    } finally {
      await stop(h);
    }
  });
}

Deno.test("the tick runs at the speed /fake-ups sets; 0 and auto_pause stop it; the game still answers", async () => {
  const h = await host("2.0");
  try {
    // auto_pause (the default): nobody online, the map waits.
    const idle = await tickOf(h.rcon);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await tickOf(h.rcon), idle);

    assert.equal(await h.rcon.exec("/fake-join alice"), "");
    const normal = await rate(h.rcon, 1000);
    assert.ok(Math.abs(normal - 60) < 4, `60 UPS by default, measured ${normal}`);
    assert.equal(await h.rcon.exec("/fake-ups 30"), "The game runs at 30 UPS.");
    const slow = await rate(h.rcon, 1000);
    assert.ok(Math.abs(slow - 30) < 3, `30 UPS, measured ${slow}`);

    assert.equal(await h.rcon.exec("/fake-ups 0"), "The game runs at 0 UPS.");
    const stopped = await tickOf(h.rcon);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await tickOf(h.rcon), stopped, "paused: the tick stands still");
    assert.match(await h.rcon.exec("/time"), /seconds?$/, "a paused game still answers");

    // Back to 60; once the last player leaves, auto_pause stops the clock again.
    await h.rcon.exec("/fake-ups 60");
    await h.rcon.exec("/fake-leave alice");
    const left = await tickOf(h.rcon);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(await tickOf(h.rcon), left);
    assert.equal(await h.rcon.exec("/fake-ups -1"), "Usage: /fake-ups UPS (0 to 1000; 0 pauses)");
  } finally {
    await stop(h);
  }
});

Deno.test("without auto_pause the map runs with nobody online", async () => {
  const h = await host("1.1", { autoPause: false });
  try {
    const ups = await rate(h.rcon, 800);
    assert.ok(Math.abs(ups - 60) < 4, `measured ${ups}`);
  } finally {
    await stop(h);
  }
});

Deno.test("/fake-hang: no answer and no ticks until the game comes back", async () => {
  const h = await host("2.0", { autoPause: false });
  const other = await h.connect();
  try {
    const before = await tickOf(h.rcon);
    const hang = h.rcon.exec("/fake-hang 1500");
    await new Promise((r) => setTimeout(r, 100));
    // Sent during the hang: answered only once it is over, with the clock where the hang stopped it.
    const sent = performance.now();
    const during = await tickOf(other);
    assert.ok(performance.now() - sent >= 1000, "no answer while the game hangs");
    assert.equal(await hang, "");
    assert.ok(during - before < 60, `the clock stood still for 1.5 s: ${during - before} ticks`);
  } finally {
    other.close();
    await stop(h);
  }
});

Deno.test("the tick and the end of the warnings are kept in the save: a restart continues from them", async () => {
  const f = installFakeFactorio(mkdtempSync(join(tmpdir(), "fake-clock-")), "2.0");
  const save = await createFakeSave(f, "world", { state: { tick: 5000 } });
  const first = await host("2.0", { f, save, autoPause: false });
  let last: number;
  try {
    await tickOf(first.rcon); // the warning, then the tick: achievements are now off for this map
    await new Promise((r) => setTimeout(r, 200));
    last = await tickOf(first.rcon);
    assert.ok(last > 5000);
  } finally {
    await stop(first, false); // SIGINT saves the map
  }
  const second = await host("2.0", { f, save });
  try {
    const reply = await second.rcon.exec("/sc rcon.print(game.tick)");
    assert.match(reply, /^\d+\n$/, "no warning: the save remembers that Lua ran");
    assert.ok(Number(reply) >= last, `continues from the saved tick (${last}): ${reply}`);
  } finally {
    await stop(second);
  }
});
