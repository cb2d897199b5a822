// The health alerts' rules over sequences of samples (the end-to-end path, with the simulator and a channel
// double, is in http/health_test.ts): N samples in a row, the cooldown after a recovery, a pause or a stop
// starting the count again, the hung alert's seconds, memory told again only after it fell back.

import assert from "node:assert/strict";
import { EventBus } from "../lib/events.ts";
import { HealthAlerts } from "./alerts.ts";
import { DEFAULT_SERVER } from "./sampler.ts";
import type { HealthNow } from "../../shared/contract/health.ts";

const T0 = Date.parse("2026-12-01T00:00:00Z");

function sample(sec: number, over: Partial<HealthNow>): HealthNow {
  return {
    server: "default",
    at: new Date(T0 + sec * 1000).toISOString(),
    state: "running",
    ups: 60,
    ups_state: "running",
    ups_error: 1,
    no_answer_since: null,
    exact_ups: false,
    cpu_percent: 10,
    memory_bytes: 100 * 1024 ** 2,
    disk_free_bytes: 1e10,
    players_online: 1,
    map_age_s: 100,
    ...over,
  };
}

function setup(rules: Partial<ConstructorParameters<typeof HealthAlerts>[1]> = {}) {
  const bus = new EventBus();
  const told: string[] = [];
  bus.on("alert", (a) => told.push(a.title));
  const alerts = new HealthAlerts(bus, {
    upsBelow: 50,
    upsSamples: 3,
    upsCooldownMs: 600_000,
    hungMs: 30_000,
    memoryBytes: 0,
    ...rules,
  });
  let sec = 0;
  const feed = (over: Partial<HealthNow>, step = 10) =>
    alerts.observe(DEFAULT_SERVER, sample(sec += step, over));
  return { told, feed };
}

Deno.test("low UPS: after N samples in a row, once; recovered; none again within the cooldown, one after it", () => {
  const { told, feed } = setup();
  feed({ ups: 40 });
  feed({ ups: 40 });
  assert.deepEqual(told, []);
  feed({ ups: 40 });
  feed({ ups: 30 });
  assert.deepEqual(told, ["Low UPS"]);
  feed({ ups: 59 });
  assert.deepEqual(told, ["Low UPS", "UPS recovered"]);
  for (let i = 0; i < 5; i++) feed({ ups: 40 });
  assert.deepEqual(told, ["Low UPS", "UPS recovered"], "within the cooldown");
  feed({ ups: 40 }, 600);
  assert.deepEqual(told, ["Low UPS", "UPS recovered", "Low UPS"]);
});

Deno.test("low UPS: a pause or a stop starts the count again; a paused game is not slow", () => {
  const { told, feed } = setup();
  feed({ ups: 40 });
  feed({ ups: 40 });
  feed({ ups: null, ups_state: "paused" });
  feed({ ups: 40 });
  feed({ ups: 40 });
  feed({ state: "stopped", ups: null, ups_state: "stopped" });
  feed({ ups: 40 });
  feed({ ups: 40 });
  for (let i = 0; i < 10; i++) feed({ ups: null, ups_state: "paused" });
  assert.deepEqual(told, []);
});

Deno.test("hung: no answer for the set seconds while the process runs, once, then answering again", () => {
  const { told, feed } = setup();
  const since = new Date(T0 + 10_000).toISOString();
  feed({ ups: null, ups_state: "no-answer", no_answer_since: since });
  feed({ ups: null, ups_state: "no-answer", no_answer_since: since });
  assert.deepEqual(told, []);
  feed({ ups: null, ups_state: "no-answer", no_answer_since: since }, 20);
  feed({ ups: null, ups_state: "no-answer", no_answer_since: since });
  assert.deepEqual(told, ["Game not answering"]);
  feed({});
  assert.deepEqual(told, ["Game not answering", "Game answering again"]);
});

Deno.test("memory: above the threshold once; again only after it fell below 95% of it", () => {
  const { told, feed } = setup({ memoryBytes: 1000 * 1024 ** 2 });
  feed({ memory_bytes: 1100 * 1024 ** 2 });
  feed({ memory_bytes: 1200 * 1024 ** 2 });
  feed({ memory_bytes: 980 * 1024 ** 2 });
  feed({ memory_bytes: 1100 * 1024 ** 2 });
  assert.deepEqual(told, ["High memory"]);
  feed({ memory_bytes: 900 * 1024 ** 2 });
  feed({ memory_bytes: 1100 * 1024 ** 2 });
  assert.deepEqual(told, ["High memory", "High memory"]);
});
