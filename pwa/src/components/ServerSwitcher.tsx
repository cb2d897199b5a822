// Which server the pages show, when the panel has several: the servers the user sees, the one shown
// marked, each with its state's dot. Choosing one keeps the page (Saves -> the other server's Saves).

import { type MouseEvent, useState } from "react";
import { useLocation, useNavigate } from "react-router-dom";
import { Box, Button, Divider, ListItemIcon, ListItemText, Menu, MenuItem } from "@mui/material";
import UnfoldMoreIcon from "@mui/icons-material/UnfoldMore";
import CheckIcon from "@mui/icons-material/Check";
import { useSnapshot } from "valtio";
import { current, serverPageOf, serverPath } from "../state/current.ts";
import { serverList } from "../state/servers.ts";
import { badgeOf, statuses } from "../state/server.ts";
import { COLORS } from "./StatusBadge.tsx";
import { SERVERS_UI } from "../../../shared/servers.ts";
import type { ServerSummary } from "../../../shared/contract/servers.ts";
import type { ServerState } from "../../../shared/contract/server.ts";

/** A server's state as a dot (its word beside it for screen readers and the tooltip). */
export function StateDot({ state }: { state: ServerState | null }) {
  const label = badgeOf(state ? { status: state } : null);
  const color = COLORS[label];
  return (
    <Box
      component="span"
      role="img"
      aria-label={label}
      title={label}
      data-state={state ?? "unknown"}
      sx={{
        display: "inline-block",
        flexShrink: 0,
        width: 10,
        height: 10,
        borderRadius: "50%",
        bgcolor: color === "default" ? "#6b6b6b" : `${color}.main`,
        boxShadow: "0 0 0 1px #000",
      }}
    />
  );
}

/** A server's state as best known: its live status, else the list's. */
export function useStateOf(): (s: Pick<ServerSummary, "id" | "status">) => ServerState {
  const known = useSnapshot(statuses);
  return (s) => known[s.id]?.status?.status ?? s.status;
}

/** Where choosing server `id` leads from `pathname`: the same page of it, or its Controls. */
export function switchedPath(pathname: string, id: number, several: boolean): string {
  return serverPath(id, serverPageOf(pathname)?.page ?? "/", several);
}

export function ServerSwitcher({ onLeave, admin }: {
  onLeave: (e: MouseEvent, to: string) => void;
  admin: boolean;
}) {
  const { list } = useSnapshot(serverList);
  const { server } = useSnapshot(current);
  const stateOf = useStateOf();
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  if (!list || list.length < 2) return null;
  const shown = list.find((s) => s.id === server);
  const go = (e: MouseEvent, to: string) => {
    setAnchor(null);
    onLeave(e, to);
    if (!e.defaultPrevented) navigate(to);
  };
  return (
    <>
      <Button
        color="inherit"
        variant="outlined"
        size="small"
        onClick={(e) => setAnchor(e.currentTarget)}
        aria-haspopup="menu"
        aria-expanded={anchor !== null}
        aria-label={`${SERVERS_UI.switcherLabel}: ${shown?.name ?? server}`}
        data-testid="server-switcher"
        startIcon={<StateDot state={shown ? stateOf(shown) : null} />}
        endIcon={<UnfoldMoreIcon />}
        sx={{
          justifyContent: "space-between",
          minWidth: 0,
          maxWidth: "100%",
          borderColor: "divider",
          "& .MuiButton-startIcon": { ml: 0 },
        }}
      >
        <Box
          component="span"
          sx={{
            overflow: "hidden",
            textOverflow: "ellipsis",
            whiteSpace: "nowrap",
            flexGrow: 1,
            textAlign: "left",
          }}
        >
          {shown?.name ?? `Server ${server}`}
        </Box>
      </Button>
      <Menu
        anchorEl={anchor}
        open={anchor !== null}
        onClose={() => setAnchor(null)}
        slotProps={{ list: { "aria-label": SERVERS_UI.switcherLabel, dense: false } }}
      >
        {list.map((s) => (
          <MenuItem
            key={s.id}
            selected={s.id === server}
            onClick={(e) => go(e, switchedPath(pathname, s.id, true))}
            sx={{ minHeight: 44, gap: 1.5 }}
          >
            <StateDot state={stateOf(s)} />
            <ListItemText primary={s.name} />
            <ListItemIcon sx={{ minWidth: 24, justifyContent: "flex-end" }}>
              {s.id === server && <CheckIcon fontSize="small" aria-label="Shown" />}
            </ListItemIcon>
          </MenuItem>
        ))}
        <Divider />
        <MenuItem onClick={(e) => go(e, "/servers")} sx={{ minHeight: 44 }}>{SERVERS_UI.allServers}</MenuItem>
        {admin && (
          <MenuItem onClick={(e) => go(e, "/settings/servers")} sx={{ minHeight: 44 }}>
            {SERVERS_UI.manage}
          </MenuItem>
        )}
      </Menu>
    </>
  );
}
