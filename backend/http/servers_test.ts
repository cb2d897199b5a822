// Several servers from one panel, through the API: adding a server, its own saves, game and ports, the
// old addresses leading to server 1, who sees which server, port and name conflicts, deleting with and
// without a backup, and the /ws rooms of each server.

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import {
  freeTcpPort,
  freeUdpPort,
  holdUdpPort,
  startPanelWithGame,
  withGamePanel,
} from "../../tests/support/game.ts";
import { ServerStore } from "../servers/store.ts";
import { userWithRole } from "../../tests/support/roles.ts";
import { TestSocket } from "../../tests/support/ws.ts";
import type { ServerSummary } from "../../shared/contract/servers.ts";
import { SERVERS_MSG } from "../../shared/servers.ts";
import { LOAD_LATEST } from "../../shared/api.ts";
import type { Client } from "../../tests/support/harness.ts";

async function addServer(c: Client, body: Record<string, unknown>): Promise<number> {
  const r = await c.post("/api/servers", body);
  assert.equal(r.status, 201, r.text);
  return (r.body as { id: number }).id;
}

async function waitState(c: Client, id: number, state: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const r = await c.get(`/api/servers/${id}/server/status`);
    if ((r.body as { status: string }).status === state) return;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error(`server ${id} did not get ${state}`);
}

Deno.test(
  "a second server has its own directory, saves, game and port; /api/R stays server 1",
  withGamePanel(async (p) => {
    const c = await p.login();
    // Its RCON port from the test's own (test files run side by side, each panel picking from 27015).
    const id = await addServer(c, { name: "Space Age", rcon_port: await freeTcpPort() });
    assert.equal(id, 2);
    const list = (await c.get("/api/servers")).body as ServerSummary[];
    assert.deepEqual(list.map((s) => [s.id, s.name, s.status]), [[1, "Server 1", "stopped"], [
      2,
      "Space Age",
      "stopped",
    ]]);
    assert.equal(list[1].port, 34198, "the next free game port after server 1's");
    const root = list[1].dir;
    assert.ok(existsSync(join(root, "saves")) && existsSync(join(root, "mods")));

    // Its saves are its own: a new map made on server 2 is not in server 1's list.
    const made = await c.get("/api/servers/2/saves/create/moon.zip");
    assert.equal(made.status, 200, made.text);
    const names = async (path: string) =>
      ((await c.get(path)).body as { name: string }[]).map((s) => s.name).filter((n) => n !== LOAD_LATEST);
    const saves2 = await names("/api/servers/2/saves/list");
    const saves1 = await names("/api/saves/list");
    assert.deepEqual(saves2, ["moon.zip"]);
    assert.ok(!saves1.includes("moon.zip") && saves1.includes("world.zip"));
    assert.deepEqual((await c.get("/api/servers/1/saves/list")).body, (await c.get("/api/saves/list")).body);

    // Its game runs on its own while server 1 stays stopped, and writes in its own directory.
    const port = await freeUdpPort();
    const start = await c.post("/api/servers/2/server/start", {
      bindip: "127.0.0.1",
      port,
      savefile: LOAD_LATEST,
    });
    assert.equal(start.status, 200, start.text);
    assert.equal(
      ((await c.get("/api/servers/2/server/status")).body as { status: string }).status,
      "running",
    );
    assert.equal(((await c.get("/api/server/status")).body as { status: string }).status, "stopped");
    assert.ok(
      existsSync(join(root, "factorio-current.log")),
      "the game wrote its log in server 2's directory",
    );
    assert.ok(!readdirSync(p.factorio.dir).includes("moon.zip"));
    const stop = await c.get("/api/servers/2/server/stop");
    assert.equal(stop.status, 200, stop.text);
    await waitState(c, 2, "stopped");
  }),
);

Deno.test(
  "a server the caller has no role on is not there for them; unknown ids answer 404",
  withGamePanel(async (p) => {
    const admin = await p.login();
    await addServer(admin, { name: "Event map" });
    const viewer = await userWithRole(p, admin, "vera", "viewer");
    const seen = (await viewer.get("/api/servers")).body as ServerSummary[];
    assert.deepEqual(seen.map((s) => s.id), [1]);
    assert.equal(seen[0].dir, "", "the directory is for admins");
    for (
      const path of ["/api/servers/2/saves/list", "/api/servers/2/server/status", "/api/servers/9/saves/list"]
    ) {
      const r = await viewer.get(path);
      assert.equal(r.status, 404, path);
    }
    const missing = await admin.get("/api/servers/9/saves/list");
    assert.equal(missing.status, 404);
    assert.equal(missing.body, SERVERS_MSG.noSuchServer(9));
    const refused = await viewer.post("/api/servers", { name: "Mine" });
    assert.equal(refused.status, 403);
  }),
);

Deno.test(
  "ports and names that clash are refused, naming the other server or program; nothing is added",
  withGamePanel(async (p) => {
    const c = await p.login();
    await addServer(c, { name: "Main", port: 35000 });
    const clash = await c.post("/api/servers", { name: "Other", port: 35000 });
    assert.equal(clash.status, 409);
    assert.equal(clash.body, SERVERS_MSG.portOfServer(35000, "Main"));
    const held = await holdUdpPort(0);
    const heldPort = (held.address() as { port: number }).port;
    try {
      const r = await c.post("/api/servers", { name: "Other", port: heldPort });
      assert.equal(r.status, 409);
      assert.match(r.body as string, new RegExp(`Port ${heldPort} is held by`));
    } finally {
      held.close();
    }
    const named = await c.post("/api/servers", { name: "main" });
    assert.equal(named.status, 400);
    assert.equal(named.body, SERVERS_MSG.nameTaken("main"));
    assert.equal(((await c.get("/api/servers")).body as ServerSummary[]).length, 2);
  }),
);

Deno.test(
  "deleting a server makes a backup first (kept in server 1's backups) unless declined by typing its name",
  withGamePanel(async (p) => {
    const c = await p.login();
    const a = await addServer(c, { name: "Old map", from: { server: 1 } });
    const b = await addServer(c, { name: "Scratch" });
    const rootA = ((await c.get("/api/servers")).body as ServerSummary[]).find((s) => s.id === a)!.dir;
    assert.ok(existsSync(join(rootA, "saves", "world.zip")), "the copy has server 1's save");

    const first = await c.request("DELETE", "/api/servers/1", { json: {} });
    assert.equal(first.status, 409);
    assert.equal(first.body, SERVERS_MSG.firstServerStays);

    const deleted = await c.request("DELETE", `/api/servers/${a}`, { json: {} });
    assert.equal(deleted.status, 200, deleted.text);
    assert.ok(!existsSync(rootA), "the directory the panel made is gone");
    const backups = (await c.get("/api/backups")).body as { id: string; reason: string }[];
    const kept = backups.find((x) => x.reason === "before-server-delete");
    assert.ok(kept, JSON.stringify(backups));
    assert.equal(deleted.body, SERVERS_MSG.deletedAfterBackup("Old map", kept.id));

    const unconfirmed = await c.request("DELETE", `/api/servers/${b}`, { json: { backup: false } });
    assert.equal(unconfirmed.status, 400);
    assert.equal(unconfirmed.body, SERVERS_MSG.confirmName("Scratch"));
    const gone = await c.request("DELETE", `/api/servers/${b}`, {
      json: { backup: false, confirm: "Scratch" },
    });
    assert.equal(gone.status, 200, gone.text);
    assert.deepEqual(((await c.get("/api/servers")).body as ServerSummary[]).map((s) => s.id), [1]);
    assert.equal((await c.get(`/api/servers/${b}/saves/list`)).status, 404);
  }),
);

Deno.test(
  "/ws: a subscribe names its server, every message carries it, and no server means server 1",
  withGamePanel(async (p) => {
    const c = await p.login();
    await addServer(c, { name: "Second" });
    const s = await TestSocket.connect(c);
    try {
      s.send({ room_name: "", controls: { type: "subscribe", value: "server_status", server: 2 } });
      s.send({ room_name: "", controls: { type: "subscribe", value: "server_status" } });
      const statuses = () => s.messages.filter((x) => x.room_name === "server_status");
      await s.waitFor(() => statuses().length >= 2, "both statuses");
      assert.deepEqual(statuses().map((x) => x.server).sort(), [1, 2]);
    } finally {
      await s.close();
    }
  }),
);

Deno.test(
  "a server's start form offers its own port; a start on a port another server's game holds is refused naming it",
  withGamePanel(async (p) => {
    const c = await p.login();
    const port = await freeUdpPort();
    const id = await addServer(c, { name: "Second", port });
    const status = (await c.get(`/api/servers/${id}/server/status`)).body as {
      last_start: { port: number } | null;
    };
    assert.equal(status.last_start?.port, port);
    const moved = await freeUdpPort();
    const patch = await c.request("PATCH", `/api/servers/${id}`, { json: { port: moved } });
    assert.equal(patch.status, 200, patch.text);
    const after = (await c.get(`/api/servers/${id}/server/status`)).body as { last_start: { port: number } };
    assert.equal(after.last_start.port, moved);

    const first = await c.post("/api/server/start", {
      bindip: "127.0.0.1",
      port: moved,
      savefile: LOAD_LATEST,
    });
    assert.equal(first.status, 200, first.text);
    const clash = await c.post(`/api/servers/${id}/server/start`, {
      bindip: "127.0.0.1",
      port: moved,
      savefile: LOAD_LATEST,
    });
    assert.equal(clash.status, 409);
    assert.equal(clash.body, SERVERS_MSG.portOfServer(moved, "Server 1"));
  }),
);

Deno.test(
  "start-up removes what an interrupted add or delete left: a record without its directory, folders without a record",
  async () => {
    const first = await startPanelWithGame();
    const dataDir = first.dataDir;
    try {
      const c = await first.login();
      await addServer(c, { name: "Kept" });
      new ServerStore(first.ctx.db).insert({
        name: "Half added",
        root: "",
        owned: false,
        port: 40000,
        rconPort: 40001,
        createdAt: 0,
      });
      mkdirSync(join(dataDir, "servers", "77", "factorio"), { recursive: true });
    } finally {
      await first.close({ keepData: true, keepGame: true });
    }
    const again = await startPanelWithGame({ dataDir, factorio: first.factorio });
    try {
      const c = await again.login();
      const list = (await c.get("/api/servers")).body as ServerSummary[];
      assert.deepEqual(list.map((s) => s.name), ["Server 1", "Kept"]);
      assert.ok(!existsSync(join(dataDir, "servers", "77")));
      assert.ok(existsSync(join(dataDir, "servers", String(list[1].id))));
    } finally {
      await again.close();
      rmSync(first.factorio.dir, { recursive: true, force: true });
    }
  },
);

Deno.test(
  "roles per server: an operator of server 2 and viewer of server 1 acts on 2 only; tokens limited to a server; the activity names it",
  withGamePanel(async (p) => {
    const admin = await p.login();
    const id = await addServer(admin, { name: "Event" });
    const olga = await userWithRole(p, admin, "olga", "viewer");
    const set = await admin.post("/api/user/servers", { username: "olga", servers: { [id]: "operator" } });
    assert.equal(set.status, 200, set.text);
    const seen = (await olga.get("/api/servers")).body as ServerSummary[];
    assert.deepEqual(seen.map((s) => [s.id, s.role]), [[1, "viewer"], [id, "operator"]]);
    // Operator on server 2: a new map is made; viewer on server 1: refused.
    assert.equal((await olga.get(`/api/servers/${id}/saves/create/fresh.zip`)).status, 200);
    assert.equal((await olga.get("/api/saves/create/fresh.zip")).status, 403);
    assert.equal((await olga.get("/api/servers/1/saves/create/fresh.zip")).status, 403);
    const log = (await admin.get(`/api/activity?server=${id}`)).body as { action: string; server: number }[];
    assert.ok(
      log.some((e) => e.action.includes("/api/saves/create") && e.server === id),
      JSON.stringify(log),
    );

    // A token of the admin limited to server 2 does not reach server 1.
    const made = await admin.post("/api/user/tokens", { name: "ci", expires_days: 1, servers: [id] });
    assert.equal(made.status, 200, made.text);
    const token = (made.body as { token: string }).token;
    const asToken = (path: string) =>
      fetch(p.url + path, { headers: { Authorization: `Bearer ${token}` } }).then(async (r) => {
        await r.body?.cancel();
        return r.status;
      });
    assert.equal(await asToken(`/api/servers/${id}/saves/list`), 200);
    assert.equal(await asToken("/api/saves/list"), 404);
    assert.equal(await asToken("/api/servers/1/server/status"), 404);
  }),
);

Deno.test(
  "an empty server beside a game installed by hand reads that game's data (the settings' example)",
  withGamePanel(async (p) => {
    const c = await p.login();
    const id = await addServer(c, { name: "Empty" });
    const settings = await c.get(`/api/servers/${id}/settings`);
    assert.equal(settings.status, 200, settings.text);
    const mods = await c.get(`/api/servers/${id}/mods/list`);
    assert.equal(mods.status, 200, mods.text);
    const list = (await c.get("/api/servers")).body as ServerSummary[];
    assert.equal(list[1].version, list[0].version, "the version of the game it shares");
    assert.notEqual(list[1].version, "unknown");
  }),
);
