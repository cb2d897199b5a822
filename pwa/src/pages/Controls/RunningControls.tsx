import { type ReactElement, useState } from "react";
import { Box, Button, CircularProgress, LinearProgress, Stack, Typography } from "@mui/material";
import StopIcon from "@mui/icons-material/Stop";
import RestartAltIcon from "@mui/icons-material/RestartAlt";
import DangerousIcon from "@mui/icons-material/Dangerous";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { serverApi } from "../../api/server.ts";
import { refreshStatus } from "../../state/server.ts";
import { showFlash } from "../../state/flash.ts";
import type { ServerStatus } from "../../../../shared/api.ts";
import { PANEL_MSG } from "../../../../shared/messages.ts";

type Action = "stop" | "restart" | "kill";

const CALL: Record<Action, () => Promise<string>> = {
  stop: () => serverApi.stop(),
  restart: () => serverApi.restart(),
  kill: () => serverApi.kill(),
};

export function RunningControls({ status, disabled }: { status: ServerStatus; disabled?: boolean }) {
  const [busy, setBusy] = useState<Action | null>(null);
  const [confirm, setConfirm] = useState<"restart" | "kill" | null>(null);

  async function act(what: Action) {
    setBusy(what);
    try {
      showFlash(await CALL[what](), "success");
    } catch {
      // the client flashed the server's message
    } finally {
      setBusy(null);
      void refreshStatus();
    }
  }

  const note = busy === "restart"
    ? "Restarting: the game saves the map, stops, and starts again with the same save."
    : status.status === "starting"
    ? "The game is loading the map; it is running once it hosts the game."
    : status.status === "stopping"
    ? "The game is saving the map and shutting down."
    : null;
  const icon = (a: Action, normal: ReactElement) =>
    busy === a ? <CircularProgress size={18} color="inherit" /> : normal;
  const notRunning = busy !== null || status.status !== "running" || disabled;
  return (
    <Stack spacing={2}>
      {note && (
        <Box>
          <Typography color="text.secondary" sx={{ mb: 1 }}>{note}</Typography>
          <LinearProgress color="warning" aria-label={note} />
        </Box>
      )}
      <Box sx={{ display: "flex", gap: 1.5, flexWrap: "wrap" }}>
        <Button
          color="primary"
          startIcon={icon("stop", <StopIcon />)}
          disabled={notRunning}
          onClick={() => void act("stop")}
        >
          Save & Stop Server
        </Button>
        <Button
          color="secondary"
          startIcon={icon("restart", <RestartAltIcon />)}
          disabled={notRunning}
          onClick={() => setConfirm("restart")}
        >
          Restart Server
        </Button>
        <Button
          color="error"
          startIcon={icon("kill", <DangerousIcon />)}
          disabled={busy === "kill" || disabled}
          onClick={() => setConfirm("kill")}
        >
          Kill Server
        </Button>
      </Box>
      <ConfirmDialog
        open={confirm === "kill"}
        title="Kill Server"
        message={PANEL_MSG.killConfirm}
        confirmLabel="Kill Server"
        danger
        onConfirm={() => void act("kill")}
        onClose={() => setConfirm(null)}
      />
      <ConfirmDialog
        open={confirm === "restart"}
        title="Restart Server"
        message={PANEL_MSG.restartConfirm}
        confirmLabel="Restart Server"
        onConfirm={() => void act("restart")}
        onClose={() => setConfirm(null)}
      />
    </Stack>
  );
}
