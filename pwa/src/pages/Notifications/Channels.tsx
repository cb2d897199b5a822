// Alert channels beside the push devices: Discord, Slack-compatible, ntfy and a signed JSON webhook. Each
// with its events and servers, on/off, the last delivery, "Send test"; the webhook's secret is shown once.

import { useCallback, useEffect, useState } from "react";
import {
  Alert,
  Box,
  Button,
  Checkbox,
  Chip,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  FormGroup,
  IconButton,
  MenuItem,
  Stack,
  Switch,
  TextField,
  Tooltip,
  Typography,
} from "@mui/material";
import AddIcon from "@mui/icons-material/Add";
import EditIcon from "@mui/icons-material/Edit";
import SendIcon from "@mui/icons-material/Send";
import { useSnapshot } from "valtio";
import { Panel } from "../../components/Page.tsx";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { DeleteButton } from "../../components/DeleteButton.tsx";
import { channelsApi } from "../../api/alerts.ts";
import { showFlash } from "../../state/flash.ts";
import { connection } from "../../state/connection.ts";
import { factorio } from "../../theme.ts";
import {
  ALERT_CATALOGUE,
  type AlertChannel,
  type AlertEvent,
  CHANNEL_TYPE_LABELS,
  CHANNEL_TYPES,
  type ChannelType,
  DEFAULT_ALERT_EVENTS,
} from "../../../../shared/alerts.ts";
import {
  CHANNEL_NAME_MAX,
  type ChannelField,
  firstError,
  validateChannel,
} from "../../../../shared/validation.ts";
import { type ServerChoice, ServersChoice, serversText } from "./Servers.tsx";

const URL_HINT: Record<ChannelType, string> = {
  discord: "Server Settings > Integrations > Webhooks > Copy Webhook URL",
  slack: "The incoming webhook URL (Slack, Mattermost, Rocket.Chat...)",
  ntfy: "The ntfy server, e.g. https://ntfy.sh",
  webhook: "Where the panel POSTs JSON, signed with HMAC-SHA256",
};

function utc(iso: string): string {
  return iso.slice(0, 19).replace("T", " ");
}

interface Form {
  type: ChannelType;
  name: string;
  url: string;
  topic: string;
  priority: number;
  token: string;
  events: AlertEvent[];
  servers: number[] | null;
}

const EMPTY: Form = {
  type: "discord",
  name: "",
  url: "",
  topic: "",
  priority: 3,
  token: "",
  events: [...DEFAULT_ALERT_EVENTS],
  servers: null,
};

function ChannelDialog(
  { open, editing, servers, onClose, onSaved }: {
    open: boolean;
    editing: AlertChannel | null;
    servers: readonly ServerChoice[];
    onClose: () => void;
    onSaved: (secret: string | null) => void;
  },
) {
  const [form, setForm] = useState<Form>(EMPTY);
  const [saving, setSaving] = useState(false);
  useEffect(() => {
    if (!open) return;
    setForm(
      editing
        ? {
          ...EMPTY,
          type: editing.type,
          name: editing.name,
          url: "",
          priority: editing.priority ?? 3,
          events: [...editing.events],
          servers: editing.servers && [...editing.servers],
        }
        : EMPTY,
    );
  }, [open, editing]);
  const set = <K extends keyof Form>(k: K, v: Form[K]) => setForm((f) => ({ ...f, [k]: v }));

  async function save() {
    setSaving(true);
    try {
      const ntfy = form.type === "ntfy";
      if (editing) {
        await channelsApi.update(editing.id, {
          name: form.name,
          events: form.events,
          servers: form.servers,
          ...(form.url.trim() ? { url: form.url.trim() } : {}),
          ...(ntfy
            ? {
              priority: form.priority,
              ...(form.topic ? { topic: form.topic } : {}),
              ...(form.token ? { token: form.token } : {}),
            }
            : {}),
        });
        onSaved(null);
      } else {
        const created = await channelsApi.create({
          type: form.type,
          name: form.name,
          url: form.url.trim(),
          events: form.events,
          servers: form.servers,
          ...(ntfy
            ? { topic: form.topic, priority: form.priority, ...(form.token ? { token: form.token } : {}) }
            : {}),
        });
        onSaved(created.secret ?? null);
      }
      onClose();
    } catch {
      // flashed by the client
    } finally {
      setSaving(false);
    }
  }

  const ntfy = form.type === "ntfy";
  // The server's own rules and words (shared/validation.ts), shown as the fields are filled in.
  const errors = validateChannel({
    name: form.name === "" ? undefined : form.name,
    url: form.url.trim(),
    ...(ntfy ? { topic: form.topic, token: form.token } : {}),
  });
  const helper = (field: ChannelField, hint?: string) => ({
    error: !!errors[field],
    helperText: errors[field] ?? hint,
  });
  return (
    <Dialog open={open} onClose={onClose} maxWidth="sm" fullWidth aria-labelledby="channel-title">
      <DialogTitle id="channel-title">{editing ? `Edit ${editing.name}` : "Add channel"}</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ mt: 1 }}>
          <TextField
            select
            label="Type"
            value={form.type}
            disabled={editing !== null}
            onChange={(e) => set("type", e.target.value as ChannelType)}
          >
            {CHANNEL_TYPES.map((t) => <MenuItem key={t} value={t}>{CHANNEL_TYPE_LABELS[t]}</MenuItem>)}
          </TextField>
          <TextField
            label="Name"
            value={form.name}
            onChange={(e) => set("name", e.target.value)}
            {...helper("name")}
            slotProps={{ htmlInput: { maxLength: CHANNEL_NAME_MAX } }}
          />
          <TextField
            label={ntfy ? "Server URL" : "Webhook URL"}
            value={form.url}
            placeholder={editing ? `${editing.url} (leave empty to keep)` : undefined}
            {...helper("url", URL_HINT[form.type])}
            onChange={(e) => set("url", e.target.value)}
          />
          {ntfy && (
            <>
              <TextField
                label="Topic"
                value={form.topic}
                placeholder={editing?.topic ? `${editing.topic} (leave empty to keep)` : undefined}
                {...helper("topic")}
                onChange={(e) => set("topic", e.target.value)}
              />
              <TextField
                select
                label="Priority"
                value={form.priority}
                onChange={(e) => set("priority", Number(e.target.value))}
              >
                {[1, 2, 3, 4, 5].map((p) => (
                  <MenuItem key={p} value={p}>
                    {p}
                    {p === 3 ? " (default)" : p === 5 ? " (max)" : p === 1 ? " (min)" : ""}
                  </MenuItem>
                ))}
              </TextField>
              <TextField
                label="Access token (optional)"
                type="password"
                value={form.token}
                placeholder={editing?.has_token ? "stored (leave empty to keep)" : undefined}
                {...helper("token")}
                onChange={(e) => set("token", e.target.value)}
              />
            </>
          )}
          <Typography variant="subtitle2">Events</Typography>
          <FormGroup row aria-label="Events of the channel">
            {ALERT_CATALOGUE.map((e) => (
              <FormControlLabel
                key={e.event}
                label={e.label}
                title={e.help}
                control={
                  <Checkbox
                    checked={form.events.includes(e.event)}
                    onChange={(_, on) =>
                      set(
                        "events",
                        on ? [...form.events, e.event] : form.events.filter((x) => x !== e.event),
                      )}
                  />
                }
              />
            ))}
          </FormGroup>
          <ServersChoice
            label="Servers of the channel"
            value={form.servers}
            servers={servers}
            onChange={(chosen) => set("servers", chosen)}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button color="secondary" onClick={onClose}>Cancel</Button>
        <Button
          onClick={() => void save()}
          disabled={saving || form.name.trim() === "" || (!editing && form.url.trim() === "") ||
            firstError(errors) !== undefined}
        >
          {editing ? "Save" : "Add"}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function ChannelRow(
  { channel, servers, onChanged, onEdit, onRemove }: {
    channel: AlertChannel;
    servers: readonly ServerChoice[];
    onChanged: () => void;
    onEdit: () => void;
    onRemove: () => void;
  },
) {
  const { online } = useSnapshot(connection);
  const [testing, setTesting] = useState(false);
  async function test() {
    setTesting(true);
    try {
      const r = await channelsApi.test(channel.id);
      showFlash(r.message, r.ok ? "success" : "error");
    } catch {
      // flashed by the client
    } finally {
      setTesting(false);
      onChanged();
    }
  }
  async function toggle(enabled: boolean) {
    try {
      await channelsApi.update(channel.id, { enabled });
    } catch {
      // flashed by the client
    }
    onChanged();
  }
  const labels = ALERT_CATALOGUE.filter((e) => channel.events.includes(e.event)).map((e) => e.label);
  return (
    <Box
      component="li"
      aria-label={channel.name}
      sx={{
        listStyle: "none",
        p: 1.5,
        bgcolor: factorio.inset,
        boxShadow: "inset 0 2px 4px rgba(0,0,0,0.85), inset 0 0 0 1px #000",
        borderRadius: 1,
      }}
    >
      <Box sx={{ display: "flex", alignItems: "center", gap: 1, flexWrap: "wrap" }}>
        <Typography
          component="div"
          sx={{ fontWeight: 700, flexGrow: 1, minWidth: 0, overflowWrap: "anywhere" }}
        >
          {channel.name} <Chip size="small" label={CHANNEL_TYPE_LABELS[channel.type]} sx={{ ml: 0.5 }} />
        </Typography>
        <Box sx={{ display: "flex", alignItems: "center", ml: "auto" }}>
          <Tooltip title={channel.enabled ? "On: click to turn off" : "Off: click to turn on"}>
            <Switch
              checked={channel.enabled}
              disabled={!online}
              onChange={(_, on) => void toggle(on)}
              slotProps={{ input: { "aria-label": `${channel.name} on` } }}
            />
          </Tooltip>
          <Tooltip title="Send test">
            <span>
              <IconButton
                aria-label={`Send test to ${channel.name}`}
                disabled={testing || !online}
                onClick={() => void test()}
              >
                <SendIcon />
              </IconButton>
            </span>
          </Tooltip>
          <Tooltip title="Edit">
            <span>
              <IconButton aria-label={`Edit ${channel.name}`} disabled={!online} onClick={onEdit}>
                <EditIcon />
              </IconButton>
            </span>
          </Tooltip>
          <DeleteButton
            title="Delete"
            label={`Delete ${channel.name}`}
            disabled={!online}
            onClick={onRemove}
          />
        </Box>
      </Box>
      <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: "anywhere" }}>
        {channel.url}
        {channel.type === "ntfy" &&
          ` · topic ${channel.topic} · priority ${channel.priority}${
            channel.has_token ? " · token stored" : ""
          }`}
      </Typography>
      <Typography
        variant="body2"
        color={channel.last_ok === false ? "error" : "text.secondary"}
        sx={{ overflowWrap: "anywhere" }}
      >
        {channel.last_delivery_at
          ? `Last delivery ${utc(channel.last_delivery_at)}: ${channel.last_result}`
          : "Nothing sent yet"}
      </Typography>
      <Typography variant="body2" sx={{ mt: 0.5 }}>
        {labels.length ? labels.join(", ") : "No events chosen"}
      </Typography>
      {servers.length > 1 && (
        <Typography variant="body2" color="text.secondary" sx={{ overflowWrap: "anywhere" }}>
          Servers: {serversText(channel.servers, servers)}
        </Typography>
      )}
    </Box>
  );
}

export function Channels({ servers }: { servers: readonly ServerChoice[] }) {
  const { online } = useSnapshot(connection);
  const [channels, setChannels] = useState<AlertChannel[] | null>(null);
  const [dialog, setDialog] = useState<{ editing: AlertChannel | null } | null>(null);
  const [removing, setRemoving] = useState<AlertChannel | null>(null);
  const [secret, setSecret] = useState<string | null>(null);

  const load = useCallback(() => {
    channelsApi.list().then(setChannels, () => {});
  }, []);
  useEffect(() => {
    if (online) load();
  }, [online, load]);

  return (
    <Panel
      title="Channels"
      action={
        <Button startIcon={<AddIcon />} disabled={!online} onClick={() => setDialog({ editing: null })}>
          Add channel
        </Button>
      }
    >
      <Typography color="text.secondary" sx={{ mb: 1.5 }}>
        Alerts for everyone who runs this server: a Discord or Slack channel, ntfy, or your own script.
      </Typography>
      {channels === null
        ? (
          <Typography color="text.secondary">
            {online ? "Loading..." : "Channels are shown when the panel can be reached."}
          </Typography>
        )
        : channels.length === 0
        ? <Typography color="text.secondary">No channel yet.</Typography>
        : (
          <Stack component="ul" spacing={1.5} sx={{ m: 0, p: 0 }} aria-label="Channels">
            {channels.map((ch) => (
              <ChannelRow
                key={ch.id}
                channel={ch}
                servers={servers}
                onChanged={load}
                onEdit={() => setDialog({ editing: ch })}
                onRemove={() => setRemoving(ch)}
              />
            ))}
          </Stack>
        )}
      <ChannelDialog
        open={dialog !== null}
        editing={dialog?.editing ?? null}
        servers={servers}
        onClose={() => setDialog(null)}
        onSaved={(s) => {
          if (s) setSecret(s);
          else showFlash("Channel saved.", "success");
          load();
        }}
      />
      <Dialog
        open={secret !== null}
        onClose={() => setSecret(null)}
        maxWidth="sm"
        fullWidth
        aria-labelledby="secret-title"
      >
        <DialogTitle id="secret-title">Webhook secret</DialogTitle>
        <DialogContent>
          <Alert severity="warning" sx={{ mb: 2 }}>
            Copy it now: it is not shown again. Your receiver checks the X-Factorio-Panel-Signature header:
            HMAC-SHA256 of "timestamp.body" (timestamp from X-Factorio-Panel-Timestamp) with this secret, as
            sha256=hex.
          </Alert>
          <TextField
            fullWidth
            label="Secret"
            value={secret ?? ""}
            slotProps={{ htmlInput: { readOnly: true, "data-testid": "webhook-secret" } }}
            onFocus={(e) => e.target.select()}
          />
        </DialogContent>
        <DialogActions>
          <Button
            onClick={() =>
              void navigator.clipboard?.writeText(secret ?? "").then(
                () => showFlash("Copied.", "success"),
                () => {},
              )}
          >
            Copy
          </Button>
          <Button onClick={() => setSecret(null)}>Done</Button>
        </DialogActions>
      </Dialog>
      <ConfirmDialog
        open={removing !== null}
        title="Delete channel"
        message={`${removing?.name ?? ""} will no longer get alerts.`}
        confirmLabel="Delete"
        danger
        onClose={() => setRemoving(null)}
        onConfirm={() => {
          const ch = removing;
          if (!ch) return;
          channelsApi.remove(ch.id).then((m) => showFlash(m, "success"), () => {}).finally(load);
        }}
      />
    </Panel>
  );
}
