// The signed-in devices of the user (admins: of everyone), with revoke.

import { useCallback, useEffect, useState } from "react";
import { Box, Button, FormControlLabel, Stack, Switch, Typography } from "@mui/material";
import { Panel } from "../../components/Page.tsx";
import { accessApi } from "../../api/access.ts";
import { showFlash } from "../../state/flash.ts";
import { signedOut } from "../../state/session.ts";
import { useCan } from "../../state/access.ts";
import { deviceOf } from "../Activity/Activity.tsx";
import type { SessionEntry } from "../../../../shared/access.ts";

export function when(iso: string): string {
  return iso.replace("T", " ").slice(0, 16) + " UTC";
}

export function Sessions() {
  const isAdmin = useCan("admin");
  const [all, setAll] = useState(false);
  const [list, setList] = useState<SessionEntry[]>([]);
  const load = useCallback(() => {
    accessApi.sessions(all).then(setList, () => {});
  }, [all]);
  useEffect(load, [load]);

  async function revoke(s: SessionEntry) {
    try {
      showFlash(await accessApi.revokeSession(s.id), "success");
      if (s.current) signedOut("logout");
    } catch {
      // flashed by the client
    }
    load();
  }

  return (
    <Panel
      title="Your Sessions"
      action={isAdmin
        ? (
          <FormControlLabel
            control={
              <Switch
                checked={all}
                onChange={(e) => setAll(e.target.checked)}
              />
            }
            label="Everyone's"
            sx={{ mr: 1 }}
          />
        )
        : undefined}
    >
      <Stack component="ul" spacing={1} sx={{ listStyle: "none", p: 0, m: 0 }} aria-label="Sessions">
        {list.map((s) => (
          <Box
            component="li"
            key={s.id}
            sx={{
              display: "flex",
              alignItems: "center",
              gap: 1,
              borderBottom: 1,
              borderColor: "divider",
              pb: 1,
            }}
          >
            <Box sx={{ flexGrow: 1, minWidth: 0 }}>
              <Typography sx={{ fontWeight: 600 }}>
                {deviceOf(s.user_agent)}
                {s.current ? " (this device)" : ""}
                {all ? ` · ${s.username}` : ""}
              </Typography>
              <Typography variant="body2" color="text.secondary" noWrap title={s.user_agent}>
                {s.address} · last seen {when(s.last_seen_at)}
              </Typography>
            </Box>
            <Button
              variant="outlined"
              color="error"
              sx={{ flexShrink: 0, whiteSpace: "nowrap" }}
              onClick={() => void revoke(s)}
              aria-label={`Revoke session of ${s.username} on ${deviceOf(s.user_agent)}, ${s.address}`}
            >
              {s.current ? "Sign out" : "Revoke"}
            </Button>
          </Box>
        ))}
      </Stack>
    </Panel>
  );
}
