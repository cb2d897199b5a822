import { afterEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { HttpsNote } from "./HttpsNote.tsx";
import { session } from "../../state/session.ts";

function show(secure: boolean, role: "admin" | "viewer") {
  vi.stubGlobal("isSecureContext", secure);
  session.user = { username: "u", role, email: "" };
  return render(
    <MemoryRouter>
      <HttpsNote />
    </MemoryRouter>,
  );
}

describe("HttpsNote", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    session.user = null;
    localStorage.clear();
  });

  it("on plain HTTP from another device: why the app cannot be installed, and for an admin the way to Settings > HTTPS", () => {
    show(false, "admin");
    expect(screen.getByText("This browser cannot install the panel as an app or get its alerts"))
      .toBeTruthy();
    expect(screen.getByRole("link", { name: "Set up HTTPS" }).getAttribute("href")).toBe("/settings/https");
  });

  it("a user who is not an admin is told who can set it up, without the link", () => {
    show(false, "viewer");
    expect(screen.getByText(/An admin can set up HTTPS under Settings, HTTPS\./)).toBeTruthy();
    expect(screen.queryByRole("link", { name: "Set up HTTPS" })).toBeNull();
  });

  it("nothing over HTTPS or on localhost (a secure context), nor once closed in this browser", () => {
    const { unmount } = show(true, "admin");
    expect(screen.queryByTestId("https-note")).toBeNull();
    unmount();
    const again = show(false, "admin");
    fireEvent.click(screen.getByRole("button", { name: "Close" }));
    expect(screen.queryByTestId("https-note")).toBeNull();
    again.unmount();
    show(false, "admin");
    expect(screen.queryByTestId("https-note")).toBeNull();
  });
});
