import { Chip } from "@mui/material";
import { useSnapshot } from "valtio";
import { type BadgeLabel, badgeOf, type LastKnown, server, shownStatus } from "../state/server.ts";
import { connection } from "../state/connection.ts";
import type { ServerStatus } from "../../../shared/api.ts";

export const COLORS: Record<BadgeLabel, "success" | "error" | "warning" | "default"> = {
  Running: "success",
  Stopped: "error",
  Starting: "warning",
  Stopping: "warning",
  Unknown: "default",
};

/** The server's state for the sidebar; offline, the last confirmed one, dashed to say it may be stale. */
export function StatusBadge() {
  const snap = useSnapshot(server);
  const { online } = useSnapshot(connection);
  const { status, confirmedAt } = shownStatus(
    snap.status as ServerStatus | null,
    snap.lastKnown as LastKnown | null,
    online,
  );
  const label = badgeOf(status);
  const stale = confirmedAt !== null;
  return (
    <Chip
      size="small"
      label={label}
      color={COLORS[label]}
      variant={stale ? "outlined" : "filled"}
      title={stale
        ? `Server status: ${label} (last known; the panel is not answering)`
        : `Server status: ${label}`}
      aria-label={stale ? `Server status: ${label}, last known` : `Server status: ${label}`}
      data-testid="status-badge"
      data-stale={stale || undefined}
      sx={label === "Unknown"
        ? { bgcolor: "#6b6b6b", color: "#f2f2f2" }
        : stale
        ? { borderStyle: "dashed" }
        : undefined}
    />
  );
}
