// The game's health on Controls (issue 51): cards with CPU, memory, free disk, players, map age and UPS from
// the panel's last sample (GET /api/health, asked every 10 s while the page is open), and for admins the
// exact-UPS switch (which says first what it costs: achievements) and the public status page's choices.

import { type ReactNode, useEffect, useState } from "react";
import { Box, FormControlLabel, Link, Stack, Switch, TextField, Typography } from "@mui/material";
import { useSnapshot } from "valtio";
import { Panel } from "../../components/Page.tsx";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { healthApi } from "../../api/health.ts";
import { connection } from "../../state/connection.ts";
import { server } from "../../state/server.ts";
import { useCan } from "../../state/access.ts";
import { showFlash } from "../../state/flash.ts";
import type { HealthNow, HealthSettings } from "../../../../shared/contract/health.ts";
import { formatUptime } from "../../../../shared/format.ts";

const EVERY_MS = 10_000;

/** Said before exact UPS is switched on (issue 51): a Lua command costs the save its achievements. */
export const EXACT_UPS_WARNING =
  "Exact UPS reads game.tick with a Lua command (/sc) every sample. Any Lua command disables achievements for that save, for good: " +
  "the save loaded now and every save the server runs while this is on. Without it, UPS is estimated from the map's age (/time) " +
  "within about 2%, and no achievements are lost.";

export function formatBytes(b: number): string {
  if (b >= 1024 ** 3) return `${(b / 1024 ** 3).toFixed(1)} GiB`;
  if (b >= 1024 ** 2) return `${Math.round(b / 1024 ** 2)} MiB`;
  return `${Math.round(b / 1024)} KiB`;
}

function upsText(h: HealthNow): { value: string; note?: string } {
  switch (h.ups_state) {
    case "running":
      return {
        value: h.ups!.toFixed(h.exact_ups ? 1 : 0),
        note: h.exact_ups ? "exact" : `±${Math.max(1, Math.round(h.ups_error ?? 1))}`,
      };
    case "paused":
      return { value: "paused", note: "nobody online (auto_pause) or paused" };
    case "no-answer":
      return { value: "not answering", note: "the process runs, the console is silent" };
    case "measuring":
      return { value: "measuring…", note: h.exact_ups ? undefined : "about a minute" };
    default:
      return { value: "—" };
  }
}

function Card(
  { label, value, note, testId, warn }: {
    label: string;
    value: ReactNode;
    note?: string;
    testId: string;
    warn?: boolean;
  },
) {
  return (
    <Box
      data-testid={testId}
      sx={{ bgcolor: "rgba(0,0,0,0.35)", borderRadius: 1, px: 1.5, py: 1, minWidth: 0 }}
    >
      <Typography variant="caption" color="text.secondary" component="div">{label}</Typography>
      <Typography
        sx={{
          fontWeight: 700,
          fontSize: "1.25rem",
          lineHeight: 1.3,
          color: warn ? "warning.main" : undefined,
          overflowWrap: "anywhere",
        }}
      >
        {value}
      </Typography>
      {note && <Typography variant="caption" color="text.secondary" component="div">{note}</Typography>}
    </Box>
  );
}

function useHealth(): HealthNow | null {
  const { online } = useSnapshot(connection);
  const { status } = useSnapshot(server);
  const [h, setH] = useState<HealthNow | null>(null);
  useEffect(() => {
    if (!online) return;
    let live = true;
    const ask = () => healthApi.now().then((r) => live && setH(r), () => {});
    void ask();
    const t = setInterval(ask, EVERY_MS);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [online, status?.status]);
  return h;
}

export function HealthCards() {
  const h = useHealth();
  const running = h !== null && h.state !== "stopped";
  const ups = h ? upsText(h) : { value: "—" };
  const dash = "—";
  return (
    <Panel title="Health">
      <Box
        sx={{
          display: "grid",
          gap: 1,
          gridTemplateColumns: { xs: "repeat(2, minmax(0, 1fr))", sm: "repeat(3, minmax(0, 1fr))" },
        }}
      >
        <Card
          label="UPS"
          testId="health-ups"
          value={running ? ups.value : dash}
          note={running ? ups.note : "game stopped"}
          warn={h?.ups_state === "no-answer" || (h?.ups_state === "running" && (h.ups ?? 60) < 55)}
        />
        <Card
          label="CPU"
          testId="health-cpu"
          value={h?.cpu_percent != null ? `${h.cpu_percent.toFixed(0)} %` : dash}
          note={running ? "of one core, last minute" : undefined}
        />
        <Card
          label="Memory"
          testId="health-memory"
          value={h?.memory_bytes != null ? formatBytes(h.memory_bytes) : dash}
          note={running ? "resident" : undefined}
        />
        <Card
          label="Free disk"
          testId="health-disk"
          value={h?.disk_free_bytes != null ? formatBytes(h.disk_free_bytes) : dash}
          note="saves and backups"
        />
        <Card label="Players online" testId="health-players" value={h?.players_online ?? dash} />
        <Card
          label="Map age"
          testId="health-map-age"
          value={h?.map_age_s != null ? formatUptime(h.map_age_s * 1000) : dash}
          note={h?.map_age_s != null ? "game time" : undefined}
        />
      </Box>
    </Panel>
  );
}

/** Exact UPS and the public status page: an admin's choices. */
export function HealthSettingsPanel() {
  const isAdmin = useCan("admin");
  const [s, setS] = useState<HealthSettings | null>(null);
  const [asking, setAsking] = useState(false);
  const [address, setAddress] = useState("");
  useEffect(() => {
    if (!isAdmin) return;
    healthApi.settings().then((r) => {
      setS(r);
      setAddress(r.public_address);
    }, () => {});
  }, [isAdmin]);
  if (!isAdmin || !s) return null;
  const save = (change: Partial<HealthSettings>) =>
    healthApi.update(change).then((r) => {
      setS(r);
      setAddress(r.public_address);
      showFlash("Health settings saved.", "success");
    }, () => {});
  const base = `${location.origin}/status/default`;
  return (
    <Panel title="Health settings">
      <Stack spacing={1.5}>
        <Box>
          <FormControlLabel
            control={
              <Switch
                checked={s.exact_ups}
                onChange={(e) => (e.target.checked ? setAsking(true) : void save({ exact_ups: false }))}
              />
            }
            label="Exact UPS (Lua)"
          />
          <Typography variant="body2" color="text.secondary">
            {s.exact_ups
              ? "UPS is read from game.tick: achievements are off for the saves run while this is on."
              : "UPS is estimated from the map's age: no Lua, achievements kept."}
          </Typography>
        </Box>
        <Box>
          <FormControlLabel
            control={
              <Switch
                checked={s.public_status}
                onChange={(e) => void save({ public_status: e.target.checked })}
              />
            }
            label="Public status page"
          />
          <Typography variant="body2" color="text.secondary">
            Anyone with the address sees the server's name, state, players, version, uptime and join address,
            without signing in.
          </Typography>
          {s.public_status && (
            <Stack spacing={1} sx={{ mt: 1, overflowWrap: "anywhere" }}>
              <Link href={base} target="_blank" rel="noopener">{base}</Link>
              <Link href={`${base}.json`} target="_blank" rel="noopener">{base}.json</Link>
              <Link href={`${base}.svg`} target="_blank" rel="noopener">{base}.svg (badge)</Link>
              <Box>
                <FormControlLabel
                  control={
                    <Switch
                      checked={s.public_players}
                      onChange={(e) => void save({ public_players: e.target.checked })}
                    />
                  }
                  label="Show player names on it"
                />
              </Box>
              <TextField
                size="small"
                label="Join address shown"
                placeholder="the game's own address"
                value={address}
                onChange={(e) => setAddress(e.target.value)}
                onBlur={() => address !== s.public_address && void save({ public_address: address })}
                slotProps={{ htmlInput: { maxLength: 200 } }}
              />
            </Stack>
          )}
        </Box>
      </Stack>
      <ConfirmDialog
        open={asking}
        title="Switch on exact UPS?"
        message={EXACT_UPS_WARNING}
        confirmLabel="Switch on"
        danger
        onConfirm={() => void save({ exact_ups: true })}
        onClose={() => setAsking(false)}
      />
    </Panel>
  );
}
