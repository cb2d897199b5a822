import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { act, fireEvent, render, screen } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { RequireAuth } from "./RequireAuth.tsx";
import Login from "../pages/Login/Login.tsx";
import { secondFactorAdded, session, signedOut } from "../state/session.ts";

function App({ start }: { start: string }) {
  return (
    <MemoryRouter initialEntries={[start]}>
      <Routes>
        <Route path="/login" element={<Login />} />
        <Route
          path="/"
          element={
            <RequireAuth>
              <p>controls page</p>
            </RequireAuth>
          }
        />
        <Route
          path="/mods"
          element={
            <RequireAuth>
              <p>mods page</p>
            </RequireAuth>
          }
        />
        <Route
          path="/account"
          element={
            <RequireAuth>
              <p>account page</p>
            </RequireAuth>
          }
        />
      </Routes>
    </MemoryRouter>
  );
}

describe("route guard", () => {
  beforeEach(() => {
    session.state = "signedOut";
    session.user = null;
    session.endedBy = null;
    vi.stubGlobal(
      "WebSocket",
      class {
        close() {}
      },
    );
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        if (url === "/api/login") {
          return new Response(JSON.stringify({ username: "admin", role: "admin", email: "" }));
        }
        return new Response(JSON.stringify("not here"), { status: 404 });
      }),
    );
  });
  afterEach(() => vi.unstubAllGlobals());

  it("sends a signed-out visitor to the login form and back to the page they asked for", async () => {
    render(<App start="/mods?tab=upload" />);
    expect(await screen.findByRole("button", { name: "Sign In" })).toBeTruthy();
    expect(screen.queryByText("mods page")).toBeNull();
    fireEvent.change(screen.getByLabelText("Username"), { target: { value: "admin" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "pw" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign In" }));
    expect(await screen.findByText("mods page")).toBeTruthy();
  });

  it("remembers the location across a reload of the login page", async () => {
    render(<App start="/mods" />);
    await screen.findByRole("button", { name: "Sign In" });
    expect(sessionStorage.getItem("panel.returnTo")).toBe("/mods");
  });

  it("waits while the session is unknown instead of bouncing to login", () => {
    session.state = "unknown";
    render(<App start="/mods" />);
    expect(screen.getByLabelText("Loading")).toBeTruthy();
    expect(screen.queryByRole("button", { name: "Sign In" })).toBeNull();
  });

  it("a lost session (401) goes to login and remembers the page; a logout does not", async () => {
    session.state = "signedIn";
    session.user = { username: "admin", role: "admin", email: "" };
    const { unmount } = render(<App start="/mods" />);
    expect(screen.getByText("mods page")).toBeTruthy();
    act(() => signedOut("lost"));
    expect(await screen.findByRole("button", { name: "Sign In" })).toBeTruthy();
    expect(sessionStorage.getItem("panel.returnTo")).toBe("/mods");
    unmount();
    sessionStorage.clear();

    session.state = "signedIn";
    render(<App start="/mods" />);
    act(() => signedOut("logout"));
    expect(await screen.findByRole("button", { name: "Sign In" })).toBeTruthy();
    expect(sessionStorage.getItem("panel.returnTo")).toBeNull();
  });

  it("an admin held at Account until a second factor is set up goes on at once after setting one up", async () => {
    // The session re-read after enrolling has not answered yet (it never does here).
    vi.stubGlobal("fetch", vi.fn(() => new Promise<Response>(() => {})));
    session.state = "signedIn";
    session.user = { username: "admin", role: "admin", email: "", must_enrol: true };
    const { unmount } = render(<App start="/mods" />);
    expect(await screen.findByText("account page")).toBeTruthy();
    unmount();
    act(() => secondFactorAdded());
    expect(session.user?.must_enrol).toBe(false);
    render(<App start="/mods" />);
    expect(await screen.findByText("mods page")).toBeTruthy();
  });
});
