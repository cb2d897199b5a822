import { startTransition, useEffect, useState } from "react";
import { Alert, AlertTitle, Box, Stack, Typography } from "@mui/material";
import { useSnapshot } from "valtio";
import { Page, Panel } from "../../components/Page.tsx";
import { type LastKnown, server, shownStatus } from "../../state/server.ts";
import { connection } from "../../state/connection.ts";
import { current } from "../../state/current.ts";
import { serverList } from "../../state/servers.ts";
import type { ServerExit, ServerStatus } from "../../../../shared/api.ts";
import { Facts } from "./Facts.tsx";
import { StartForm } from "./StartForm.tsx";
import { RunningControls } from "./RunningControls.tsx";
import { ExitCard } from "./ExitCard.tsx";
import { GameVersionsPanel, useVersions } from "./GameVersions.tsx";
import { PlayersChart } from "./PlayersChart.tsx";
import { HealthCards, HealthSettingsPanel } from "./Health.tsx";
import { HealthChart } from "./HealthChart.tsx";
import { ReadOnly, ViewerNote } from "../../components/ReadOnly.tsx";
import { HttpsNote } from "./HttpsNote.tsx";

/** Said before any action fails: the panel cannot run a game it cannot find. */
function NoFactorio({ dir }: { dir: string }) {
  return (
    <Alert severity="warning" data-testid="no-factorio">
      <AlertTitle>No Factorio found in {dir}</AlertTitle>
      Install it with Install Factorio on this page, or download the Factorio headless server for Linux from
      factorio.com/download and unpack it into that directory (so that it holds bin/x64/factorio, or
      bin/arm64/factorio for the ARM64 build), or start the panel with --factorio-dir pointing at your
      Factorio directory. Then reload this page.
    </Alert>
  );
}

/** The last run's end worth showing: a crash or a failed start, only while the game is down again. */
function exitToShow(
  status: ServerStatus | null,
): (ServerExit & { reason: "crashed" | "start-failed" }) | null {
  const exit = status?.last_exit;
  if (!exit || status.status !== "stopped") return null;
  return exit.reason === "crashed" || exit.reason === "start-failed"
    ? exit as ServerExit & { reason: "crashed" | "start-failed" }
    : null;
}

/**
 * False for the first render, true right after it was painted: what is below the server card (versions,
 * the players chart) renders then, as a transition, so signing in shows the controls without waiting for
 * them on a slow phone (bench/login.mjs).
 */
function usePainted(): boolean {
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    const frame = requestAnimationFrame(() => setTimeout(() => startTransition(() => setPainted(true))));
    return () => cancelAnimationFrame(frame);
  }, []);
  return painted;
}

export default function Controls() {
  const snap = useSnapshot(server);
  const { online } = useSnapshot(connection);
  const { status, confirmedAt } = shownStatus(
    snap.status as ServerStatus | null,
    snap.lastKnown as LastKnown | null,
    online,
  );
  const exit = exitToShow(status);
  const missing = status?.factorio_found === false;
  // The server's own "no Factorio" problem comes first when the game is missing; NoFactorio says it with
  // what to do.
  const problems = (missing ? status.problems?.slice(1) : status?.problems) ?? [];
  const versions = useVersions(status);
  const noGame = versions.data !== null && !versions.data.gameFound;
  const painted = usePainted();
  const { server: shown } = useSnapshot(current);
  const { list } = useSnapshot(serverList);
  const ownPort = list?.find((s) => s.id === shown)?.port;
  return (
    <Page title="Controls">
      <HttpsNote />
      <ViewerNote />
      {missing && <NoFactorio dir={status.factorio_dir || "the Factorio directory"} />}
      {problems.map((p) => <Alert key={p} severity="warning">{p}</Alert>)}
      <Box
        sx={{
          display: "grid",
          gap: 2.5,
          gridTemplateColumns: { xs: "1fr", lg: "minmax(0, 1fr) minmax(0, 1fr)" },
          alignItems: "start",
          maxWidth: 1480,
        }}
      >
        {/* No game yet: installing it comes first. */}
        {/* A viewer sees the versions with their buttons off, under the page's role sentence (ViewerNote). */}
        {noGame && (
          <ReadOnly>
            <GameVersionsPanel status={status} versions={versions} />
          </ReadOnly>
        )}
        <Panel title="Server">
          <Stack spacing={2.5}>
            <Facts status={status} stale={confirmedAt} />
            {status === null
              ? <Typography color="text.secondary">The server's status is not known yet.</Typography>
              : confirmedAt
              ? (
                <Typography color="text.secondary">
                  The panel is not answering: the controls come back with the connection.
                </Typography>
              )
              : (
                <ReadOnly>
                  {status.running
                    ? <RunningControls status={status} />
                    : <StartForm disabled={missing} last={status.last_start ?? null} port={ownPort} />}
                </ReadOnly>
              )}
          </Stack>
        </Panel>
        {exit && <ExitCard exit={exit} />}
        {painted && <HealthCards />}
        {painted && <HealthChart />}
        {painted && !noGame && (
          <ReadOnly>
            <GameVersionsPanel status={status} versions={versions} />
          </ReadOnly>
        )}
        {painted && <PlayersChart />}
        {painted && <HealthSettingsPanel />}
      </Box>
    </Page>
  );
}
