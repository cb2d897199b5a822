import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import { Button } from "@mui/material";
import { MemoryRouter } from "react-router-dom";
import { ReadOnly, ViewerNote } from "./ReadOnly.tsx";
import { Layout } from "./Layout.tsx";
import { session } from "../state/session.ts";
import { VIEWER_NOTE } from "../state/access.ts";
import type { Role } from "../../../shared/api.ts";

function as(role: Role) {
  session.user = { username: role, role, email: "" };
}

describe("what a role may use", () => {
  afterEach(() => {
    cleanup();
    session.user = null;
    vi.unstubAllGlobals();
  });

  it("a viewer's controls are disabled and a note says why; an operator's are not", () => {
    as("viewer");
    const { unmount } = render(
      <>
        <ViewerNote />
        <ReadOnly>
          <Button>Kill Server</Button>
        </ReadOnly>
      </>,
    );
    // A disabled fieldset is what turns the button off in the browser (e2e checks it is disabled there).
    expect(screen.getByRole("button", { name: "Kill Server" }).closest("fieldset")?.disabled).toBe(true);
    expect(screen.getByText(VIEWER_NOTE)).toBeTruthy();
    unmount();
    as("operator");
    render(
      <>
        <ViewerNote />
        <ReadOnly>
          <Button>Kill Server</Button>
        </ReadOnly>
      </>,
    );
    expect(screen.getByRole("button", { name: "Kill Server" }).closest("fieldset")).toBeNull();
    expect(screen.queryByText(VIEWER_NOTE)).toBeNull();
  });

  it("the sidebar shows Users and Activity to admins only, Account to everyone", () => {
    // The layout asks for the servers list: one server.
    vi.stubGlobal("fetch", vi.fn(async () => new Response("[]", { status: 200 })));
    for (const [role, seen] of [["admin", true], ["operator", false], ["viewer", false]] as const) {
      as(role);
      const { unmount } = render(
        <MemoryRouter>
          <Layout />
        </MemoryRouter>,
      );
      const links = screen.getAllByRole("link").map((a) => a.textContent);
      expect(links.includes("Users"), role).toBe(seen);
      expect(links.includes("Activity"), role).toBe(seen);
      expect(links.includes("Account"), role).toBe(true);
      unmount();
    }
    // Three full layouts: generous on a loaded machine.
  }, 30_000);
});
