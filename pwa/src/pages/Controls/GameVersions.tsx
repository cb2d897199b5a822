// The game itself on Controls: "Install Factorio" when no game is found (channel and exact version),
// how the last install ended (its progress and Cancel are the banner above every page,
// components/InstallBanner.tsx), "Update available" with Update / Update & restart, and the installed
// versions with activate and delete. Progress comes from the "factorio_versions" room.

import { useCallback, useEffect, useMemo, useState } from "react";
import {
  Alert,
  AlertTitle,
  Box,
  Button,
  Chip,
  CircularProgress,
  LinearProgress,
  List,
  ListItem,
  ListItemText,
  MenuItem,
  Stack,
  TextField,
  Typography,
} from "@mui/material";
import DownloadIcon from "@mui/icons-material/Download";
import SystemUpdateAltIcon from "@mui/icons-material/SystemUpdateAlt";
import { Panel } from "../../components/Page.tsx";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { DeleteButton } from "../../components/DeleteButton.tsx";
import { versionsApi } from "../../api/versions.ts";
import { socket } from "../../state/socket.ts";
import { refreshStatus } from "../../state/server.ts";
import { showFlash } from "../../state/flash.ts";
import { INSTALL_ENDED, noteInstall } from "../../state/install.ts";
import { WRAP_ANYWHERE } from "../../components/InstallBanner.tsx";
import type { ServerStatus } from "../../../../shared/api.ts";
import {
  type Channel,
  CHANNELS,
  type InstallProgress,
  UPDATE_ENDED,
  type UpdateProgress,
  type VersionsAnswer,
  type VersionsMessage,
} from "../../../../shared/factorio-versions.ts";

/** The versions answer, kept current by the room's messages. */
export function useVersions(status: ServerStatus | null) {
  const [data, setData] = useState<VersionsAnswer | null>(null);
  const load = useCallback(() => {
    versionsApi.list(true).then((d) => {
      setData(d);
      // The banner above every page may have missed the room's replay of a running install.
      noteInstall(d.install);
    }, () => {});
  }, []);
  useEffect(() => {
    // No load() here: the effect below loads on mount too (two identical requests at every visit).
    return socket.subscribe("factorio_versions", (text) => {
      let m: VersionsMessage;
      try {
        m = JSON.parse(text);
      } catch {
        return;
      }
      if (m.kind === "install") {
        setData((d) => (d ? { ...d, install: m.install } : d));
        if (INSTALL_ENDED.includes(m.install.phase)) load();
      } else if (m.kind === "update") {
        setData((d) => (d ? { ...d, update: m.update } : d));
        if (UPDATE_ENDED.includes(m.update.phase)) load();
      } else {
        // A switch: the versions again (the status is asked by the install banner's watcher, state/install.ts).
        load();
      }
    });
  }, [load]);
  // On mount, and again when the server's state changes: activation and delete are allowed only while
  // stopped.
  useEffect(load, [load, status?.status]);
  return { data, load };
}

/** How the last install ended (its progress while it runs is the banner above every page). */
function InstallResult({ install }: { install: InstallProgress }) {
  if (!INSTALL_ENDED.includes(install.phase)) return null;
  return (
    <Alert
      severity={install.phase === "done" ? "success" : install.phase === "failed" ? "error" : "info"}
      data-testid="install-result"
      sx={{ "& .MuiAlert-message": { minWidth: 0, ...WRAP_ANYWHERE } }}
    >
      {install.message}
    </Alert>
  );
}

/** Channel and exact version, newest first; installs the chosen one. */
function InstallForm({ data, label, reload }: { data: VersionsAnswer; label: string; reload: () => void }) {
  const [channel, setChannel] = useState<Channel>("stable");
  const [version, setVersion] = useState("");
  const [busy, setBusy] = useState(false);
  const installed = new Set(data.installed.map((i) => i.version));
  const choices = useMemo(
    () =>
      data.available.filter((a) =>
        (channel === "stable" ? a.channel === "stable" : true) && !installed.has(a.version)
      ),
    [data.available, channel, data.installed],
  );
  const chosen = choices.some((c) => c.version === version) ? version : choices[0]?.version ?? "";

  async function install() {
    setBusy(true);
    try {
      // No flash: the request only started the install, whose progress and outcome the banner shows.
      await versionsApi.install(chosen);
      reload();
    } catch {
      // the client flashed why
    } finally {
      setBusy(false);
    }
  }
  if (data.availableError) return <Alert severity="warning">{data.availableError}</Alert>;
  return (
    <Box
      sx={{
        display: "grid",
        gap: 2,
        gridTemplateColumns: { xs: "1fr", sm: "1fr 1fr auto" },
        alignItems: "start",
      }}
    >
      <TextField
        select
        label="Channel"
        value={channel}
        onChange={(e) => setChannel(e.target.value as Channel)}
        disabled={busy}
      >
        {CHANNELS.map((c) => (
          <MenuItem key={c} value={c}>{c === "stable" ? "Stable" : "Experimental"}</MenuItem>
        ))}
      </TextField>
      <TextField
        select
        label="Version"
        value={chosen}
        onChange={(e) => setVersion(e.target.value)}
        disabled={busy || choices.length === 0}
      >
        {choices.map((c) => <MenuItem key={c.version} value={c.version}>{c.version} ({c.channel})</MenuItem>)}
      </TextField>
      <Button
        color="success"
        startIcon={busy ? <CircularProgress size={18} color="inherit" /> : <DownloadIcon />}
        disabled={busy || !chosen}
        onClick={() => void install()}
        sx={{ minHeight: 56 }}
      >
        {label}
      </Button>
    </Box>
  );
}

function UpdateView(
  { data, status, reload }: { data: VersionsAnswer; status: ServerStatus | null; reload: () => void },
) {
  const [confirm, setConfirm] = useState(false);
  const [busy, setBusy] = useState(false);
  const update = data.update;
  const underWay = update && !UPDATE_ENDED.includes(update.phase);
  const running = status?.status === "running";
  async function go() {
    setBusy(true);
    try {
      // No flash: the update only started; the card below says how it goes and how it ended.
      await versionsApi.update(data.updateAvailable?.latest);
      reload();
    } catch {
      // flashed
    } finally {
      setBusy(false);
    }
  }
  return (
    <Stack spacing={1.5}>
      {update && <UpdateStatus update={update} />}
      {data.updateAvailable && !underWay && (
        <Alert
          severity="info"
          icon={<SystemUpdateAltIcon />}
          action={
            <Button
              color="inherit"
              size="small"
              disabled={busy || !!data.install && !INSTALL_ENDED.includes(data.install.phase)}
              onClick={() => (running ? setConfirm(true) : void go())}
              sx={{ minHeight: 44 }}
            >
              {running ? "Update & restart" : "Update"}
            </Button>
          }
        >
          Update available: {data.updateAvailable.current} → {data.updateAvailable.latest}
          {update?.phase === "rolled-back" && update.to === data.updateAvailable.latest && (
            <Typography variant="body2" sx={{ mt: 0.5 }}>
              Factorio {update.to} did not start last time.
            </Typography>
          )}
        </Alert>
      )}
      <ConfirmDialog
        open={confirm}
        title="Update & restart"
        message={`The players in game are warned (with nobody online, it goes on at once), then the map is saved, the server stops, Factorio ${data.updateAvailable?.latest} starts the same save. If it cannot, Factorio ${data.updateAvailable?.current} runs it again.`}
        confirmLabel="Update & restart"
        onConfirm={() => void go()}
        onClose={() => setConfirm(false)}
      />
    </Stack>
  );
}

/**
 * The seconds left of an update's countdown, counted down here every second from what the panel said when
 * `update` arrived (its own clock: no clock of this device is compared with the server's).
 */
function useSecondsLeft(update: UpdateProgress): number | null {
  const [left, setLeft] = useState(update.secondsLeft);
  useEffect(() => {
    const from = Date.now();
    const seconds = update.secondsLeft;
    setLeft(seconds);
    if (seconds === null) return;
    const timer = setInterval(
      () => setLeft(Math.max(0, seconds - Math.round((Date.now() - from) / 1000))),
      1000,
    );
    return () => clearInterval(timer);
  }, [update]);
  return left;
}

function countdown(seconds: number): string {
  return seconds >= 60 ? `${Math.floor(seconds / 60)} min ${seconds % 60} s` : `${seconds} s`;
}

function UpdateStatus({ update }: { update: UpdateProgress }) {
  const [cancelling, setCancelling] = useState(false);
  const left = useSecondsLeft(update);
  const severity = update.phase === "done"
    ? "success"
    : update.phase === "failed"
    ? "error"
    : update.phase === "rolled-back"
    ? "warning"
    : "info";
  const underWay = !UPDATE_ENDED.includes(update.phase);
  const cancellable = update.phase === "installing" || update.phase === "warning";
  return (
    <Alert
      severity={severity}
      data-testid="update-status"
      sx={{ "& .MuiAlert-message": { minWidth: 0, ...WRAP_ANYWHERE } }}
      action={cancellable && (
        <Button
          color="inherit"
          size="small"
          disabled={cancelling}
          sx={{ minHeight: 44 }}
          onClick={() => {
            setCancelling(true);
            versionsApi.cancelUpdate().then((m) => showFlash(m, "success"), () => {}).finally(() =>
              setCancelling(false)
            );
          }}
        >
          Cancel update
        </Button>
      )}
    >
      <AlertTitle>Update {update.from} → {update.to}</AlertTitle>
      {update.phase === "warning" && left !== null
        ? `Players are warned: the server restarts in ${countdown(left)}.`
        : update.message}
      {underWay && <LinearProgress sx={{ mt: 1 }} aria-label="Update under way" />}
    </Alert>
  );
}

function Installed(
  { data, status, reload }: { data: VersionsAnswer; status: ServerStatus | null; reload: () => void },
) {
  const [remove, setRemove] = useState<string | null>(null);
  const stopped = status?.status === "stopped";
  async function act(p: Promise<string>) {
    try {
      showFlash(await p, "success");
    } catch {
      // flashed
    } finally {
      reload();
      void refreshStatus();
    }
  }
  return (
    <>
      <List dense disablePadding aria-label="Installed versions">
        {data.installed.map((i) => (
          <ListItem
            key={i.version + i.managed}
            disableGutters
            secondaryAction={
              <Box sx={{ display: "flex", gap: 1, alignItems: "center" }}>
                {!i.active && (
                  <Button
                    size="small"
                    variant="outlined"
                    disabled={!stopped}
                    onClick={() => void act(versionsApi.activate(i.version))}
                    sx={{ minHeight: 44 }}
                  >
                    Activate
                  </Button>
                )}
                {i.managed && !i.active && (
                  <DeleteButton
                    title="Delete this version"
                    label={`Delete Factorio ${i.version}`}
                    disabled={!stopped}
                    onClick={() => setRemove(i.version)}
                  />
                )}
              </Box>
            }
            sx={{ pr: 22 }}
          >
            <ListItemText
              primary={
                <Box sx={{ display: "flex", gap: 1, alignItems: "center", flexWrap: "wrap" }}>
                  <Typography sx={{ fontWeight: 600 }}>Factorio {i.version}</Typography>
                  {i.active && <Chip size="small" color="success" label="Active" />}
                  {!i.managed && <Chip size="small" label="Installed by hand" />}
                </Box>
              }
            />
          </ListItem>
        ))}
      </List>
      {!stopped && (
        <Typography variant="body2" color="text.secondary">
          Stop the server to switch or delete versions.
        </Typography>
      )}
      <ConfirmDialog
        open={remove !== null}
        title="Delete version"
        message={`Delete Factorio ${remove}? Saves and mods stay.`}
        confirmLabel="Delete"
        danger
        onConfirm={() => remove && void act(versionsApi.remove(remove))}
        onClose={() => setRemove(null)}
      />
    </>
  );
}

export function GameVersionsPanel(
  { status, versions }: { status: ServerStatus | null; versions: ReturnType<typeof useVersions> },
) {
  const { data, load } = versions;
  const [checking, setChecking] = useState(false);
  if (!data) return null;
  const installing = data.install && !INSTALL_ENDED.includes(data.install.phase) ? data.install : null;
  if (!data.gameFound) {
    return (
      <Panel title="Install Factorio">
        <Stack spacing={2}>
          <Typography color="text.secondary">
            No game was found. The panel downloads the Factorio headless server from factorio.com and checks
            it before installing it.
          </Typography>
          {installing && (
            <Typography>
              Installing Factorio {installing.version}: see its progress at the top of the page.
            </Typography>
          )}
          {data.install && <InstallResult install={data.install} />}
          {!installing && <InstallForm data={data} label="Install Factorio" reload={load} />}
        </Stack>
      </Panel>
    );
  }
  return (
    <Panel
      title="Game versions"
      action={
        <Button
          size="small"
          variant="text"
          disabled={checking}
          onClick={() => {
            setChecking(true);
            versionsApi.check().then(load, () => {}).finally(() => setChecking(false));
          }}
          sx={{ minHeight: 44 }}
        >
          Check for updates
        </Button>
      }
    >
      <Stack spacing={2}>
        <UpdateView data={data} status={status} reload={load} />
        {/* An update reports its own install; its "installed" line would only repeat it. */}
        {data.install && !(data.update && data.install.phase === "done") && (
          <InstallResult install={data.install} />
        )}
        <Installed data={data} status={status} reload={load} />
        {!installing && status?.status === "stopped" && (
          <InstallForm data={data} label="Install" reload={load} />
        )}
      </Stack>
    </Panel>
  );
}
