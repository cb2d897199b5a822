// The servers a push device or a channel gets alerts about: "All servers" (null), or the ones ticked. The
// choice is shown only when the panel has two or more servers the user sees; with one, every alert is
// about it anyway.

import { useEffect, useState } from "react";
import { Box, Checkbox, FormControlLabel, FormGroup, Typography } from "@mui/material";
import { call } from "../../api/client.ts";
import { FIRST_SERVER } from "../../../../shared/contract/servers.ts";

export interface ServerChoice {
  id: number;
  name: string;
}

/** What a panel without the servers list (older, or not reachable yet) has: its one server. */
export const ONE_SERVER: ServerChoice[] = [{ id: FIRST_SERVER, name: `Server ${FIRST_SERVER}` }];

/** The servers the user sees (GET /api/servers); the first server alone when the panel has no such list. */
export function useServers(online: boolean): ServerChoice[] {
  const [servers, setServers] = useState<ServerChoice[]>(ONE_SERVER);
  useEffect(() => {
    if (!online) return;
    let live = true;
    call("GET /api/servers", {}, { quiet: true }).then(
      (list) => live && setServers(list.length ? list.map(({ id, name }) => ({ id, name })) : ONE_SERVER),
      () => live && setServers(ONE_SERVER),
    );
    return () => {
      live = false;
    };
  }, [online]);
  return servers;
}

/** "All servers", "Main map, Space map", or that none is chosen. Ids no longer listed are left out. */
export function serversText(chosen: readonly number[] | null, servers: readonly ServerChoice[]): string {
  if (chosen === null) return "All servers";
  const names = servers.filter((s) => chosen.includes(s.id)).map((s) => s.name);
  return names.length ? names.join(", ") : "none (only the panel's own alerts)";
}

/** The "Servers" choice; nothing when there is only one server. */
export function ServersChoice(
  { label, value, servers, disabled, onChange }: {
    /** Names the group for screen readers: "Servers for Phone". */
    label: string;
    value: readonly number[] | null;
    servers: readonly ServerChoice[];
    disabled?: boolean;
    onChange: (servers: number[] | null) => void;
  },
) {
  if (servers.length < 2) return null;
  const all = value === null;
  return (
    <Box sx={{ mt: 0.5 }}>
      <Typography variant="subtitle2" component="div">Servers</Typography>
      <FormGroup row role="group" aria-label={label}>
        <FormControlLabel
          label="All servers"
          control={
            <Checkbox
              checked={all}
              disabled={disabled}
              // Unticked: the servers there are now, each of which can then be unticked.
              onChange={(_, on) => onChange(on ? null : servers.map((s) => s.id))}
            />
          }
        />
        {servers.map((s) => (
          <FormControlLabel
            key={s.id}
            label={s.name}
            control={
              <Checkbox
                checked={all || value.includes(s.id)}
                disabled={disabled || all}
                onChange={(_, on) =>
                  onChange(
                    servers.map((x) => x.id).filter((id) => (id === s.id ? on : value?.includes(id))),
                  )}
              />
            }
          />
        ))}
      </FormGroup>
    </Box>
  );
}
