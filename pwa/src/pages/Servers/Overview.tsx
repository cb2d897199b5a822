// The overview: every server the user sees, one card each, with its state, version, players online,
// uptime and last event, and Start / Save & Stop. Drawn from the servers list alone (GET /api/servers),
// so a server that does not answer never holds the others' cards: its card keeps what was last known.
// Live from the socket (each server's status room) and asked again every 5 s while the page is visible.

import { useEffect, useState } from "react";
import { Link as RouterLink, useNavigate } from "react-router-dom";
import {
  Alert,
  Box,
  Button,
  Card,
  CardActions,
  CardContent,
  Chip,
  CircularProgress,
  Typography,
} from "@mui/material";
import PlayArrowIcon from "@mui/icons-material/PlayArrow";
import StopIcon from "@mui/icons-material/Stop";
import DashboardIcon from "@mui/icons-material/Dashboard";
import { useSnapshot } from "valtio";
import { Page } from "../../components/Page.tsx";
import { applyStatus, knownStatus, statuses } from "../../state/server.ts";
import { loadServers, serverList } from "../../state/servers.ts";
import { connection } from "../../state/connection.ts";
import { session } from "../../state/session.ts";
import { roleOn } from "../../state/access.ts";
import { VIEWER_NOTE } from "../../state/access.ts";
import { socket } from "../../state/socket.ts";
import { serverApi } from "../../api/server.ts";
import { showFlash } from "../../state/flash.ts";
import { serverPath } from "../../state/current.ts";
import { confirmedAt } from "../../components/AppChrome.tsx";
import { Fact, STATE_COLOR, STATE_LABEL, useNow } from "../Controls/Facts.tsx";
import { formatUptime } from "../../../../shared/format.ts";
import { roleAtLeast, type ServerStatus, type User } from "../../../../shared/api.ts";
import type { ServerSummary } from "../../../../shared/contract/servers.ts";
import { SERVERS_UI } from "../../../../shared/servers.ts";

/** The list is asked for again this often, at most, while the page is visible (the socket is faster). */
export const OVERVIEW_POLL_MS = 5000;

/** Asks for the list every OVERVIEW_POLL_MS while the page is visible, one request at a time. */
function usePolledList(): void {
  useEffect(() => {
    let inFlight = false;
    const ask = () => {
      if (inFlight || document.visibilityState !== "visible") return;
      inFlight = true;
      void loadServers().finally(() => (inFlight = false));
    };
    ask();
    const timer = setInterval(ask, OVERVIEW_POLL_MS);
    document.addEventListener("visibilitychange", ask);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", ask);
    };
  }, []);
}

/** Follows each listed server's status room: a card changes the moment its server does. */
function useLiveStatuses(ids: readonly number[]): void {
  const key = ids.join(",");
  useEffect(() => {
    const stops = key.split(",").filter(Boolean).map(Number).map((id) =>
      socket.subscribe(
        "server_status",
        (message) => {
          try {
            applyStatus(JSON.parse(message) as ServerStatus, id);
          } catch {
            // not a status: the next poll brings it
          }
        },
        undefined,
        id,
      )
    );
    return () => stops.forEach((stop) => stop());
  }, [key]);
}

type Busy = "start" | "stop" | null;

function ServerCard({ summary, live, canAct, several, now, stale }: {
  summary: ServerSummary;
  live: ServerStatus | null;
  canAct: boolean;
  several: boolean;
  now: number;
  stale: string | null;
}) {
  const navigate = useNavigate();
  const [busy, setBusy] = useState<Busy>(null);
  const state = live?.status ?? summary.status;
  const startedAt = live ? live.started_at : summary.started_at;
  const controls = serverPath(summary.id, "/", several);

  async function start() {
    setBusy("start");
    try {
      // Started as its Controls would, with what its last start asked for; never started: its Controls.
      const last = knownStatus(summary.id).status?.last_start ??
        (await serverApi.status(summary.id)).last_start;
      if (!last) {
        showFlash(SERVERS_UI.noLastStart, "info");
        navigate(controls);
        return;
      }
      showFlash(await serverApi.start(last, summary.id), "success");
    } catch {
      // the client flashed the server's words
    } finally {
      setBusy(null);
      void loadServers();
    }
  }

  async function stop() {
    setBusy("stop");
    try {
      showFlash(await serverApi.stop(summary.id), "success");
    } catch {
      // flashed
    } finally {
      setBusy(null);
      void loadServers();
    }
  }

  const spinner = <CircularProgress size={18} color="inherit" />;
  return (
    <Card
      component="section"
      aria-label={summary.name}
      data-testid={`server-card-${summary.id}`}
      data-state={state}
      sx={{ display: "flex", flexDirection: "column" }}
    >
      <CardContent sx={{ flexGrow: 1, display: "grid", gap: 1.5 }}>
        <Box sx={{ display: "flex", alignItems: "center", gap: 1, minWidth: 0 }}>
          <Typography
            variant="h5"
            component="h2"
            sx={{
              flexGrow: 1,
              minWidth: 0,
              overflow: "hidden",
              textOverflow: "ellipsis",
              whiteSpace: "nowrap",
            }}
          >
            {summary.name}
          </Typography>
          <Chip
            size="small"
            label={STATE_LABEL[state]}
            color={STATE_COLOR[state]}
            variant={stale ? "outlined" : "filled"}
            data-testid="card-state"
            sx={stale ? { borderStyle: "dashed" } : undefined}
          />
        </Box>
        {stale && (
          <Typography variant="body2" color="text.secondary">last known, at {confirmedAt(stale)}</Typography>
        )}
        <Box
          component="dl"
          sx={{ display: "grid", gridTemplateColumns: "max-content 1fr", columnGap: 3, rowGap: 0.5, m: 0 }}
        >
          <Fact label="Version" value={summary.version || "unknown"} testId="card-version" />
          <Fact label={SERVERS_UI.players} value={summary.players_online} testId="card-players" />
          <Fact
            label="Uptime"
            value={state === "running" && startedAt ? formatUptime(now - Date.parse(startedAt)) : "-"}
            testId="card-uptime"
          />
          <Fact
            label={SERVERS_UI.lastEvent}
            value={summary.last_event
              ? `${summary.last_event.text} (${confirmedAt(summary.last_event.at)})`
              : SERVERS_UI.nothingYet}
            testId="card-last-event"
          />
        </Box>
        {!canAct && <Typography variant="body2" color="text.secondary">{VIEWER_NOTE}</Typography>}
      </CardContent>
      <CardActions
        sx={{ px: 2, pb: 2, pt: 0, gap: 1, flexWrap: "wrap", "& > :not(style) ~ :not(style)": { ml: 0 } }}
      >
        {state === "running" || state === "stopping"
          ? (
            <Button
              color="primary"
              startIcon={busy === "stop" ? spinner : <StopIcon />}
              disabled={!canAct || busy !== null || state !== "running" || stale !== null}
              onClick={() => void stop()}
              sx={{ flex: { xs: "1 1 0", sm: "0 0 auto" } }}
            >
              {SERVERS_UI.saveAndStop}
            </Button>
          )
          : (
            <Button
              color="success"
              startIcon={busy === "start" ? spinner : <PlayArrowIcon />}
              disabled={!canAct || busy !== null || state !== "stopped" || stale !== null}
              onClick={() => void start()}
              sx={{ flex: { xs: "1 1 0", sm: "0 0 auto" } }}
            >
              {SERVERS_UI.start}
            </Button>
          )}
        <Button
          component={RouterLink}
          to={controls}
          color="secondary"
          startIcon={<DashboardIcon />}
          sx={{ flex: { xs: "1 1 0", sm: "0 0 auto" } }}
        >
          {SERVERS_UI.openControls}
        </Button>
      </CardActions>
    </Card>
  );
}

/** Whether a server's own status (pushed or asked) came after the list, so it tells more. */
function newer(statusAt: string | undefined, listAt: string | null): boolean {
  return statusAt !== undefined && (listAt === null || statusAt >= listAt);
}

export default function Overview() {
  const { list, at } = useSnapshot(serverList);
  const live = useSnapshot(statuses);
  const { user } = useSnapshot(session);
  const { online } = useSnapshot(connection);
  const now = useNow(15_000);
  usePolledList();
  useLiveStatuses(list?.map((s) => s.id) ?? []);
  // Offline: the list as the panel last gave it, said so.
  const stale = online ? null : at;
  return (
    <Page title={SERVERS_UI.overviewTitle}>
      {list?.length === 0 && <Alert severity="info">{SERVERS_UI.noServers}</Alert>}
      {list === null && <CircularProgress aria-label="Loading" />}
      <Box
        sx={{
          display: "grid",
          gap: 2,
          gridTemplateColumns: {
            xs: "1fr",
            md: "repeat(2, minmax(0, 1fr))",
            xl: "repeat(3, minmax(0, 1fr))",
          },
          alignItems: "stretch",
          maxWidth: 1480,
        }}
      >
        {list?.map((s) => (
          <ServerCard
            key={s.id}
            summary={s as ServerSummary}
            live={newer(live[s.id]?.lastKnown?.at, at) ? live[s.id].status as ServerStatus | null : null}
            canAct={roleAtLeast(roleOn(user as User | null, list as ServerSummary[], s.id), "operator")}
            several={list.length > 1}
            now={now}
            stale={stale}
          />
        ))}
      </Box>
    </Page>
  );
}
