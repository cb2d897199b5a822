// The error rules of spec section 8, through the real client with fetch answered by a stub server.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { api, ApiError, PANEL_HEADER, setUnauthorizedHandler } from "./client.ts";
import { flash, FLASH_MS } from "../state/flash.ts";
import { MSG, PUSH_MSG } from "../../../shared/messages.ts";
import { connection } from "../state/connection.ts";

/** An answer of the panel itself (it marks every answer with its header). */
function answer(status: number, body: unknown, headers: Record<string, string> = { [PANEL_HEADER]: "1" }) {
  vi.stubGlobal("fetch", vi.fn(async () => new Response(body === undefined ? "" : JSON.stringify(body), { status, headers })));
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
    await expect(api.get("/api/x")).rejects.toMatchObject({ status: 502, message: MSG.serviceNotAvailable });
    expect(flash.items.map((f) => [f.message, f.color])).toEqual([[MSG.serviceNotAvailable, "error"]]);
  });

  it("a proxy's 502 while the panel is down is no answer: offline, not signed out, no 'Service not available'", async () => {
    for (const status of [502, 503, 504]) {
      flash.items.splice(0);
      answer(status, "<html>Bad Gateway</html>", {});
      await expect(api.get("/api/user/status", { quiet: true })).rejects.toMatchObject({ status: 0 });
      expect(connection.online).toBe(false);
      expect(lost).toBe(0);
      expect(flash.items).toEqual([]);
      // The panel answers again.
      answer(200, { username: "admin" });
      await api.get("/api/user/status");
      expect(connection.online).toBe(true);
    }
  });

  it("401 shows nothing and ends the session", async () => {
    answer(401, "You are not signed in.");
    await expect(api.get("/api/x")).rejects.toBeInstanceOf(ApiError);
    expect(flash.items).toEqual([]);
    expect(lost).toBe(1);
  });

  it("401 on sign-in itself is an answer, not a lost session", async () => {
    answer(401, MSG.loginFailed);
    await expect(api.post("/api/login", {}, { expect401: true })).rejects.toMatchObject({ status: 401 });
    expect(lost).toBe(0);
    expect(flash.items).toEqual([]);
  });

  it("any other error status flashes the server's message in red", async () => {
    for (const [status, body] of [[400, "Username is required"], [409, "User bob already exists"], [423, "locked"], [500, "boom"]] as const) {
      flash.items.splice(0);
      answer(status, body);
      const err = (await api.post("/api/x", {}).catch((e: unknown) => e)) as ApiError;
      expect(err).toBeInstanceOf(ApiError);
      expect(err.status).toBe(status);
      expect(flash.items.map((f) => [f.message, f.color])).toEqual([[body, "error"]]);
    }
  });

  it("a body that is not a message still gives a readable flash", async () => {
    answer(500, undefined);
    await api.get("/api/x").catch(() => {});
    expect(flash.items[0].message).toBe("Request failed (HTTP 500)");
  });

  it("quiet calls flash nothing but still fail", async () => {
    answer(500, "boom");
    await expect(api.get("/api/x", { quiet: true })).rejects.toMatchObject({ status: 500 });
    expect(flash.items).toEqual([]);
  });

  it("flashes vanish after 4 seconds", async () => {
    answer(400, "gone soon");
    await api.get("/api/x").catch(() => {});
    expect(flash.items).toHaveLength(1);
    vi.advanceTimersByTime(FLASH_MS - 1);
    expect(flash.items).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(flash.items).toHaveLength(0);
    expect(FLASH_MS).toBe(4000);
  });

  it("no connection at all is status 0: offline, and a request the user made says it needs a connection", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => {
      throw new TypeError("Failed to fetch");
    }));
    await expect(api.get("/api/x", { quiet: true })).rejects.toMatchObject({ status: 0 });
    expect(flash.items).toEqual([]);
    expect(connection.online).toBe(false);
    await expect(api.post("/api/x", {})).rejects.toMatchObject({ status: 0 });
    await expect(api.post("/api/y", {})).rejects.toMatchObject({ status: 0 });
    expect(flash.items.map((f) => [f.message, f.color])).toEqual([[PUSH_MSG.needsConnection, "error"]]);
    vi.stubGlobal("fetch", vi.fn(async () => new Response("true")));
    await api.get("/api/x", { quiet: true });
    expect(connection.online).toBe(true);
  });

  it("sends cookies and JSON", async () => {
    const spy = vi.fn(async (_url: string, _init: RequestInit) => new Response("true", { status: 200 }));
    vi.stubGlobal("fetch", spy);
    expect(await api.post("/api/y", { a: 1 })).toBe(true);
    const init = spy.mock.calls[0][1];
    expect(init.credentials).toBe("same-origin");
    expect((init.headers as Record<string, string>)["Content-Type"]).toBe("application/json");
    expect(init.body).toBe('{"a":1}');
  });
});
