import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Profiler } from "react";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { PanelRouter } from "../../App.tsx";
import Login from "./Login.tsx";
import { flash } from "../../state/flash.ts";
import { session } from "../../state/session.ts";
import { MSG } from "../../../../shared/messages.ts";

function renderLogin() {
  return render(
    <MemoryRouter initialEntries={["/login"]}>
      <Routes>
        <Route path="/login" element={<Login />} />
        <Route path="/" element={<p>home page</p>} />
      </Routes>
    </MemoryRouter>,
  );
}

describe("Login form", () => {
  let fetchSpy: ReturnType<typeof vi.fn>;
  beforeEach(() => {
    flash.items.splice(0);
    session.state = "signedOut";
    session.user = null;
    fetchSpy = vi.fn(async () => new Response(JSON.stringify(MSG.loginFailed), { status: 401 }));
    vi.stubGlobal("fetch", fetchSpy);
    vi.stubGlobal(
      "WebSocket",
      class {
        close() {}
      },
    );
  });
  afterEach(() => vi.unstubAllGlobals());

  it("says both fields are required and sends nothing", async () => {
    renderLogin();
    fireEvent.click(screen.getByRole("button", { name: "Sign In" }));
    expect(await screen.findByText(MSG.usernameRequired)).toBeTruthy();
    expect(screen.getByText(MSG.passwordRequired)).toBeTruthy();
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("asks only for what is missing", async () => {
    renderLogin();
    fireEvent.change(screen.getByLabelText("Username"), { target: { value: "admin" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign In" }));
    expect(await screen.findByText(MSG.passwordRequired)).toBeTruthy();
    expect(screen.queryByText(MSG.usernameRequired)).toBeNull();
    expect(fetchSpy).not.toHaveBeenCalled();
  });

  it("a whitespace-only username is not a username", async () => {
    renderLogin();
    fireEvent.change(screen.getByLabelText("Username"), { target: { value: "   " } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "x" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign In" }));
    expect(await screen.findByText(MSG.usernameRequired)).toBeTruthy();
  });

  it("a refused sign-in flashes the spec's failure text in red", async () => {
    renderLogin();
    fireEvent.change(screen.getByLabelText("Username"), { target: { value: "admin" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "wrong" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign In" }));
    await waitFor(() =>
      expect(flash.items.map((f) => [f.message, f.color])).toEqual([[MSG.loginFailed, "error"]])
    );
    expect(session.state).toBe("signedOut");
    expect(JSON.parse(fetchSpy.mock.calls[0][1].body)).toEqual({ username: "admin", password: "wrong" });
  });

  it("a second factor: the code step follows the password, and a wrong code says so in place", async () => {
    const answers = [
      new Response(JSON.stringify({ second_factor: true, methods: ["totp", "recovery"] })),
      new Response(JSON.stringify("The code is wrong or was already used."), { status: 401 }),
      new Response(JSON.stringify({ username: "admin", role: "admin", email: "" })),
    ];
    fetchSpy.mockImplementation(async (_url: string, init?: RequestInit) =>
      init?.method === "POST" ? answers.shift()! : new Response("null")
    );
    renderLogin();
    fireEvent.change(screen.getByLabelText("Username"), { target: { value: "admin" } });
    fireEvent.change(screen.getByLabelText("Password"), { target: { value: "right" } });
    fireEvent.click(screen.getByRole("button", { name: "Sign In" }));
    const code = await screen.findByLabelText("Code from your authenticator app");
    expect(session.state).toBe("signedOut");
    fireEvent.change(code, { target: { value: "123456" } });
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByText("The code is wrong or was already used.")).toBeTruthy();
    expect(session.state).toBe("signedOut");
    fireEvent.click(screen.getByRole("button", { name: "Use a recovery code" }));
    fireEvent.change(screen.getByLabelText("Recovery code"), { target: { value: "abcde-fghjk" } });
    fireEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByText("home page")).toBeTruthy();
    const posts = fetchSpy.mock.calls.filter((c) => c[1]?.method === "POST");
    expect(posts.map((c) => [c[0], JSON.parse(c[1].body)])).toEqual([
      ["/api/login", { username: "admin", password: "right" }],
      ["/api/login/second-factor", { code: "123456" }],
      ["/api/login/second-factor", { recovery_code: "abcde-fghjk" }],
    ]);
  });

  for (const secondStep of [false, true]) {
    it(`once signed in${secondStep ? " by the second step" : ""}, the next frame is the page it lands on: no form is rendered again first`, async () => {
      const user = new Response(JSON.stringify({ username: "admin", role: "admin", email: "" }));
      const answers = secondStep
        ? [new Response(JSON.stringify({ second_factor: true, methods: ["totp"] })), user]
        : [user];
      fetchSpy.mockImplementation(async (_url: string, init?: RequestInit) =>
        init?.method === "POST" ? answers.shift()! : new Response("null")
      );
      history.replaceState(null, "", "/login");
      // Each commit: was a form on the page while the session was already signed in?
      const formWhileSignedIn: boolean[] = [];
      render(
        <PanelRouter>
          <Profiler
            id="app"
            onRender={() =>
              formWhileSignedIn.push(session.state === "signedIn" && !!document.querySelector("form"))}
          >
            <Routes>
              <Route path="/login" element={<Login />} />
              <Route path="/" element={<p>home page</p>} />
            </Routes>
          </Profiler>
        </PanelRouter>,
      );
      fireEvent.change(screen.getByLabelText("Username"), { target: { value: "admin" } });
      fireEvent.change(screen.getByLabelText("Password"), { target: { value: "right" } });
      fireEvent.click(screen.getByRole("button", { name: "Sign In" }));
      if (secondStep) {
        fireEvent.change(await screen.findByLabelText("Code from your authenticator app"), {
          target: { value: "123456" },
        });
        fireEvent.click(screen.getByRole("button", { name: "Verify" }));
      }
      expect(await screen.findByText("home page")).toBeTruthy();
      expect(location.pathname).toBe("/");
      expect(formWhileSignedIn).not.toContain(true);
    });
  }
});
