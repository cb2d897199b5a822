// The error rules of spec section 8, through the real client with fetch answered by a stub server.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError, call, fileUrl, PANEL_HEADER, serverRoutePath, setUnauthorizedHandler } from "./client.ts";
import { current } from "../state/current.ts";
import { contract, isServerRoute } from "../../../shared/contract/index.ts";
import { flash, FLASH_MS } from "../state/flash.ts";
import { MSG, PUSH_MSG } from "../../../shared/messages.ts";
import { connection } from "../state/connection.ts";

/** An answer of the panel itself (it marks every answer with its header). */
function answer(status: number, body: unknown, headers: Record<string, string> = { [PANEL_HEADER]: "1" }) {
  vi.stubGlobal(
    "fetch",
    vi.fn(async () => new Response(body === undefined ? "" : JSON.stringify(body), { status, headers })),
  );
}

describe("api client error rules", () => {
  let lost = 0;
  beforeEach(() => {
    flash.items.splice(0);
    lost = 0;
    setUnauthorizedHandler(() => lost++);
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("502 flashes 'Service not available' in red and passes the error on", async () => {
    answer(502, "Bad Gateway from the proxy");
    await expect(call("GET /api/saves/list")).rejects.toMatchObject({
      status: 502,
      message: MSG.serviceNotAvailable,
    });
    expect(flash.items.map((f) => [f.message, f.color])).toEqual([[MSG.serviceNotAvailable, "error"]]);
  });

  it("a proxy's 502 while the panel is down is no answer: offline, not signed out, no 'Service not available'", async () => {
    for (const status of [502, 503, 504]) {
      flash.items.splice(0);
      answer(status, "<html>Bad Gateway</html>", {});
      await expect(call("GET /api/user/status", {}, { quiet: true })).rejects.toMatchObject({ status: 0 });
      expect(connection.online).toBe(false);
      expect(lost).toBe(0);
      expect(flash.items).toEqual([]);
      // The panel answers again.
      answer(200, { username: "admin" });
      await call("GET /api/user/status");
      expect(connection.online).toBe(true);
    }
  });

  it("401 shows nothing and ends the session", async () => {
    answer(401, "You are not signed in.");
    await expect(call("GET /api/saves/list")).rejects.toBeInstanceOf(ApiError);
    expect(flash.items).toEqual([]);
    expect(lost).toBe(1);
  });

  it("401 on sign-in itself is an answer, not a lost session", async () => {
    answer(401, MSG.loginFailed);
    await expect(call("POST /api/login", { body: { username: "a", password: "b" } }, { expect401: true }))
      .rejects.toMatchObject({ status: 401 });
    expect(lost).toBe(0);
    expect(flash.items).toEqual([]);
  });

  it("any other error status flashes the server's message in red", async () => {
    for (
      const [status, body] of [[400, "Username is required"], [409, "User bob already exists"], [
        423,
        "locked",
      ], [500, "boom"]] as const
    ) {
      flash.items.splice(0);
      answer(status, body);
      const err = (await call("POST /api/server/restart").catch((e: unknown) => e)) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(status);
      expect(flash.items.map((f) => [f.message, f.color])).toEqual([[body, "error"]]);
    }
  });

  it("a body that is not a message still gives a readable flash", async () => {
    answer(500, undefined);
    await call("GET /api/saves/list").catch(() => {});
    expect(flash.items[0].message).toBe("Request failed (HTTP 500)");
  });

  it("quiet calls flash nothing but still fail", async () => {
    answer(500, "boom");
    await expect(call("GET /api/saves/list", {}, { quiet: true })).rejects.toMatchObject({ status: 500 });
    expect(flash.items).toEqual([]);
  });

  it("flashes vanish after 4 seconds", async () => {
    answer(400, "gone soon");
    await call("GET /api/saves/list").catch(() => {});
    expect(flash.items).toHaveLength(1);
    vi.advanceTimersByTime(FLASH_MS - 1);
    expect(flash.items).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(flash.items).toHaveLength(0);
    expect(FLASH_MS).toBe(4000);
  });

  it("no connection at all is status 0: offline, and a request the user made says it needs a connection", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async () => {
        throw new TypeError("Failed to fetch");
      }),
    );
    await expect(call("GET /api/saves/list", {}, { quiet: true })).rejects.toMatchObject({ status: 0 });
    expect(flash.items).toEqual([]);
    expect(connection.online).toBe(false);
    await expect(call("POST /api/server/restart")).rejects.toMatchObject({ status: 0 });
    await expect(call("POST /api/factorio/check")).rejects.toMatchObject({ status: 0 });
    expect(flash.items.map((f) => [f.message, f.color])).toEqual([[PUSH_MSG.needsConnection, "error"]]);
    vi.stubGlobal("fetch", vi.fn(async () => new Response("true")));
    await call("GET /api/saves/list", {}, { quiet: true });
    expect(connection.online).toBe(true);
  });

  it("sends cookies and JSON", async () => {
    const spy = vi.fn(async (_url: string, _init: RequestInit) => new Response("true", { status: 200 }));
    vi.stubGlobal("fetch", spy);
    expect(await call("POST /api/mods/toggle", { body: { name: "a" } })).toBe(true);
    const [url, init] = spy.mock.calls[0];
    expect([url, init.method]).toEqual(["/api/mods/toggle", "POST"]);
    expect(init.credentials).toBe("same-origin");
    expect((init.headers as Record<string, string>)["Content-Type"]).toBe("application/json");
    expect(init.body).toBe('{"name":"a"}');
  });

  it("fills in the route's path parameters and query; a POST without a body sends {}, other methods none", async () => {
    const spy = vi.fn(async (_url: string, _init: RequestInit) => new Response("null", { status: 200 }));
    vi.stubGlobal("fetch", spy);
    await call("GET /api/mods/packs/:pack/updates", { params: { pack: "a b/c?" } });
    await call("GET /api/activity", { query: { user: "olga", action: undefined, limit: 5 } });
    await call("POST /api/backups/:id/delete", { params: { id: "2026-01-01_x" } });
    await call("DELETE /api/factorio/versions/:version", { params: { version: "2.0.72" } });
    expect(spy.mock.calls.map(([url, init]) => [init.method, url, init.body])).toEqual([
      ["GET", "/api/mods/packs/a%20b%2Fc%3F/updates", undefined],
      ["GET", "/api/activity?user=olga&limit=5", undefined],
      ["POST", "/api/backups/2026-01-01_x/delete", "{}"],
      ["DELETE", "/api/factorio/versions/2.0.72", undefined],
    ]);
  });
});

describe("api client: the server a call goes to", () => {
  const asked: string[] = [];
  beforeEach(() => {
    asked.splice(0);
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        asked.push(url);
        return new Response("[]", { status: 200, headers: { [PANEL_HEADER]: "1" } });
      }),
    );
  });
  afterEach(() => {
    current.server = 1;
    vi.unstubAllGlobals();
  });

  it("a route of one server goes to the server shown: /api/R for server 1, /api/servers/N/R for another", async () => {
    await call("GET /api/saves/list");
    current.server = 2;
    await call("GET /api/saves/list");
    await call("GET /api/backups/:id/download", { params: { id: "b 1" } });
    await call("GET /api/settings");
    expect(asked).toEqual([
      "/api/saves/list",
      "/api/servers/2/saves/list",
      "/api/servers/2/backups/b%201/download",
      "/api/servers/2/settings",
    ]);
    expect(fileUrl("GET /api/log/download")).toBe("/api/servers/2/log/download");
  });

  it("a call may name its server (the overview asks each); the panel's own routes have none", async () => {
    current.server = 2;
    await call("GET /api/server/status", { server: 3 });
    await call("GET /api/server/status", { server: 1 });
    await call("GET /api/servers");
    await call("GET /api/user/list");
    await call("GET /api/notifications/channels");
    expect(asked).toEqual([
      "/api/servers/3/server/status",
      "/api/server/status",
      "/api/servers",
      "/api/user/list",
      "/api/notifications/channels",
    ]);
  });

  it("every route the contract serves per server is sent per server, and no other", () => {
    for (const key of Object.keys(contract)) {
      const path = key.slice(key.indexOf(" ") + 1);
      expect(serverRoutePath(path, 7) !== path, key).toBe(isServerRoute(key));
    }
  });
});
