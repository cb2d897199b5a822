// The installed app starting without a connection: it must open as the user last signed in here (with
// the last known status), not bounce to a login form it cannot submit; and check for real once the
// panel answers again.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { checkSession, logout, rememberedUser, session } from "./session.ts";
import { connection } from "./connection.ts";
import { server } from "./server.ts";

const admin = { username: "admin", role: "admin" as const, email: "" };
let online = false;
let sessionValid = true;

describe("session without a connection", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    session.state = "unknown";
    session.user = null;
    online = false;
    sessionValid = true;
    // A socket that never connects (the status then comes from the refetch).
    vi.stubGlobal(
      "WebSocket",
      class {
        static OPEN = 1;
        readyState = 0;
        close() {}
      },
    );
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        if (!online) throw new TypeError("Failed to fetch");
        if (url === "/api/user/status") {
          return sessionValid
            ? new Response(JSON.stringify(admin))
            : new Response(JSON.stringify("You are not signed in."), { status: 401 });
        }
        if (url === "/api/server/status") return new Response(JSON.stringify({ status: "running" }));
        return new Response(JSON.stringify(true));
      }),
    );
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
    connection.online = true;
  });

  it("opens signed in as the remembered user, then checks the session when the panel answers again", async () => {
    online = true;
    await checkSession();
    expect(rememberedUser()).toEqual(admin);

    session.state = "unknown"; // a fresh start of the app, offline
    online = false;
    await checkSession();
    expect(session.state).toBe("signedIn");
    expect(session.user).toEqual(admin);
    expect(connection.online).toBe(false);

    online = true;
    await vi.advanceTimersByTimeAsync(5000); // the probe
    expect(connection.online).toBe(true);
    await vi.waitFor(() => expect(server.status?.status).toBe("running"));
    expect(session.state).toBe("signedIn");
  });

  it("a session that ended while offline goes to login once the panel answers", async () => {
    online = true;
    await checkSession();
    session.state = "unknown";
    online = false;
    await checkSession();
    expect(session.state).toBe("signedIn");
    sessionValid = false;
    online = true;
    await vi.advanceTimersByTimeAsync(5000);
    await vi.waitFor(() => expect(session.state).toBe("signedOut"));
    expect(rememberedUser()).toBeNull();
  });

  it("with nobody remembered an offline start shows the login form", async () => {
    await checkSession();
    expect(session.state).toBe("signedOut");
  });

  it("a logout forgets the user", async () => {
    online = true;
    await checkSession();
    await logout();
    expect(rememberedUser()).toBeNull();
  });
});
