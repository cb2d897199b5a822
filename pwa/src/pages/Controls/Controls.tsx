import { type ChangeEvent, type FormEvent, type ReactNode, useCallback, useEffect, useRef, useState } from "react";
import {
  Alert,
  AlertTitle,
  Box,
  Button,
  Chip,
  CircularProgress,
  LinearProgress,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from "@mui/material";
import PlayArrowIcon from "@mui/icons-material/PlayArrow";
import StopIcon from "@mui/icons-material/Stop";
import DangerousIcon from "@mui/icons-material/Dangerous";
import { useSnapshot } from "valtio";
import { Page, Panel } from "../../components/Page.tsx";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { serverApi } from "../../api/server.ts";
import { savesApi } from "../../api/saves.ts";
import { refreshStatus, server } from "../../state/server.ts";
import { showFlash } from "../../state/flash.ts";
import { DEFAULT_BIND_IP, DEFAULT_GAME_PORT, LOAD_LATEST, type ServerExit, type ServerStatus } from "../../../../shared/api.ts";
import { MSG, PANEL_MSG } from "../../../../shared/messages.ts";
import { type FieldErrors, portNumber, type StartField, validateStart } from "../../../../shared/validation.ts";
import { formatVersion, parseVersion } from "../../../../shared/versions.ts";
import { formatUtc } from "../../../../shared/format.ts";
import { logBoxSx } from "../../components/logStyle.ts";
import { GameVersionsPanel, useVersions } from "./GameVersions.tsx";

const STATE_LABEL = { stopped: "Stopped", starting: "Starting", running: "Running", stopping: "Stopping" } as const;
const STATE_COLOR = { stopped: "error", starting: "warning", running: "success", stopping: "warning" } as const;

function gameVersion(status: Pick<ServerStatus, "fac_version"> | null): string {
  const v = status ? parseVersion(status.fac_version) : null;
  return v ? formatVersion(v, 3) : "unknown";
}

/** A label and its value, one row of the server's facts. */
function Fact({ label, value, testId }: { label: string; value: ReactNode; testId?: string }) {
  return (
    <Box sx={{ display: "contents" }}>
      <Typography component="dt" color="text.secondary">{label}</Typography>
      <Typography component="dd" sx={{ m: 0, fontWeight: 600, overflowWrap: "anywhere" }} data-testid={testId}>{value}</Typography>
    </Box>
  );
}

function Facts({ status }: { status: ServerStatus | null }) {
  const up = status?.running ?? false;
  return (
    <Box component="dl" sx={{ display: "grid", gridTemplateColumns: "max-content 1fr", columnGap: 3, rowGap: 0.75, m: 0 }}>
      <Fact
        label="Status"
        value={status
          ? <Chip size="small" label={STATE_LABEL[status.status]} color={STATE_COLOR[status.status]} />
          : <Chip size="small" label="Unknown" sx={{ bgcolor: "#6b6b6b" }} />}
        testId="server-state"
      />
      {up && status && (
        <>
          <Fact label="IP" value={status.address} testId="server-address" />
          <Fact label="Port" value={status.port} testId="server-port" />
          <Fact label="Save" value={status.savefile} testId="server-save" />
        </>
      )}
      <Fact label="Game version" value={gameVersion(status)} testId="server-version" />
    </Box>
  );
}

function RunningControls({ status }: { status: ServerStatus }) {
  const [busy, setBusy] = useState<"stop" | "kill" | null>(null);
  const [confirmKill, setConfirmKill] = useState(false);

  async function act(what: "stop" | "kill") {
    setBusy(what);
    try {
      showFlash(await (what === "stop" ? serverApi.stop() : serverApi.kill()), "success");
    } catch {
      // the client flashed the server's message
    } finally {
      setBusy(null);
      void refreshStatus();
    }
  }

  const note = status.status === "starting"
    ? "The game is loading the map; it is running once it hosts the game."
    : status.status === "stopping"
    ? "The game is saving the map and shutting down."
    : null;
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
          startIcon={busy === "stop" ? <CircularProgress size={18} color="inherit" /> : <StopIcon />}
          disabled={busy !== null || status.status !== "running"}
          onClick={() => void act("stop")}
        >
          Save & Stop Server
        </Button>
        <Button
          color="error"
          startIcon={busy === "kill" ? <CircularProgress size={18} color="inherit" /> : <DangerousIcon />}
          disabled={busy === "kill"}
          onClick={() => setConfirmKill(true)}
        >
          Kill Server
        </Button>
      </Box>
      <ConfirmDialog
        open={confirmKill}
        title="Kill Server"
        message={PANEL_MSG.killConfirm}
        confirmLabel="Kill Server"
        danger
        onConfirm={() => void act("kill")}
        onClose={() => setConfirmKill(false)}
      />
    </Stack>
  );
}

function StartForm() {
  const [form, setForm] = useState({ bindip: DEFAULT_BIND_IP, port: String(DEFAULT_GAME_PORT), savefile: LOAD_LATEST });
  const [errors, setErrors] = useState<FieldErrors<StartField>>({});
  const [saves, setSaves] = useState<{ names: string[]; loaded: boolean }>({ names: [LOAD_LATEST], loaded: false });
  const [busy, setBusy] = useState(false);

  const loadSaves = useCallback(() => {
    savesApi.list({ quiet: true }).then(
      (list) => {
        const names = list.map((s) => s.name).filter((n) => n !== LOAD_LATEST);
        setSaves({ names: [...names, LOAD_LATEST], loaded: true });
      },
      // Without the list, only "Load Latest" is offered; the server still refuses a start without saves.
      () => setSaves({ names: [LOAD_LATEST], loaded: false }),
    );
  }, []);
  useEffect(loadSaves, [loadSaves]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const found = validateStart(form);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    if (saves.loaded && saves.names.length === 1) {
      showFlash(MSG.saveMustBeCreated, "error");
      return;
    }
    setBusy(true);
    try {
      showFlash(await serverApi.start({ bindip: form.bindip.trim(), port: portNumber(form.port), savefile: form.savefile }), "success");
    } catch {
      // the client flashed the reason (from the game when it failed to start)
    } finally {
      setBusy(false);
      void refreshStatus();
    }
  }

  const field = (key: StartField) => ({
    name: key,
    value: form[key],
    onChange: (e: ChangeEvent<HTMLInputElement>) => setForm({ ...form, [key]: e.target.value }),
    error: !!errors[key],
    helperText: errors[key],
    disabled: busy,
  });
  return (
    <Box component="form" onSubmit={submit} noValidate aria-label="Start Server" data-saves-loaded={saves.loaded}>
      <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", sm: "2fr 1fr" }, mb: 2 }}>
        <TextField label="IP" {...field("bindip")} slotProps={{ htmlInput: { inputMode: "decimal", autoComplete: "off" } }} />
        <TextField label="Port" type="number" {...field("port")} slotProps={{ htmlInput: { min: 1, max: 65535 } }} />
        <TextField label="Save" select {...field("savefile")} sx={{ gridColumn: "1 / -1" }}>
          {saves.names.map((n) => <MenuItem key={n} value={n}>{n}</MenuItem>)}
        </TextField>
      </Box>
      {busy && (
        <Box sx={{ mb: 2 }}>
          <Typography color="text.secondary" sx={{ mb: 1 }}>Starting the server: the game is loading the map...</Typography>
          <LinearProgress aria-label="Starting the server" />
        </Box>
      )}
      <Button
        type="submit"
        color="success"
        startIcon={busy ? <CircularProgress size={18} color="inherit" /> : <PlayArrowIcon />}
        disabled={busy}
      >
        Start Server
      </Button>
    </Box>
  );
}

function describeExit(exit: ServerExit): string {
  const how = exit.code !== null
    ? `exit code ${exit.code}`
    : exit.signal
    ? `signal ${exit.signal}`
    : "exit code unknown: it ended while the panel was not watching";
  return `At ${formatUtc(exit.at)} UTC (${how}).`;
}

function LastCrash({ exit }: { exit: ServerExit }) {
  const lines = useRef<HTMLPreElement>(null);
  // The end of the output says why; show it first.
  useEffect(() => {
    if (lines.current) lines.current.scrollTop = lines.current.scrollHeight;
  }, [exit]);
  return (
    <Panel title="Last crash">
      <Alert severity="error" sx={{ mb: 1.5 }}>
        <AlertTitle>The server stopped unexpectedly</AlertTitle>
        {describeExit(exit)}
      </Alert>
      {exit.last_lines.length > 0 && (
        <>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 0.5 }}>Its last lines:</Typography>
          <Box
            component="pre"
            ref={lines}
            aria-label="Last lines of the crashed server"
            sx={[logBoxSx, { m: 0, maxHeight: 320 }]}
          >
            {exit.last_lines.join("\n")}
          </Box>
        </>
      )}
    </Panel>
  );
}

export default function Controls() {
  const { status } = useSnapshot(server) as { status: ServerStatus | null };
  const crashed = status?.last_exit?.reason === "crashed" ? status.last_exit : null;
  const versions = useVersions(status);
  const noGame = versions.data !== null && !versions.data.gameFound;
  return (
    <Page title="Controls">
      <Box sx={{ display: "grid", gap: 2.5, gridTemplateColumns: { xs: "1fr", lg: "minmax(0, 1fr) minmax(0, 1fr)" }, alignItems: "start", maxWidth: 1480 }}>
        {noGame && <GameVersionsPanel status={status} versions={versions} />}
        <Panel title="Server">
          <Stack spacing={2.5}>
            <Facts status={status} />
            {status === null
              ? <Typography color="text.secondary">The server's status is not known yet.</Typography>
              : status.running
              ? <RunningControls status={status} />
              : <StartForm />}
          </Stack>
        </Panel>
        {!noGame && <GameVersionsPanel status={status} versions={versions} />}
        {crashed && <LastCrash exit={crashed} />}
      </Box>
    </Page>
  );
}
