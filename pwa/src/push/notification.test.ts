import { describe, expect, it } from "vitest";
import { notificationFor, pickWindow, safeAppPath } from "./notification.ts";

describe("what the service worker shows for a push", () => {
  it("uses the payload's title, body, tag and page", () => {
    const n = notificationFor(JSON.stringify({
      kind: "crashed",
      title: "Factorio server crashed",
      body: "Exit code 1.",
      tag: "factorio-server-crash",
      url: "/",
      at: "2024-05-01T12:03:00.000Z",
    }));
    expect(n.title).toBe("Factorio server crashed");
    expect(n.options).toMatchObject({
      body: "Exit code 1.",
      tag: "factorio-server-crash",
      renotify: true,
      data: { url: "/" },
    });
    expect(n.options.timestamp).toBe(Date.parse("2024-05-01T12:03:00.000Z"));
  });

  it("still shows something readable for text or broken data", () => {
    expect(notificationFor("hello")).toMatchObject({
      title: "Factorio Panel",
      options: { body: "hello", data: { url: "/" } },
    });
    expect(notificationFor("{broken")).toMatchObject({
      title: "Factorio Panel",
      options: { body: "{broken" },
    });
    expect(notificationFor(null)).toMatchObject({
      title: "Factorio Panel",
      options: { body: "", tag: "factorio-panel" },
    });
  });

  it("never opens another site", () => {
    for (
      const bad of [
        "https://evil.example/",
        "//evil.example/x",
        "/\\evil.example",
        "javascript:alert(1)",
        42,
        null,
      ]
    ) {
      expect(safeAppPath(bad)).toBe("/");
    }
    expect(safeAppPath("/console")).toBe("/console");
    expect(notificationFor(JSON.stringify({ url: "https://evil.example" })).options.data.url).toBe("/");
  });

  it("a click focuses the panel's focused or visible window before others, and ignores other sites", () => {
    const origin = "https://panel.example";
    const w = (url: string, extra: object = {}) => ({ url, ...extra });
    expect(pickWindow([w("https://other.example/"), w(`${origin}/saves`)], origin)?.url).toBe(
      `${origin}/saves`,
    );
    expect(pickWindow([w(`${origin}/a`), w(`${origin}/b`, { visibilityState: "visible" })], origin)?.url)
      .toBe(`${origin}/b`);
    expect(
      pickWindow(
        [w(`${origin}/a`, { visibilityState: "visible" }), w(`${origin}/b`, { focused: true })],
        origin,
      )?.url,
    ).toBe(`${origin}/b`);
    expect(pickWindow([w("https://other.example/")], origin)).toBeUndefined();
  });
});
