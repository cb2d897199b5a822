// The notifier fed by the real game supervisor: the simulated Factorio starts, crashes, is saved and
// stopped, and killed; each change reaches the fake push service as the matching alert.

import assert from "node:assert/strict";
import { startGame, startPanelWithGame, waitForStatus } from "../../tests/support/game.ts";
import { pushPanel, subscribeDevice } from "../../tests/support/push.ts";
import { titleOn } from "../../tests/support/alerts.ts";
import { FakePushService, type ReceivedPush } from "../../tests/fake-push/service.ts";
import type { PushPayload } from "../../shared/api.ts";
import { PUSH_MSG } from "../../shared/messages.ts";

Deno.test("start, crash, Save & Stop and Kill of the simulated game each push the matching alert", async () => {
  const fake = await FakePushService.start();
  const p = await startPanelWithGame(pushPanel());
  try {
    const c = await p.login();
    const { sub } = await subscribeDevice(c, fake, { events: ["started", "stopped", "crashed"] });
    const next = async (after: number): Promise<ReceivedPush & { alert: PushPayload }> => {
      const r = await fake.waitFor((x) => x.subscriptionId === sub.id && x.status === 201, {
        afterSeq: after,
      });
      return { ...r, alert: JSON.parse(r.payload!) };
    };

    const { port } = await startGame(c);
    const started = await next(0);
    assert.equal(started.alert.title, titleOn(p, PUSH_MSG.titleStarted));
    assert.equal(started.alert.body, `world.zip is running on port ${port} (Factorio 2.0.72).`);

    await p.ctx.game.rcon("/fake-crash 3").catch(() => {}); // the game dies before it answers
    const crashed = await next(started.seq);
    assert.equal(crashed.alert.title, titleOn(p, PUSH_MSG.titleCrashed));
    const exit = p.ctx.game.status().last_exit!;
    const lastLine = exit.last_lines.findLast((l) => l.trim() !== "")!;
    assert.match(lastLine, /^\s*\d+\.\d{3} Error /);
    assert.equal(
      crashed.alert.body,
      `Exit code 3. Last log line: ${lastLine.trim().replace(/^\d+\.\d{3} /, "")}`,
    );
    assert.equal(crashed.alert.at, exit.at, "the alert carries the time the game ended");

    await startGame(c);
    const again = await next(crashed.seq);
    assert.equal(again.alert.kind, "started");
    assert.equal((await c.get("/api/server/stop")).status, 200);
    await waitForStatus(p.ctx, "stopped");
    const stopped = await next(again.seq);
    assert.deepEqual([stopped.alert.title, stopped.alert.body], [
      titleOn(p, PUSH_MSG.titleStopped),
      "Saved and stopped from the panel.",
    ]);

    await startGame(c);
    const third = await next(stopped.seq);
    assert.equal((await c.get("/api/server/kill")).status, 200);
    await waitForStatus(p.ctx, "stopped");
    const killed = await next(third.seq);
    assert.deepEqual([killed.alert.title, killed.alert.body], [
      titleOn(p, PUSH_MSG.titleStopped),
      "Killed from the panel: the game was not saved.",
    ]);
    await p.ctx.push.notifier.settled();
    assert.equal(fake.delivered(sub.id).length, 6, "one alert per change, no more");
  } finally {
    await p.close();
    await fake.close();
  }
});
