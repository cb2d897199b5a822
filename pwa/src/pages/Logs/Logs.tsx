import { useCallback, useEffect, useRef, useState } from "react";
import { Box, Button, CircularProgress, Typography } from "@mui/material";
import RefreshIcon from "@mui/icons-material/Refresh";
import { Page, Panel } from "../../components/Page.tsx";
import { serverApi } from "../../api/server.ts";
import { logBoxSx } from "../../components/logStyle.ts";

export default function Logs() {
  const [lines, setLines] = useState<string[] | null>(null);
  const [loading, setLoading] = useState(false);
  const box = useRef<HTMLDivElement>(null);

  const load = useCallback(() => {
    setLoading(true);
    serverApi.logTail().then(setLines, () => setLines((old) => old ?? [])).finally(() => setLoading(false));
  }, []);
  useEffect(load, [load]);
  // The newest lines are at the bottom: show them first.
  useEffect(() => {
    if (box.current) box.current.scrollTop = box.current.scrollHeight;
  }, [lines]);

  return (
    <Page title="Logs">
      <Panel
        title="Logs"
        action={
          <Button
            color="secondary"
            size="small"
            onClick={load}
            disabled={loading}
            startIcon={loading ? <CircularProgress size={16} color="inherit" /> : <RefreshIcon />}
          >
            Refresh
          </Button>
        }
      >
        <Typography variant="body2" color="text.secondary" sx={{ mb: 1 }}>
          The game's log of its current or last run (factorio-current.log), newest at the bottom.
        </Typography>
        <Box
          ref={box}
          role="log"
          aria-label="Factorio log"
          sx={[logBoxSx, { maxHeight: { xs: "65vh", md: "70vh" } }]}
        >
          {lines === null
            ? <CircularProgress size={22} aria-label="Loading the log" />
            : lines.length === 0
            ? <Typography color="text.secondary" sx={{ fontSize: "inherit" }}>The log is empty: the game has not run yet.</Typography>
            // Plain elements: up to 10,000 lines, and a styled Box per line cost a phone most of a refresh.
            : lines.map((l, i) => <div key={i}>{l}</div>)}
        </Box>
      </Panel>
    </Page>
  );
}
