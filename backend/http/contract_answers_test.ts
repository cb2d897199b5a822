// Every JSON answer the panel gives against the contract's answer schema (shared/contract/), on a panel
// seeded with a bit of everything: saves, mods from the (fake) mod portal, a mod pack, mod settings, a
// backup, a schedule, a user, a token, a push device, an alert channel, a game run with players. An answer
// must parse, and parsing must drop nothing: a field the contract does not know fails here, so an answer's
// shape cannot change without the contract changing. Each GET of the contract is asked at least once.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import * as OTPAuth from "otpauth";
import type { Client } from "../../tests/support/harness.ts";
import { startGame, startPanelWithGame, waitForStatus } from "../../tests/support/game.ts";
import { MOD_FIXTURES } from "../../tests/support/modpanel.ts";
import { TARBALL_CACHE } from "../../tests/support/versions.ts";
import { until } from "../../tests/support/until.ts";
import { startFakePortal, USERS } from "../../tests/fake-portal/server.ts";
import { startFakeFactorioCom } from "../../tests/fake-factorio-com/server.ts";
import { FakePushService } from "../../tests/fake-push/service.ts";
import { FAKE_PUSH_ARGS } from "../../tests/support/push.ts";
import { testModZip } from "../../tests/support/testmod.ts";
import {
  type AnswerOf,
  type BodyOf,
  contract,
  contractRoutes,
  type ParamsOf,
  type QueryOf,
  type RouteKey,
} from "../../shared/contract/index.ts";
import { isFileAnswer, type RouteDef } from "../../shared/contract/route.ts";
import { ADMIN_PASSWORD } from "../../tests/support/harness.ts";

interface Ask<K extends RouteKey> {
  params?: ParamsOf<K>;
  query?: QueryOf<K>;
  body?: BodyOf<K>;
  form?: FormData;
}

/** Asks the panel as `c` and holds the answer to the contract; remembers which routes were asked. */
class Answers {
  readonly asked = new Set<string>();
  /** Routes that answered a list only ever empty: their entries' shape was not seen. */
  readonly emptyLists = new Set<string>();
  constructor(private readonly c: Client) {}

  async call<K extends RouteKey>(key: K, ask: Ask<K> = {}): Promise<AnswerOf<K>> {
    const def: RouteDef = contract[key];
    const [method, pattern] = key.split(" ");
    const params = (ask.params ?? {}) as Record<string, string | number>;
    let path = pattern.replace(/:(\w+)/g, (_, name: string) => encodeURIComponent(String(params[name])));
    if (ask.query) path += `?${new URLSearchParams(ask.query as Record<string, string>)}`;
    const init = ask.form ? { body: ask.form } : method === "GET" ? {} : { json: ask.body ?? {} };
    const r = await this.c.request(method, path, init);
    assert.ok((def.status ?? [200]).includes(r.status), `${key}: ${r.status} ${r.text}`);
    this.asked.add(key);
    if (isFileAnswer(def.answer)) {
      assert.ok(
        r.headers.get("content-type")?.startsWith(def.answer.file),
        `${key}: ${r.headers.get("content-type")}`,
      );
      return undefined as AnswerOf<K>;
    }
    const parsed = def.answer.safeParse(r.body);
    assert.ok(
      parsed.success,
      `${key}: the answer does not fit the contract:\n${parsed.error && z.prettifyError(parsed.error)}\n${
        r.text.slice(0, 3000)
      }`,
    );
    assert.deepEqual(parsed.data, r.body, `${key}: the answer holds what the contract does not say`);
    if (Array.isArray(r.body) && r.body.length === 0 && !this.asked.has(`${key} with entries`)) {
      this.emptyLists.add(key);
    }
    if (Array.isArray(r.body) && r.body.length > 0) {
      this.asked.add(`${key} with entries`);
      this.emptyLists.delete(key);
    }
    return parsed.data as AnswerOf<K>;
  }
}

function modZipForm(bytes: Uint8Array, name: string, field: string): FormData {
  const form = new FormData();
  form.append(field, new Blob([bytes as BlobPart]), name);
  return form;
}

Deno.test("every JSON answer fits the contract, and holds nothing it does not say", async () => {
  const portal = await startFakePortal();
  const com = startFakeFactorioCom({ cacheDir: TARBALL_CACHE });
  const push = await FakePushService.start();
  const p = await startPanelWithGame({
    args: [
      "--mod-portal-url",
      portal.url,
      "--auth-url",
      portal.url,
      "--factorio-com-url",
      com.url,
      ...FAKE_PUSH_ARGS,
    ],
  });
  try {
    const c = await p.login();
    const a = new Answers(c);

    // ---- Signing in, users, tokens, second factors ----
    await a.call("POST /api/login", { body: { username: "admin", password: ADMIN_PASSWORD } });
    await a.call("GET /api/user/status");
    await a.call("POST /api/user/add", {
      body: {
        username: "olga",
        email: "olga@example.org",
        role: "operator",
        password: "olga-password",
        password_confirmation: "olga-password",
      },
    });
    await a.call("POST /api/user/role", { body: { username: "olga", role: "viewer" } });
    await a.call("POST /api/user/servers", { body: { username: "olga", servers: { "1": "operator" } } });
    await a.call("GET /api/user/list");
    await a.call("POST /api/user/tokens", { body: { name: "script", role: "operator", expires_days: 30 } });
    await a.call("POST /api/user/tokens", {
      body: { name: "server one", role: "operator", expires_days: 30, servers: [1] },
    });
    await a.call("GET /api/user/tokens");
    await a.call("GET /api/user/tokens", { query: { all: "1" } });
    await a.call("GET /api/user/sessions", { query: { all: "1" } });
    await a.call("GET /api/user/passkeys");
    await a.call("POST /api/user/passkeys/options");
    const totp = await a.call("POST /api/user/2fa/totp/setup");
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(totp.secret), digits: 6, period: 30 })
      .generate();
    await a.call("POST /api/user/2fa/totp/confirm", { body: { code } });
    await a.call("POST /api/user/2fa/recovery", { body: { password: ADMIN_PASSWORD } });
    await a.call("GET /api/user/2fa");
    await a.call("GET /api/import/status");
    // HTTPS off here: its state with no certificate (backend/https/ tests and the smoke test have the others).
    await a.call("GET /api/https");
    await a.call("GET /api/openapi.json");
    await a.call("POST /api/login/passkey/options");

    // ---- Saves and the world ----
    await a.call("GET /api/saves/list");
    await a.call("POST /api/saves/mods", { body: { saveFile: "world.zip" } });
    await a.call("GET /api/saves/dl/:name", { params: { name: "world.zip" } });
    await a.call("GET /api/saves/create/:name", { params: { name: "fresh" } });
    await a.call("GET /api/saves/rm/:name", { params: { name: "fresh.zip" } });
    await a.call("GET /api/world/generator");
    await a.call("GET /api/world/scenarios");
    const exchange = readFileSync(join(MOD_FIXTURES, "exchange-strings", "2.0.76.txt"), "utf8");
    const decoded = await a.call("POST /api/world/exchange-string/decode", { body: { string: exchange } });
    await a.call("POST /api/world/exchange-string/encode", { body: decoded });

    // ---- Mods, the portal, packs, mod settings ----
    await a.call("POST /api/mods/portal/login", {
      body: { username: USERS[0].username, password: USERS[0].password },
    });
    await a.call("GET /api/mods/portal/loginstatus");
    const list = await a.call("GET /api/mods/portal/list");
    assert.ok(list.results.length > 0);
    const trains = await a.call("GET /api/mods/portal/info/:name", { params: { name: "fp-trains" } });
    const release = trains.releases.find((r) => r.version === "2.0.0.0")!;
    await a.call("POST /api/mods/portal/install", {
      body: { modName: "fp-trains", downloadUrl: release.download_url, fileName: release.file_name },
    });
    await a.call("POST /api/mods/portal/install/multiple", {
      query: { detail: "1" },
      body: [{ name: "fp-library", version: "1.0.0" }],
    });
    await a.call("GET /api/mods/portal/progress");
    await a.call("POST /api/mods/upload", {
      form: modZipForm(await testModZip(), "test-settings-mod_1.0.0.zip", "mod_file"),
    });
    await a.call("GET /api/mods/list");
    await a.call("GET /api/mods/updates");
    const update = (await a.call("GET /api/mods/updates")).find((u) => u.modName === "fp-library");
    assert.ok(update, "fp-library 1.0.0 has an update");
    // The pack keeps fp-library 1.0.0, which has an update.
    await a.call("POST /api/mods/packs/create", { body: { name: "trains" } });
    await a.call("POST /api/mods/update", { body: update });
    await a.call("POST /api/mods/toggle", { body: { name: "fp-library" } });
    await a.call("POST /api/mods/pin", { body: { name: "fp-library", pinned: true } });
    await a.call("GET /api/mods/download");
    await a.call("GET /api/mods/packs/list");
    await a.call("GET /api/mods/packs/:pack/list", { params: { pack: "trains" } });
    await a.call("GET /api/mods/packs/:pack/updates", { params: { pack: "trains" } });
    await a.call("POST /api/mods/packs/:pack/mod/toggle", {
      params: { pack: "trains" },
      body: { name: "fp-trains" },
    });
    await a.call("POST /api/mods/packs/:pack/load", { params: { pack: "trains" } });
    await a.call("GET /api/mods/packs/:pack/download", { params: { pack: "trains" } });
    await a.call("GET /api/mods/portal/logout");
    const settingsFile = readFileSync(join(MOD_FIXTURES, "mod-settings", "factorio-2.0.55.mod-settings.dat"));
    await a.call("POST /api/mods/settings/upload", {
      form: modZipForm(settingsFile, "mod-settings.dat", "file"),
    });
    await a.call("POST /api/mods/settings/update", {
      body: { settings: { "runtime-global": { "tm-count": { value: 7 } } } },
    });
    await a.call("GET /api/mods/settings");
    await a.call("GET /api/mods/settings/definitions");
    await a.call("GET /api/mods/settings/download");

    // ---- Settings, versions, backups, schedules ----
    await a.call("GET /api/settings");
    await a.call("GET /api/factorio/versions");
    await a.call("POST /api/backups/settings", { body: { include: ["settings", "players"] } });
    await a.call("GET /api/backups/settings");
    const backup = await a.call("POST /api/backups", { body: { save: "world.zip" } });
    await a.call("POST /api/backups/:id/lock", { params: { id: backup.id }, body: { locked: true } });
    await a.call("POST /api/backups/:id/restore", { params: { id: backup.id }, body: { as: "restored" } });
    await a.call("GET /api/backups");
    await a.call("GET /api/backups/:id/download", { params: { id: backup.id } });
    const schedule = await a.call("POST /api/schedules", {
      body: {
        name: "Nightly",
        cron: "0 4 * * *",
        condition: "always",
        enabled: true,
        tasks: [{ type: "warn", delay_s: 0, text: "Restart in {time}", countdown_s: 60 }, {
          type: "backup",
          delay_s: 0,
          include: ["mods"],
        }],
        run_missed: false,
      },
    });
    await a.call("GET /api/schedules/preview", { query: { cron: "*/5 * * * *" } });
    await a.call("POST /api/schedules/:id/run", { params: { id: schedule.id } });
    await a.call("GET /api/schedules/:id", { params: { id: schedule.id } });
    await a.call("GET /api/schedules");

    // ---- Notifications ----
    const key = await a.call("GET /api/push/key");
    const { id: _id, ...subscription } = push.subscribe(key.publicKey);
    const device = await a.call("POST /api/push/subscribe", { body: { subscription, name: "Desk" } });
    await a.call("POST /api/push/devices/:id", {
      params: { id: device.id },
      body: { quiet_hours: { start: "22:00", end: "07:00", tz: "Europe/Berlin" } },
    });
    await a.call("POST /api/push/test", { body: {} });
    await a.call("GET /api/push/devices");
    const channel = await a.call("POST /api/notifications/channels", {
      body: {
        type: "ntfy",
        name: "Phone",
        url: "https://ntfy.example.org",
        topic: "factorio",
        token: "tk_secret",
      },
    });
    await a.call("POST /api/notifications/channels", {
      body: { type: "webhook", name: "Hook", url: "https://hooks.example.org/in" },
    });
    await a.call("POST /api/notifications/channels/:id", {
      params: { id: channel.id },
      body: { priority: 4 },
    });
    await a.call("GET /api/notifications/channels");

    // ---- A game run: the status, players, chat, the log and config.ini the game writes ----
    await startGame(c);
    await a.call("GET /api/server/status");
    await a.call("GET /api/server/facVersion");
    await p.ctx.game.rcon("/fake-join alice bob");
    await p.ctx.game.rcon("/fake-chat alice hello there");
    await until("players online", async () => (await c.get("/api/players/online")).body.players.length === 2);
    await a.call("GET /api/players/online");
    await a.call("POST /api/players/bans/add", { body: { username: "mallory", reason: "griefing" } });
    await a.call("POST /api/players/whitelist/use", { body: { enabled: false } });
    await a.call("GET /api/players");
    await a.call("GET /api/log/tail", { query: { lines: "50" } });
    await a.call("GET /api/log/download");
    await a.call("GET /api/server/stop");
    await waitForStatus(p.ctx, "stopped");
    await startGame(c);
    await a.call("GET /api/server/kill");
    await waitForStatus(p.ctx, "stopped");
    await until("player history", async () => (await c.get("/api/players/history")).body.length === 2);
    await a.call("GET /api/players/history");
    await until("chat log", async () => (await c.get("/api/players/chat")).body.length > 0);
    await a.call("GET /api/players/chat", { query: { q: "hello" } });
    await a.call("GET /api/players/online-counts", { query: { hours: "24" } });
    await a.call("GET /api/health");
    await a.call("GET /api/health/history", { query: { range: "day" } });
    await a.call("POST /api/health/settings", { body: { public_status: true, public_players: false } });
    await a.call("GET /api/health/settings");
    await a.call("GET /api/config");
    await a.call("GET /api/activity", { query: { limit: "50" } });
    await a.call("POST /api/servers", { body: { name: "Second" } });
    await a.call("GET /api/servers");

    await a.call("GET /api/logout");

    // Every GET of the contract was asked (a new one must be seeded and asked here too).
    const gets = contractRoutes.filter((r) => r.method === "GET").map((r) => `${r.method} ${r.path}`);
    assert.deepEqual(
      gets.filter((k) => !a.asked.has(k)),
      [],
      "GET routes of the contract this test did not ask",
    );
    // Passkeys need a browser's authenticator; downloads in flight are gone by the time one could ask.
    assert.deepEqual(
      [...a.emptyLists].sort(),
      ["GET /api/mods/portal/progress", "GET /api/user/passkeys"],
      "lists only seen empty",
    );
  } finally {
    await p.close();
    await push.close();
    await com.close();
    await portal.close();
  }
});
