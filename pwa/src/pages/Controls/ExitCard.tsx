import { useEffect, useRef } from "react";
import { Alert, AlertTitle, Box, Typography } from "@mui/material";
import { Panel } from "../../components/Page.tsx";
import { logBoxSx } from "../../components/logStyle.ts";
import type { ServerExit } from "../../../../shared/api.ts";
import { formatUtc } from "../../../../shared/format.ts";

function describeExit(exit: ServerExit): string {
  const how = exit.code !== null
    ? `exit code ${exit.code}`
    : exit.signal
    ? `signal ${exit.signal}`
    : "exit code unknown: it ended while the panel was not watching";
  return `At ${formatUtc(exit.at)} UTC (${how}).`;
}

const KIND = {
  "crashed": {
    title: "Last crash",
    headline: "The server stopped unexpectedly",
    lines: "Last lines of the crashed server",
    hint: null,
  },
  "start-failed": {
    title: "Last start failed",
    headline: "The server did not start",
    lines: "Last lines of the failed start",
    hint:
      "The game ended before it was hosting. Its last lines usually say why: a save it cannot load, a mod that is missing, or a port already in use.",
  },
} as const;

/** A crash, or a start that failed, with the game's last lines: kept on the page until the next start. */
export function ExitCard({ exit }: { exit: ServerExit & { reason: keyof typeof KIND } }) {
  const kind = KIND[exit.reason];
  const lines = useRef<HTMLPreElement>(null);
  // The end of the output says why; show it first.
  useEffect(() => {
    if (lines.current) lines.current.scrollTop = lines.current.scrollHeight;
  }, [exit]);
  return (
    <Panel title={kind.title}>
      <Alert severity="error" sx={{ mb: 1.5 }}>
        <AlertTitle>{kind.headline}</AlertTitle>
        {describeExit(exit)}
        {kind.hint && <Box sx={{ mt: 0.5 }}>{kind.hint}</Box>}
      </Alert>
      {exit.last_lines.length > 0 && (
        <>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 0.5 }}>Its last lines:</Typography>
          <Box
            component="pre"
            ref={lines}
            tabIndex={0}
            aria-label={kind.lines}
            sx={[logBoxSx, { m: 0, maxHeight: 320 }]}
          >
            {exit.last_lines.join("\n")}
          </Box>
        </>
      )}
    </Panel>
  );
}
