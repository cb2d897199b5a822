import { type ReactNode, useEffect, useState } from "react";
import { Box, Chip, Typography } from "@mui/material";
import type { ServerStatus } from "../../../../shared/api.ts";
import { formatVersion, parseVersion } from "../../../../shared/versions.ts";
import { playersApi } from "../../api/settings.ts";
import { confirmedAt } from "../../components/AppChrome.tsx";
import { formatUptime } from "../../../../shared/format.ts";

export const STATE_LABEL = {
  stopped: "Stopped",
  starting: "Starting",
  running: "Running",
  stopping: "Stopping",
} as const;
export const STATE_COLOR = {
  stopped: "error",
  starting: "warning",
  running: "success",
  stopping: "warning",
} as const;
/** How often the players online are asked for while the page is open. */
const PLAYERS_EVERY_MS = 30_000;

function gameVersion(status: Pick<ServerStatus, "fac_version"> | null): string {
  const v = status ? parseVersion(status.fac_version) : null;
  return v ? formatVersion(v, 3) : "unknown";
}

export function useNow(everyMs: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(t);
  }, [everyMs]);
  return now;
}

/** The names of the players online while the game runs; null while not known. */
function useOnlinePlayers(running: boolean, since: string | undefined): string[] | null {
  const [players, setPlayers] = useState<string[] | null>(null);
  useEffect(() => {
    setPlayers(null);
    if (!running) return;
    let live = true;
    const ask = () =>
      playersApi.online({ quiet: true }).then((r) => live && setPlayers(r.players ?? []), () => {});
    void ask();
    const t = setInterval(ask, PLAYERS_EVERY_MS);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [running, since]);
  return players;
}

/** A label and its value, one row of the server's facts. */
export function Fact({ label, value, testId }: { label: string; value: ReactNode; testId?: string }) {
  return (
    <Box sx={{ display: "contents" }}>
      <Typography component="dt" color="text.secondary">{label}</Typography>
      <Typography
        component="dd"
        sx={{ m: 0, fontWeight: 600, overflowWrap: "anywhere" }}
        data-testid={testId}
      >
        {value}
      </Typography>
    </Box>
  );
}

/** `stale`: the time of the last confirmed status while the panel does not answer. */
export function Facts({ status, stale }: { status: ServerStatus | null; stale: string | null }) {
  const up = status?.status === "running" && !stale;
  const now = useNow(30_000);
  const players = useOnlinePlayers(up, status?.since);
  return (
    <Box
      component="dl"
      sx={{ display: "grid", gridTemplateColumns: "max-content 1fr", columnGap: 3, rowGap: 0.75, m: 0 }}
    >
      <Fact
        label="Status"
        value={status
          ? (
            <>
              <Chip
                size="small"
                label={STATE_LABEL[status.status]}
                color={STATE_COLOR[status.status]}
                variant={stale ? "outlined" : "filled"}
              />
              {stale && (
                <Typography component="span" color="text.secondary" sx={{ ml: 1 }}>
                  last known, at {confirmedAt(stale)}
                </Typography>
              )}
            </>
          )
          : <Chip size="small" label="Unknown" sx={{ bgcolor: "#6b6b6b", color: "#f2f2f2" }} />}
        testId="server-state"
      />
      {status?.running && (
        <>
          <Fact label="IP" value={status.address} testId="server-address" />
          <Fact label="Port" value={status.port} testId="server-port" />
          <Fact label="Save" value={status.savefile} testId="server-save" />
        </>
      )}
      {up && status && (
        <Fact
          label="Uptime"
          value={formatUptime(now - Date.parse(status.started_at ?? status.since))}
          testId="server-uptime"
        />
      )}
      {up && (
        <Fact
          label="Players online"
          value={players === null
            ? "…"
            : players.length === 0
            ? "none"
            : `${players.length}: ${players.join(", ")}`}
          testId="server-players"
        />
      )}
      <Fact label="Game version" value={gameVersion(status)} testId="server-version" />
    </Box>
  );
}
