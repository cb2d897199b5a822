import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { Channels } from "./Channels.tsx";
import { QuietHoursLine } from "./QuietHours.tsx";
import { flash } from "../../state/flash.ts";
import type { AlertChannel } from "../../../../shared/alerts.ts";
import { CHANNEL_MSG } from "../../../../shared/messages.ts";
import type { PushDevice } from "../../../../shared/api.ts";
import { ONE_SERVER } from "./Servers.tsx";

const DISCORD: AlertChannel = {
  id: 1,
  type: "discord",
  name: "Friends",
  url: "https://discord.com/api/webhooks/1/tok••••",
  events: ["crashed"],
  servers: null,
  enabled: true,
  created_at: "2026-01-01T00:00:00.000Z",
  last_delivery_at: "2026-01-02T00:00:00.000Z",
  last_result: "HTTP 429: slow down (will retry)",
  last_ok: false,
};

describe("Channels", () => {
  let calls: [string, unknown][];
  let channels: AlertChannel[];
  beforeEach(() => {
    flash.items.splice(0);
    calls = [];
    channels = [DISCORD];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init?: RequestInit) => {
        const body = init?.body ? JSON.parse(String(init.body)) : undefined;
        calls.push([url, body]);
        if (url === "/api/notifications/channels" && init?.method === "POST") {
          const created = {
            ...DISCORD,
            id: 2,
            type: body.type,
            name: body.name,
            url: "https://example.org/hook/a••••",
            events: body.events,
            servers: body.servers,
            last_delivery_at: null,
            last_result: null,
            last_ok: null,
          };
          channels = [...channels, created];
          return new Response(JSON.stringify({ ...created, secret: "s3cr3t-shown-once" }));
        }
        if (url === "/api/notifications/channels/1/test") {
          return new Response(
            JSON.stringify({ ok: true, status: 204, message: "Sent to Friends (answered HTTP 204)." }),
          );
        }
        return new Response(JSON.stringify(channels));
      }),
    );
  });
  afterEach(() => vi.unstubAllGlobals());

  it(
    "lists channels with their last result, tests one, adds a webhook and shows its secret once",
    async () => {
      render(<Channels servers={ONE_SERVER} />);
      const row = await screen.findByRole("listitem", { name: "Friends" }, { timeout: 20_000 });
      expect(within(row).getByText(/HTTP 429: slow down/)).toBeTruthy();
      fireEvent.click(within(row).getByRole("button", { name: "Send test to Friends" }));
      await waitFor(() =>
        expect(flash.items.map((f) => f.message)).toContain("Sent to Friends (answered HTTP 204).")
      );

      fireEvent.click(screen.getByRole("button", { name: "Add channel" }));
      const dialog = await screen.findByRole("dialog", { name: "Add channel" });
      fireEvent.mouseDown(within(dialog).getByRole("combobox", { name: "Type" }));
      fireEvent.click(await screen.findByRole("option", { name: "JSON webhook (signed)" }));
      fireEvent.change(within(dialog).getByLabelText("Name"), { target: { value: "Script" } });
      fireEvent.change(within(dialog).getByLabelText("Webhook URL"), {
        target: { value: " https://example.org/hook/abc " },
      });
      fireEvent.click(within(dialog).getByRole("checkbox", { name: "Player joined" }));
      fireEvent.click(within(dialog).getByRole("button", { name: "Add" }));
      const secret = await screen.findByTestId("webhook-secret", {}, { timeout: 10_000 });
      expect((secret as HTMLInputElement).value).toBe("s3cr3t-shown-once");
      const sent = calls.find(([u, b]) => u === "/api/notifications/channels" && b)?.[1] as Record<
        string,
        unknown
      >;
      expect(sent.type).toBe("webhook");
      expect(sent.url).toBe("https://example.org/hook/abc");
      expect(sent.events).toContain("player-joined");
      expect(sent.events).toContain("crashed");
      expect(sent.servers).toBe(null);
      expect(screen.queryByText(/^Servers/)).toBeNull();
    },
    60_000,
  );

  it("with two servers, a channel chooses its servers and its row says which", async () => {
    const servers = [{ id: 1, name: "Main map" }, { id: 2, name: "Space map" }];
    render(<Channels servers={servers} />);
    const row = await screen.findByRole("listitem", { name: "Friends" }, { timeout: 20_000 });
    expect(within(row).getByText("Servers: All servers")).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Add channel" }));
    const dialog = await screen.findByRole("dialog", { name: "Add channel" });
    fireEvent.change(within(dialog).getByLabelText("Name"), { target: { value: "Space" } });
    fireEvent.change(within(dialog).getByLabelText("Webhook URL"), {
      target: { value: "https://discord.com/api/webhooks/2/y" },
    });
    const group = within(dialog).getByRole("group", { name: "Servers of the channel" });
    const main = within(group).getByRole("checkbox", { name: "Main map" }) as HTMLInputElement;
    expect([main.checked, main.disabled]).toEqual([true, true]);
    fireEvent.click(within(group).getByRole("checkbox", { name: "All servers" }));
    fireEvent.click(within(group).getByRole("checkbox", { name: "Main map" }));
    fireEvent.click(within(dialog).getByRole("button", { name: "Add" }));
    // The double answers every new channel with a secret, as for a webhook: closed first.
    fireEvent.click(await screen.findByRole("button", { name: "Done" }, { timeout: 10_000 }));
    const added = await screen.findByRole("listitem", { name: "Space" }, { timeout: 10_000 });
    const sent = calls.find(([u, b]) => u === "/api/notifications/channels" && b)?.[1] as Record<
      string,
      unknown
    >;
    expect(sent.servers).toEqual([2]);
    expect(within(added).getByText("Servers: Space map")).toBeTruthy();
  }, 60_000);

  it("the form refuses what the server refuses, in the server's words, before anything is sent", async () => {
    render(<Channels servers={ONE_SERVER} />);
    await screen.findByRole("listitem", { name: "Friends" }, { timeout: 20_000 });
    fireEvent.click(screen.getByRole("button", { name: "Add channel" }));
    const dialog = await screen.findByRole("dialog", { name: "Add channel" });
    fireEvent.change(within(dialog).getByLabelText("Name"), { target: { value: "Ops\u202Edrocsid" } });
    fireEvent.change(within(dialog).getByLabelText("Webhook URL"), {
      target: { value: "file:///etc/passwd" },
    });
    expect(
      within(dialog).getByText(
        "A channel name must be one line without control or text-direction characters.",
      ),
    ).toBeTruthy();
    expect(within(dialog).getByText(CHANNEL_MSG.urlInvalid)).toBeTruthy();
    const add = within(dialog).getByRole("button", { name: "Add" }) as HTMLButtonElement;
    expect(add.disabled).toBe(true);
    fireEvent.change(within(dialog).getByLabelText("Name"), { target: { value: "Ops" } });
    fireEvent.change(within(dialog).getByLabelText("Webhook URL"), {
      target: { value: "https://discord.com/api/webhooks/1/x" },
    });
    expect(within(dialog).queryByText(CHANNEL_MSG.urlInvalid)).toBeNull();
    expect(add.disabled).toBe(false);
    expect(calls.some(([u, b]) => u === "/api/notifications/channels" && b)).toBe(false);
  }, 60_000);

  it("quiet hours are sent with the device's time zone", async () => {
    const device: PushDevice = {
      id: 7,
      name: "Phone",
      endpoint: "https://push.example/x",
      events: ["crashed"],
      servers: null,
      created_at: "2026-01-01T00:00:00.000Z",
      last_success_at: null,
      last_error: null,
      quiet_hours: null,
    };
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init?: RequestInit) => {
        const body = init?.body ? JSON.parse(String(init.body)) : {};
        calls.push([url, body]);
        return new Response(JSON.stringify({ ...device, quiet_hours: body.quiet_hours ?? null }));
      }),
    );
    const changed: PushDevice[] = [];
    render(<QuietHoursLine device={device} onChanged={(d) => changed.push(d)} />);
    fireEvent.click(screen.getByRole("button", { name: "Quiet hours of Phone" }));
    const dialog = await screen.findByRole("dialog", { name: "Quiet hours for Phone" });
    fireEvent.change(within(dialog).getByLabelText("From"), { target: { value: "23:00" } });
    fireEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(changed.length).toBe(1));
    const [url, body] = calls.at(-1)!;
    expect(url).toBe("/api/push/devices/7");
    expect(body).toEqual({
      quiet_hours: { start: "23:00", end: "07:00", tz: Intl.DateTimeFormat().resolvedOptions().timeZone },
    });
  }, 60_000);
});
