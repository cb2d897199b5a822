import { Chip } from "@mui/material";
import { useSnapshot } from "valtio";
import { badgeOf, server } from "../state/server.ts";

const COLORS = { Running: "success", Stopped: "error", Unknown: "default" } as const;

/** Running (green), Stopped (red), otherwise Unknown (grey), as the spec's sidebar shows it. */
export function StatusBadge() {
  const { status } = useSnapshot(server);
  const label = badgeOf(status);
  const detail = status && label === "Unknown" ? ` (${status.status})` : "";
  return (
    <Chip
      size="small"
      label={label}
      color={COLORS[label]}
      title={`Server status: ${label}${detail}`}
      data-testid="status-badge"
      sx={label === "Unknown" ? { bgcolor: "#6b6b6b", color: "#f2f2f2" } : undefined}
    />
  );
}
