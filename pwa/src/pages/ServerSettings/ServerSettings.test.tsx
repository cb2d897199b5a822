import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import ServerSettings from "./ServerSettings.tsx";
import { buildBody, initialValues, layout } from "./form.ts";
import { flash } from "../../state/flash.ts";
import { server } from "../../state/server.ts";
import { MSG, PANEL_MSG } from "../../../../shared/messages.ts";
import { SECRET_MASK, type Settings } from "../../../../shared/settings.ts";
import example from "../../../../tests/fake-factorio/data/server-settings.example.json";

/** What GET /api/settings answers for the game's 2.0 example, with a stored game password. */
function answer(): Settings {
  const out: Settings = {};
  for (const [k, v] of Object.entries(example as Settings)) {
    out[k] = k === "game_password" ? SECRET_MASK : v;
    if (k === "tags") {
      out._comment_admins = "Players with admin rights.";
      out.admins = ["boss"];
    }
  }
  return out;
}

describe("the settings form model", () => {
  it("gives each key the input of its type, with its comment as help, and orphan comments as notes", () => {
    const items = layout(answer());
    const fields = Object.fromEntries(
      items.flatMap((i) => (i.type === "field" ? [[i.field.key, i.field]] : [])),
    );
    expect(fields.max_players).toMatchObject({ kind: "number", label: "max players" });
    expect(fields.max_players.help).toEqual([(example as Settings)._comment_max_players]);
    expect(fields.tags.kind).toBe("list");
    expect(fields.admins.kind).toBe("list");
    expect(fields.visibility.kind).toBe("flags");
    expect(fields.visibility.help).toHaveLength(2);
    expect(fields.password.kind).toBe("secret");
    expect(fields.token.kind).toBe("secret");
    expect(fields.game_password.kind).toBe("secret");
    expect(fields.allow_commands.kind).toBe("select");
    expect(fields.auto_pause.kind).toBe("bool");
    expect(fields.name.kind).toBe("text");
    expect(Object.keys(fields).some((k) => k.startsWith("_comment_"))).toBe(false);
    const notes = items.filter((i) => i.type === "note").map((i) => (i.type === "note" ? i.key : ""));
    expect(notes).toEqual(["_comment_credentials", "_comment_segment_sizes"]);
  });

  it("an untouched form sends the same object back, without the admin list", () => {
    const loaded = answer();
    const { body, errors } = buildBody(loaded, initialValues(loaded));
    expect(errors).toEqual({});
    const { admins: _a, ...rest } = loaded;
    expect(body).toEqual(rest);
    expect(Object.keys(body)).toEqual(Object.keys(rest));
  });

  it("converts the inputs as the spec says, and names each refused key", () => {
    const loaded = answer();
    const values = {
      ...initialValues(loaded),
      tags: " a, b ,, c ",
      admins: "boss, helper",
      max_players: "12",
      visibility: { public: false, lan: true },
    };
    expect(buildBody(loaded, values).body).toMatchObject({
      tags: ["a", "b", "c"],
      admins: ["boss", "helper"],
      max_players: 12,
      visibility: { public: false, lan: true },
    });
    const bad = buildBody(loaded, {
      ...values,
      max_players: "1.5",
      autosave_slots: "",
      max_heartbeats_per_second: "300",
      admins: "boss, two words",
    }).errors;
    expect(bad).toEqual({
      max_players: "max_players must be a whole number, 0 or more.",
      autosave_slots: "autosave_slots must be a whole number, 0 or more.",
      max_heartbeats_per_second: "max_heartbeats_per_second must be a whole number from 6 to 240.",
      admins: 'admins: "two words" is not a Factorio player name (letters, digits, _ - and . only).',
    });
  });
});

describe("Server Settings page", () => {
  let posted: unknown[];
  beforeEach(() => {
    flash.items.splice(0);
    posted = [];
    server.status = null;
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init?: RequestInit) => {
        if (url === "/api/settings") return new Response(JSON.stringify(answer()));
        if (url === "/api/settings/update") {
          posted.push(JSON.parse(String(init?.body)));
          return new Response(JSON.stringify("Settings successfully saved"));
        }
        return new Response(JSON.stringify("no"), { status: 404 });
      }),
    );
  });
  afterEach(() => vi.unstubAllGlobals());

  it("saves the edited form and flashes the spec's text", async () => {
    render(<ServerSettings />);
    const form = await screen.findByRole("form", { name: "Server Settings" });
    expect(screen.queryByText(PANEL_MSG.settingsApplyAtNextStart)).toBeNull();
    fireEvent.change(within(form).getByLabelText("max players"), { target: { value: "4" } });
    fireEvent.click(within(form).getByRole("checkbox", { name: "lan" }));
    fireEvent.click(within(form).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(flash.items.map((f) => f.message)).toEqual([MSG.settingsSaved]));
    expect(posted).toHaveLength(1);
    expect(posted[0]).toMatchObject({
      max_players: 4,
      visibility: { public: true, lan: false },
      game_password: SECRET_MASK,
    });
    expect((posted[0] as Settings)._comment_max_players).toBe((example as Settings)._comment_max_players);
  });

  it("shows a refused value beside its field and sends nothing", async () => {
    render(<ServerSettings />);
    const form = await screen.findByRole("form", { name: "Server Settings" });
    fireEvent.change(within(form).getByLabelText("max heartbeats per second"), { target: { value: "5" } });
    fireEvent.click(within(form).getByRole("button", { name: "Save" }));
    expect(await within(form).findByText("max_heartbeats_per_second must be a whole number from 6 to 240."))
      .toBeTruthy();
    expect(posted).toHaveLength(0);
  });

  it("the show/hide toggle reveals only the mask, and says a secret is stored", async () => {
    render(<ServerSettings />);
    const form = await screen.findByRole("form", { name: "Server Settings" });
    const input = within(form).getByLabelText("game password") as HTMLInputElement;
    expect(input.type).toBe("password");
    expect(input.value).toBe(SECRET_MASK);
    expect(within(form).getByText(/A value is stored\./)).toBeTruthy();
    fireEvent.click(within(form).getByRole("button", { name: "Show game password" }));
    expect(input.type).toBe("text");
  });

  it("says that changes apply at the next start while the game runs", async () => {
    server.status = { status: "running" } as typeof server.status;
    render(<ServerSettings />);
    expect(await screen.findByText(PANEL_MSG.settingsApplyAtNextStart)).toBeTruthy();
  });
});
