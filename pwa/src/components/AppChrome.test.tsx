import { describe, expect, it } from "vitest";
import { confirmedAt, offlineText } from "./AppChrome.tsx";
import type { ServerStatus } from "../../../shared/api.ts";

describe("the offline banner", () => {
  it("says the last known status and when it was confirmed", () => {
    const at = new Date();
    at.setHours(12, 3, 0, 0);
    const lastKnown = { status: { status: "running" } as ServerStatus, at: at.toISOString() };
    expect(offlineText(lastKnown)).toBe("Offline - last known: Running, 12:03");
    expect(offlineText({ ...lastKnown, status: { status: "stopping" } as ServerStatus })).toBe(
      "Offline - last known: Stopping, 12:03",
    );
    expect(offlineText(null)).toBe("Offline - no server status seen yet");
  });

  it("adds the date when it was not today", () => {
    const then = new Date(2024, 4, 1, 9, 7);
    expect(confirmedAt(then.toISOString(), new Date(2024, 4, 2, 10, 0))).toBe("2024-05-01 09:07");
  });
});
