// Server health end to end (issue 51), with the simulator as the game: the sampler's figures through
// GET /api/health (UPS from /time and pause, the exact mode, CPU and memory of the game's pid, players,
// free disk), the low-UPS, recovered and hung alerts through a Discord channel double, /metrics and its
// access rules, the public status (off until opted in; only what it should show), and the history.

import assert from "node:assert/strict";
import { type GamePanel, startGame, startPanelWithGame } from "../../tests/support/game.ts";
import { Client } from "../../tests/support/harness.ts";
import { until } from "../../tests/support/until.ts";
import { startFakeAlerts } from "../../tests/fake-alerts/server.mjs";
import { addChannel, pathOf, titleOn } from "../../tests/support/alerts.ts";
import type { HealthNow } from "../../shared/contract/health.ts";

const health = async (c: Client): Promise<HealthNow> => {
  const r = await c.get("/api/health");
  assert.equal(r.status, 200, r.text);
  return r.body;
};

async function withHealthPanel(args: string[], fn: (p: GamePanel) => Promise<void>): Promise<void> {
  const p = await startPanelWithGame({ args: ["--health-sample-seconds", "1", ...args] });
  try {
    await fn(p);
  } finally {
    await p.close();
  }
}

Deno.test("UPS from /time: paused while nobody is online (auto_pause), about 60 once a player joins; CPU, memory, disk, players", async () => {
  await withHealthPanel([], async (p) => {
    const c = await p.login();
    assert.equal((await health(c)).ups_state, "stopped");
    await startGame(c);
    // auto_pause: the simulator's clock stands still with nobody online.
    const paused = await until(
      "paused",
      async () => (await health(c)).ups_state === "paused" && health(c),
      40_000,
    );
    assert.equal(paused.ups, null);
    await p.ctx.game.rcon("/fake-join alice");
    // The map-age window is 60 s; the figure is shown once it is within 2% (50 s).
    const h = await until("a settled UPS", async () => {
      const h = await health(c);
      return h.ups_state === "running" && h;
    }, 90_000);
    assert.ok(Math.abs(h.ups! - 60) <= 1.5, `UPS ${h.ups}`);
    assert.equal(h.exact_ups, false);
    assert.equal(h.players_online, 1);
    assert.ok(h.map_age_s! >= 50, `map age ${h.map_age_s}`);
    assert.ok(h.disk_free_bytes! > 0);
    // Memory and CPU of the game's own process, as ps sees it.
    const pid = p.ctx.game.pid!;
    const ps = new TextDecoder().decode(
      (await new Deno.Command("ps", { args: ["-o", "rss=", "-p", String(pid)] }).output()).stdout,
    );
    const rss = Number(ps.trim()) * 1024;
    assert.ok(
      h.memory_bytes! > rss / 2 && h.memory_bytes! < rss * 2,
      `memory ${h.memory_bytes} vs ps ${rss}`,
    );
    assert.ok(h.cpu_percent !== null && h.cpu_percent >= 0 && h.cpu_percent < 50, `cpu ${h.cpu_percent}`);
    // A thread of the game kept busy: its CPU share climbs (a loaded test machine may give it less than a core).
    assert.equal(await p.ctx.game.rcon("/fake-cpu on"), "One thread of the game is busy.");
    await until("the busy game's CPU share", async () => ((await health(c)).cpu_percent ?? 0) >= 40, 60_000);
    await p.ctx.game.rcon("/fake-cpu off");
    // A backup is marked on the time axis too.
    const backup = await c.post("/api/backups", {});
    assert.equal(backup.status, 201, backup.text);
    // The history has the points, the start mark and the backup's.
    const hist = await c.get("/api/health/history?range=hour");
    assert.equal(hist.status, 200, hist.text);
    assert.ok(hist.body.at.length >= 5, `${hist.body.at.length} points`);
    assert.ok(hist.body.series.ups.avg.some((v: number | null) => v !== null && Math.abs(v - 60) < 2));
    assert.deepEqual(hist.body.events.map((e: { kind: string }) => e.kind), ["start", "backup"]);
    assert.equal((await c.get("/api/health/history?range=year")).status, 400);
  });
});

Deno.test("exact UPS: low-UPS alert after N samples, recovered message, hung alert and answering again, high memory, through a channel", async () => {
  const fake = await startFakeAlerts();
  try {
    await withHealthPanel([
      "--alert-ups-below",
      "45",
      "--alert-ups-samples",
      "3",
      "--alert-hung-seconds",
      "3",
      "--alert-memory-mb",
      "1",
    ], async (p) => {
      const c = await p.login();
      const url = fake.discordUrl("health");
      await addChannel(c, { type: "discord", name: "health", url, events: ["low-ups", "hung"] });
      const memoryUrl = fake.discordUrl("memory");
      await addChannel(c, { type: "discord", name: "memory", url: memoryUrl, events: ["memory-high"] });
      const bad = await c.post("/api/health/settings", { exact_ups: "yes" });
      assert.equal(bad.status, 400);
      assert.match(bad.body, /exact_ups must be true or false/);
      const set = await c.post("/api/health/settings", { exact_ups: true });
      assert.equal(set.status, 200, set.text);
      assert.equal(set.body.exact_ups, true);
      await startGame(c);
      await p.ctx.game.rcon("/fake-join alice");
      const full = await until("exact UPS near 60", async () => {
        const h = await health(c);
        return h.ups_state === "running" && h.exact_ups && Math.abs(h.ups! - 60) < 1 && h;
      }, 40_000);
      assert.ok(full.ups_error! < 1.2);
      // Each title is led by the server's name: what follows it is compared.
      const named = titleOn(p, "");
      const titles = () =>
        fake.delivered(pathOf(url)).map((r: { json: { embeds: { title: string }[] } }) =>
          r.json.embeds[0].title.replace(named, "")
        );
      await p.ctx.game.rcon("/fake-ups 30");
      await until("the low-UPS alert", () => titles().includes("Low UPS"), 40_000);
      const low = fake.delivered(pathOf(url)).find((r: { json: { embeds: { title: string }[] } }) =>
        r.json.embeds[0].title === titleOn(p, "Low UPS")
      );
      assert.match(low!.json.embeds[0].description, /below 45, for 3 samples in a row/);
      await p.ctx.game.rcon("/fake-ups 60");
      await until("the recovered message", () => titles().includes("UPS recovered"), 40_000);
      // Hung: the process lives, the console does not answer.
      void p.ctx.game.rcon("/fake-hang 8000").catch(() => {});
      await until("no answer", async () => (await health(c)).ups_state === "no-answer", 20_000);
      await until("the hung alert", () => titles().includes("Game not answering"), 20_000);
      assert.equal((await health(c)).state, "running");
      await until("answering again", () => titles().includes("Game answering again"), 30_000);
      assert.deepEqual(titles(), ["Low UPS", "UPS recovered", "Game not answering", "Game answering again"]);
      // The simulator's resident memory is well above 1 MiB: one alert for the run, not one per sample.
      const memory = fake.delivered(pathOf(memoryUrl));
      assert.equal(memory.length, 1);
      assert.match(memory[0].json.embeds[0].description, /^The game uses \d+ MiB, above 1 MiB\.$/);
    });
  } finally {
    await fake.close();
  }
});

Deno.test("/metrics: an API token or a listed address; Prometheus text with the server label", async () => {
  await withHealthPanel([], async (p) => {
    const c = await p.login();
    const anon = await fetch(`${p.url}/metrics`);
    assert.equal(anon.status, 401);
    assert.match(await anon.text(), /API token/);
    const bad = await fetch(`${p.url}/metrics`, { headers: { Authorization: "Bearer nope" } });
    assert.equal(bad.status, 401);
    await bad.body?.cancel();
    const t = await c.post("/api/user/tokens", { name: "prometheus", role: "viewer", expires_days: 30 });
    assert.equal(t.status, 200, t.text);
    await startGame(c);
    await until("a sample of the running game", async () => (await health(c)).memory_bytes !== null, 20_000);
    const r = await fetch(`${p.url}/metrics`, { headers: { Authorization: `Bearer ${t.body.token}` } });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "text/plain; version=0.0.4; charset=utf-8");
    const text = await r.text();
    assert.match(text, /^# TYPE factorio_server_up gauge$/m);
    assert.match(text, /^factorio_server_up\{server="default"\} 1$/m);
    assert.match(text, /^factorio_process_resident_memory_bytes\{server="default"\} \d+$/m);
    assert.match(text, /^factorio_disk_free_bytes\{server="default"\} \d+$/m);
  });
  // From a listed address, no token is needed.
  await withHealthPanel(["--metrics-from", "127.0.0.1,::1"], async (p) => {
    const r = await fetch(`${p.url}/metrics`);
    assert.equal(r.status, 200);
    assert.match(await r.text(), /^factorio_server_up\{server="default"\} 0$/m);
  });
});

Deno.test("public status: 404 until an admin opts in; then JSON, page and badge with only what was chosen, cacheable", async () => {
  await withHealthPanel([], async (p) => {
    const c = await p.login();
    for (const path of ["/status/default.json", "/status/default", "/status/default.svg"]) {
      const r = await fetch(p.url + path);
      assert.equal(r.status, 404, path);
      await r.body?.cancel();
    }
    await startGame(c);
    await p.ctx.game.rcon("/fake-join alice");
    const on = await c.post("/api/health/settings", {
      public_status: true,
      public_address: "play.example.org:34197",
    });
    assert.equal(on.status, 200, on.text);
    await until("alice in a sample", () => p.ctx.health.sampler.players()?.includes("alice"), 20_000);
    let r = await fetch(`${p.url}/status/default.json`);
    assert.equal(r.status, 200);
    assert.match(r.headers.get("cache-control")!, /public, max-age=\d+/);
    const etag = r.headers.get("etag")!;
    const body = await r.json();
    assert.deepEqual(Object.keys(body).sort(), [
      "address",
      "name",
      "paused",
      "players",
      "players_online",
      "server",
      "state",
      "ups",
      "uptime_s",
      "version",
    ]);
    assert.equal(body.state, "running");
    assert.deepEqual(body.players, ["alice"]);
    assert.equal(body.address, "play.example.org:34197");
    const again = await fetch(`${p.url}/status/default.json`, { headers: { "If-None-Match": etag } });
    assert.equal(again.status, 304);
    await again.body?.cancel();
    // Names hidden: the count stays.
    await c.post("/api/health/settings", { public_players: false });
    r = await fetch(`${p.url}/status/default.json`);
    const hidden = await r.json();
    assert.equal(hidden.players, undefined);
    assert.equal(hidden.players_online, 1);
    const pageText = await (await fetch(`${p.url}/status/default`)).text();
    assert.doesNotMatch(pageText, /alice/);
    assert.match(pageText, /Online/);
    const svg = await fetch(`${p.url}/status/default.svg`);
    assert.equal(svg.headers.get("content-type"), "image/svg+xml");
    assert.match(await svg.text(), /online · 1/);
    // Other names are nothing.
    r = await fetch(`${p.url}/status/other.json`);
    assert.equal(r.status, 404);
    await r.body?.cancel();
  });
});
