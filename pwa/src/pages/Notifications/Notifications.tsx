// Notifications: turn push alerts on or off for this device, see the devices that get your alerts,
// choose the events and servers each one gets and its quiet hours, rename or remove them, and send a test
// notification; below, the alert channels (Discord, Slack, ntfy, webhook) of the whole panel.

import { DeleteButton } from "../../components/DeleteButton.tsx";
import { useCallback, useEffect, useRef, useState } from "react";
import {
  Alert,
  Box,
  Button,
  Checkbox,
  Chip,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  FormGroup,
  IconButton,
  Stack,
  TextField,
  Tooltip,
  Typography,
} from "@mui/material";
import EditIcon from "@mui/icons-material/Edit";
import SendIcon from "@mui/icons-material/Send";
import { useSnapshot } from "valtio";
import { Page, Panel } from "../../components/Page.tsx";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { pushApi } from "../../api/push.ts";
import { showFlash } from "../../state/flash.ts";
import { connection } from "../../state/connection.ts";
import {
  browserSubscription,
  disableOnThisDevice,
  enableOnThisDevice,
  type EnableStep,
  needsHomeScreen,
  permission,
  PRIVATE_WINDOW_BLOCKS,
  PUSH_SERVICE_TIMEOUT_S,
  PushSetupError,
  pushSupport,
} from "../../push/device.ts";
import { PUSH_EVENTS, type PushDevice, type PushEvent, type PushTestResult } from "../../../../shared/api.ts";
import { factorio } from "../../theme.ts";
import { Channels } from "./Channels.tsx";
import { session } from "../../state/session.ts";
import { type Role, roleAtLeast } from "../../../../shared/api.ts";
import { QuietHoursLine } from "./QuietHours.tsx";
import { type ServerChoice, ServersChoice, useServers } from "./Servers.tsx";

/** The spec's date format: YYYY-MM-DD HH:MM:SS in UTC. */
function utc(iso: string): string {
  return iso.slice(0, 19).replace("T", " ");
}

function flashResults(results: PushTestResult[]): void {
  for (const r of results) showFlash(r.message, r.ok ? "success" : "error");
}

/**
 * What enabling waits for, said while it waits: the browser's question, then its push service (which can
 * take many seconds, or never answer: counted, and given up after PUSH_SERVICE_TIMEOUT_S), then the panel.
 */
function EnableProgress({ step }: { step: EnableStep }) {
  const [seconds, setSeconds] = useState(0);
  useEffect(() => {
    setSeconds(0);
    const timer = setInterval(() => setSeconds((s) => s + 1), 1000);
    return () => clearInterval(timer);
  }, [step]);
  const text = step === "permission"
    ? "Asking the browser for permission to show notifications: answer its question near the address bar."
    : step === "push-service"
    ? `Waiting for the browser's push service to register this device (${seconds} s; it gives up after ${PUSH_SERVICE_TIMEOUT_S} s).`
    : "Saving this device in the panel...";
  return (
    <Box role="status" data-testid="enable-progress" sx={{ display: "flex", gap: 1.5, alignItems: "center" }}>
      <CircularProgress size={18} sx={{ flexShrink: 0 }} aria-hidden />
      <Typography>{text}</Typography>
    </Box>
  );
}

function ThisDevice(
  { here, busy, step, failure, onEnable, onDisable }: {
    here: PushDevice | null;
    busy: boolean;
    /** What enabling is waiting for, while it runs. */
    step: EnableStep | null;
    /** Why the last try to enable failed. */
    failure: string | null;
    onEnable: () => void;
    onDisable: () => void;
  },
) {
  const { online } = useSnapshot(connection);
  const support = pushSupport();
  if (support === "insecure") {
    return (
      <Alert severity="info">
        Notifications need the panel to be opened over HTTPS (or on this computer as localhost). An admin sets
        it up under Settings, HTTPS.
      </Alert>
    );
  }
  if (support === "unsupported") {
    return (
      <Alert severity="info">
        {needsHomeScreen()
          ? "On iPhone and iPad, add the panel to the Home Screen first (Share, then Add to Home Screen), open it from there and enable notifications in that app."
          : "This browser offers no push notifications here. Private (incognito) windows have none in most browsers, and some browsers have none at all. To get alerts on this device, open the panel in a normal window of Chrome, Edge, Firefox or Safari."}
      </Alert>
    );
  }
  const blocked = permission() === "denied";
  return (
    <Stack spacing={2}>
      {here
        ? (
          <Typography data-testid="this-device-state">
            Alerts are on for this device ({here.name}).
          </Typography>
        )
        : (
          <Typography data-testid="this-device-state">
            Get an alert on this device when the Factorio server stops, crashes or starts, even while the
            panel is closed.
          </Typography>
        )}
      {blocked && !here && (
        <Alert severity="warning">
          Notifications are blocked for this site. Allow them in the browser's site settings, then come back
          here. {PRIVATE_WINDOW_BLOCKS}
        </Alert>
      )}
      {step && <EnableProgress step={step} />}
      {failure && !step && <Alert severity="error" data-testid="enable-failed">{failure}</Alert>}
      <Box>
        {here
          ? (
            <Button color="secondary" disabled={busy || !online} onClick={onDisable}>
              Turn off on this device
            </Button>
          )
          : (
            <Button disabled={busy || !online || blocked} onClick={onEnable}>
              Enable notifications on this device
            </Button>
          )}
      </Box>
    </Stack>
  );
}

function RenameDialog(
  { device, onClose, onSaved }: { device: PushDevice | null; onClose: () => void; onSaved: () => void },
) {
  const [name, setName] = useState("");
  useEffect(() => setName(device?.name ?? ""), [device]);
  async function save() {
    if (!device) return;
    try {
      await pushApi.update(device.id, { name });
      onSaved();
      onClose();
    } catch {
      // flashed by the client
    }
  }
  return (
    <Dialog open={device !== null} onClose={onClose} maxWidth="xs" fullWidth aria-labelledby="rename-title">
      <DialogTitle id="rename-title">Rename device</DialogTitle>
      <DialogContent>
        <TextField
          autoFocus
          fullWidth
          label="Device name"
          value={name}
          onChange={(e) =>
            setName(e.target.value)}
          onKeyDown={(e) =>
            e.key === "Enter" && void save()}
          slotProps={{ htmlInput: { maxLength: 60 } }}
          sx={{ mt: 1 }}
        />
      </DialogContent>
      <DialogActions>
        <Button color="secondary" onClick={onClose}>Cancel</Button>
        <Button
          onClick={() =>
            void save()}
          disabled={name.trim() === ""}
        >
          Save
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function DeviceRow(
  { device, isHere, servers, onChanged, onTested, onRename, onRemove }: {
    device: PushDevice;
    isHere: boolean;
    /** The servers the user sees, to choose from. */
    servers: readonly ServerChoice[];
    onChanged: (d: PushDevice) => void;
    /** A test may have removed the device (gone) or changed its last delivery. */
    onTested: () => void;
    onRename: () => void;
    onRemove: () => void;
  },
) {
  const { online } = useSnapshot(connection);
  const [testing, setTesting] = useState(false);
  /** Shown at once; put back if the panel refuses. */
  async function change(update: Pick<PushDevice, "events"> | Pick<PushDevice, "servers">) {
    onChanged({ ...device, ...update });
    try {
      onChanged(await pushApi.update(device.id, update));
    } catch {
      onChanged(device); // the client flashed why
    }
  }
  function toggle(event: PushEvent, on: boolean) {
    const events = PUSH_EVENTS.map((e) => e.event).filter((
      e,
    ) => (e === event ? on : device.events.includes(e)));
    void change({ events });
  }
  async function test() {
    setTesting(true);
    try {
      flashResults(await pushApi.test(device.id));
    } catch {
      // flashed by the client
    } finally {
      setTesting(false);
      onTested();
    }
  }
  return (
    <Box
      component="li"
      aria-label={device.name}
      sx={{
        listStyle: "none",
        p: 1.5,
        bgcolor: factorio.inset,
        boxShadow: "inset 0 2px 4px rgba(0,0,0,0.85), inset 0 0 0 1px #000",
        borderRadius: 1,
      }}
    >
      <Box sx={{ display: "flex", alignItems: "center", gap: 1, flexWrap: "wrap" }}>
        <Typography sx={{ fontWeight: 700, flexGrow: 1, minWidth: 0, overflowWrap: "anywhere" }}>
          {device.name} {isHere && <Chip size="small" color="primary" label="This device" sx={{ ml: 0.5 }} />}
        </Typography>
        <Box sx={{ display: "flex", ml: "auto" }}>
          <Tooltip title="Send a test notification">
            <span>
              <IconButton
                aria-label={`Send a test notification to ${device.name}`}
                disabled={testing || !online}
                onClick={() => void test()}
              >
                <SendIcon />
              </IconButton>
            </span>
          </Tooltip>
          <Tooltip title="Rename">
            <span>
              <IconButton aria-label={`Rename ${device.name}`} disabled={!online} onClick={onRename}>
                <EditIcon />
              </IconButton>
            </span>
          </Tooltip>
          <DeleteButton
            title="Remove"
            label={`Remove ${device.name}`}
            disabled={!online}
            onClick={onRemove}
          />
        </Box>
      </Box>
      <Typography variant="body2" color="text.secondary">
        Added {utc(device.created_at)}
        {device.last_success_at
          ? ` · last alert delivered ${utc(device.last_success_at)}`
          : " · no alert delivered yet"}
      </Typography>
      {device.last_error && (
        <Typography variant="body2" color="error" sx={{ overflowWrap: "anywhere" }}>
          Last delivery failed: {device.last_error}
        </Typography>
      )}
      <QuietHoursLine device={device} onChanged={onChanged} />
      <FormGroup row aria-label={`Events for ${device.name}`} sx={{ mt: 0.5 }}>
        {PUSH_EVENTS.map((e) => (
          <FormControlLabel
            key={e.event}
            label={e.label}
            control={
              <Checkbox
                checked={device.events.includes(e.event)}
                disabled={!online}
                onChange={(_, on) => toggle(e.event, on)}
              />
            }
          />
        ))}
      </FormGroup>
      <ServersChoice
        label={`Servers for ${device.name}`}
        value={device.servers}
        servers={servers}
        disabled={!online}
        onChange={(chosen) => void change({ servers: chosen })}
      />
    </Box>
  );
}

export default function Notifications() {
  const { online } = useSnapshot(connection);
  const { user } = useSnapshot(session);
  const [devices, setDevices] = useState<PushDevice[] | null>(null);
  const [hereEndpoint, setHereEndpoint] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [step, setStep] = useState<EnableStep | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [renaming, setRenaming] = useState<PushDevice | null>(null);
  const [removing, setRemoving] = useState<PushDevice | null>(null);
  const [testing, setTesting] = useState(false);
  const servers = useServers(online);

  const load = useCallback(() => {
    pushApi.devices().then(setDevices, () => {});
    browserSubscription().then((s) => setHereEndpoint(s?.endpoint ?? null), () => setHereEndpoint(null));
  }, []);
  useEffect(load, [load]);
  // Again when the connection comes back (not at arrival: the effect above loads then).
  const wasOnline = useRef(online);
  useEffect(() => {
    if (online && !wasOnline.current) load();
    wasOnline.current = online;
  }, [online, load]);

  const here = devices?.find((d) => d.endpoint === hereEndpoint) ?? null;

  /** Runs an action on this device; a setup failure goes to `onSetupError` (a flash unless told). */
  async function run(
    action: () => Promise<string | null>,
    onSetupError: (message: string) => void = (m) => showFlash(m, "error"),
  ) {
    setBusy(true);
    try {
      const message = await action();
      if (message) showFlash(message, "success");
    } catch (e) {
      if (e instanceof PushSetupError) onSetupError(e.message);
      // ApiErrors were flashed by the client
    } finally {
      setBusy(false);
      setStep(null);
      load();
    }
  }

  async function testAll() {
    setTesting(true);
    try {
      flashResults(await pushApi.test());
    } catch {
      // flashed by the client
    } finally {
      setTesting(false);
      load();
    }
  }

  return (
    <Page
      title="Notifications"
      actions={
        <Button
          disabled={testing || !online || !devices?.length}
          startIcon={<SendIcon />}
          onClick={() => void testAll()}
        >
          Send test notification
        </Button>
      }
    >
      <Panel title="This device">
        <ThisDevice
          here={here}
          busy={busy}
          step={step}
          failure={failure}
          onEnable={() => {
            setFailure(null);
            // The reason stays on the page: a flash would be gone before a long explanation is read.
            void run(async () => {
              const device = await enableOnThisDevice(setStep);
              return `Notifications are on for ${device.name}.`;
            }, setFailure);
          }}
          onDisable={() =>
            void run(async () => {
              await disableOnThisDevice();
              return "Notifications are off for this device.";
            })}
        />
      </Panel>
      <Panel title="Your devices">
        {devices === null
          ? (
            <Typography color="text.secondary">
              {online ? "Loading..." : "Your devices are shown when the panel can be reached."}
            </Typography>
          )
          : devices.length === 0
          ? <Typography color="text.secondary">No device gets your alerts yet.</Typography>
          : (
            <Stack component="ul" spacing={1.5} sx={{ m: 0, p: 0 }} aria-label="Your devices">
              {devices.map((d) => (
                <DeviceRow
                  key={d.id}
                  device={d}
                  isHere={d.endpoint === hereEndpoint}
                  servers={servers}
                  onChanged={(changed) =>
                    setDevices((list) => list?.map((x) => (x.id === changed.id ? changed : x)) ?? null)}
                  onTested={load}
                  onRename={() => setRenaming(d)}
                  onRemove={() => setRemoving(d)}
                />
              ))}
            </Stack>
          )}
      </Panel>
      {/* Channels are the whole panel's and hold webhook secrets: admins only (the server enforces it). */}
      {roleAtLeast((user?.role as Role | undefined) ?? "admin", "admin") && <Channels servers={servers} />}
      <RenameDialog device={renaming} onClose={() => setRenaming(null)} onSaved={load} />
      <ConfirmDialog
        open={removing !== null}
        title="Remove device"
        message={`${
          removing?.name ?? ""
        } will no longer get alerts. You can enable notifications on it again later.`}
        confirmLabel="Remove"
        danger
        onClose={() => setRemoving(null)}
        onConfirm={() => {
          const d = removing;
          if (!d) return;
          void run(async () => {
            if (d.endpoint === hereEndpoint) await disableOnThisDevice();
            else await pushApi.unsubscribe({ id: d.id });
            return `${d.name} no longer gets alerts.`;
          });
        }}
      />
    </Page>
  );
}
