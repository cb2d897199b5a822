import { memo, useCallback, useEffect, useState } from "react";
import { sameData, useProgressiveCount } from "../../components/useProgressive.ts";
import {
  Box,
  Button,
  Checkbox,
  CircularProgress,
  FormControlLabel,
  FormGroup,
  IconButton,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  TextField,
  Tooltip,
  Typography,
} from "@mui/material";
import DownloadIcon from "@mui/icons-material/Download";
import LockIcon from "@mui/icons-material/Lock";
import LockOpenIcon from "@mui/icons-material/LockOpen";
import RefreshIcon from "@mui/icons-material/Refresh";
import RestoreIcon from "@mui/icons-material/Restore";
import { useSnapshot } from "valtio";
import { Page, Panel } from "../../components/Page.tsx";
import { ReadOnly, ViewerNote } from "../../components/ReadOnly.tsx";
import { useCan } from "../../state/access.ts";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { DeleteButton } from "../../components/DeleteButton.tsx";
import { backupsApi } from "../../api/backups.ts";
import { showFlash } from "../../state/flash.ts";
import { server } from "../../state/server.ts";
import {
  type Backup,
  BACKUP_INCLUDE_LABELS,
  BACKUP_INCLUDES,
  BACKUP_MSG,
  BACKUP_REASON_LABELS,
  BACKUP_REASONS,
  type BackupInclude,
  type BackupReason,
  type BackupSettings,
  holdsSecrets,
  type RetentionRule,
} from "../../../../shared/backups.ts";
import { formatSaveDate, formatSaveSize } from "../Saves/format.ts";
import { RestoreDialog } from "./RestoreDialog.tsx";

function BackUpNow({ settings, onMade }: { settings: BackupSettings | null; onMade: () => void }) {
  const [include, setInclude] = useState<BackupInclude[]>([]);
  const [busy, setBusy] = useState(false);
  // ReadOnly turns the inputs off; a checkbox also needs to be told, to look it.
  const canChange = useCan("operator");
  useEffect(() => {
    if (settings) setInclude(settings.include);
  }, [settings]);

  async function run() {
    setBusy(true);
    try {
      const b = await backupsApi.create(include);
      showFlash(`Backup of ${b.save} made (${formatSaveSize(b.size)}).`, "success");
      onMade();
    } catch {
      // flashed by the client
    } finally {
      setBusy(false);
    }
  }

  const toggle = (i: BackupInclude) =>
    setInclude((cur) => (cur.includes(i) ? cur.filter((x) => x !== i) : [...cur, i]));
  return (
    <Panel title="Back up now">
      <Stack spacing={1.5}>
        <Typography variant="body2" color="text.secondary">
          The save the server runs (or last ran). A running server saves first, so the copy is up to date.
        </Typography>
        <FormGroup aria-label="Also include">
          {BACKUP_INCLUDES.map((i) => (
            <FormControlLabel
              key={i}
              control={
                <Checkbox
                  checked={include.includes(i)}
                  onChange={() => toggle(i)}
                  disabled={busy || !canChange}
                />
              }
              label={BACKUP_INCLUDE_LABELS[i]}
            />
          ))}
        </FormGroup>
        <Box sx={{ display: "flex", alignItems: "center", gap: 1.5 }}>
          <Button onClick={run} disabled={busy}>Back up now</Button>
          {busy && (
            <>
              <CircularProgress size={22} aria-label="Backing up" />
              <Typography variant="body2" color="text.secondary">Backing up…</Typography>
            </>
          )}
        </Box>
      </Stack>
    </Panel>
  );
}

function numberOrNull(v: string): number | null {
  return v.trim() === "" ? null : Number(v);
}

type RuleText = { last: string; days: string };

const ruleText = (r: RetentionRule | undefined): RuleText => ({
  last: r?.keep_last?.toString() ?? "",
  days: r?.keep_days?.toString() ?? "",
});
const ruleOf = (t: RuleText): RetentionRule => ({
  keep_last: numberOrNull(t.last),
  keep_days: numberOrNull(t.days),
});

function Retention(
  { settings, onSaved }: { settings: BackupSettings | null; onSaved: (s: BackupSettings) => void },
) {
  const [all, setAll] = useState<RuleText>({ last: "", days: "" });
  const [floor, setFloor] = useState("");
  // Reasons with a rule of their own; the others follow the rule for all.
  const [own, setOwn] = useState<Partial<Record<BackupReason, RuleText>>>({});
  const canChange = useCan("operator");
  useEffect(() => {
    if (!settings) return;
    setAll(ruleText(settings.retention));
    setFloor(String(settings.min_free_mb));
    setOwn(Object.fromEntries(Object.entries(settings.by_reason).map(([k, r]) => [k, ruleText(r)])));
  }, [settings]);

  async function save() {
    try {
      const s = await backupsApi.saveSettings({
        retention: ruleOf(all),
        by_reason: Object.fromEntries(Object.entries(own).map(([k, t]) => [k, ruleOf(t!)])),
        min_free_mb: Number(floor || 0),
      });
      showFlash("Retention saved.", "success");
      onSaved(s);
    } catch {
      // flashed by the client
    }
  }

  const ruleFields = (t: RuleText, set: (t: RuleText) => void, label: string) => (
    <>
      <TextField
        label="Keep the last"
        type="number"
        value={t.last}
        onChange={(e) => set({ ...t, last: e.target.value })}
        slotProps={{ htmlInput: { "aria-label": `${label}: keep the last` } }}
        size="small"
      />
      <TextField
        label="Keep days"
        type="number"
        value={t.days}
        onChange={(e) => set({ ...t, days: e.target.value })}
        slotProps={{ htmlInput: { "aria-label": `${label}: keep days` } }}
        size="small"
      />
    </>
  );
  return (
    <Panel title="Retention">
      <Stack spacing={2}>
        <Typography variant="body2" color="text.secondary">
          For each reason separately: a backup stays while it is one of the newest N or younger than D days.
          Locked backups always stay. Leave a field empty for no limit.
        </Typography>
        <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: "1fr 1fr" }}>
          {ruleFields(all, setAll, "All reasons")}
        </Box>
        <Box
          sx={{
            display: "grid",
            gap: 1,
            gridTemplateColumns: { xs: "1fr", md: "1fr 1fr" },
            alignItems: "start",
          }}
        >
          {BACKUP_REASONS.map((reason) => (
            <Box key={reason}>
              <FormControlLabel
                control={
                  <Checkbox
                    disabled={!canChange}
                    checked={own[reason] !== undefined}
                    onChange={(e) =>
                      setOwn((o) => {
                        const next = { ...o };
                        if (e.target.checked) next[reason] = { ...all };
                        else delete next[reason];
                        return next;
                      })}
                  />
                }
                label={`Own rule for "${BACKUP_REASON_LABELS[reason]}"`}
              />
              {own[reason] && (
                <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: "1fr 1fr", mt: 1 }}>
                  {ruleFields(own[reason]!, (t) =>
                    setOwn((o) => ({ ...o, [reason]: t })), BACKUP_REASON_LABELS[reason])}
                </Box>
              )}
            </Box>
          ))}
        </Box>
        <TextField
          label="Free space floor"
          type="number"
          value={floor}
          onChange={(e) =>
            setFloor(e.target.value)}
          helperText="MiB; below it the oldest unlocked backups go first (0: off)"
          size="small"
        />
        <Box>
          <Button onClick={save} disabled={!settings}>Save retention</Button>
        </Box>
      </Stack>
    </Panel>
  );
}

const cell = { px: { xs: 0.75, sm: 1.5 } };
// Phones get 44 px touch targets, two by two, so the row keeps room for the save's name.
const touch = { width: { xs: 44, sm: 40 }, height: { xs: 44, sm: 40 } };
const wide = { display: { xs: "none", md: "table-cell" } };

/** One backup; rendered again only when its own data changed (see useProgressiveCount for long lists). */
const BackupRow = memo(
  function BackupRow({ b, isAdmin, onRestore, onDelete, onChanged }: {
    b: Backup;
    /** Only admins download a backup holding the server settings (passwords, tokens). */
    isAdmin: boolean;
    onRestore: (b: Backup) => void;
    onDelete: (b: Backup) => void;
    onChanged: () => void;
  }) {
    async function lock() {
      try {
        await backupsApi.lock(b.id, !b.locked);
        onChanged();
      } catch {
        // flashed by the client
      }
    }
    const [date, time] = formatSaveDate(b.created).split(" ");
    return (
      <TableRow data-testid="backup-row">
        <TableCell sx={{ ...cell, whiteSpace: "nowrap" }}>
          <Box component="span" sx={{ display: { xs: "block", sm: "inline" } }}>{date}</Box>{" "}
          <Box component="span" sx={{ display: { xs: "block", sm: "inline" } }}>{time}</Box>
        </TableCell>
        <TableCell sx={cell}>{BACKUP_REASON_LABELS[b.reason] ?? b.reason}</TableCell>
        <TableCell sx={{ ...cell, overflowWrap: "anywhere" }}>
          {b.save}
          <Typography variant="caption" color="text.secondary" sx={{ display: { xs: "block", md: "none" } }}>
            {formatSaveSize(b.size)}
            {b.includes.length > 0 && ` · + ${b.includes.join(", ")}`}
          </Typography>
          {/* What else it holds, on wide screens too (the download rule depends on "settings"). */}
          {b.includes.length > 0 && (
            <Typography
              variant="caption"
              color="text.secondary"
              sx={{ display: { xs: "none", md: "block" } }}
            >
              {`+ ${b.includes.join(", ")}`}
            </Typography>
          )}
        </TableCell>
        <TableCell sx={{ ...cell, ...wide }}>{b.game_version}</TableCell>
        <TableCell sx={{ ...cell, ...wide, whiteSpace: "nowrap" }} align="right">
          {formatSaveSize(b.size)}
        </TableCell>
        <TableCell sx={{ ...cell, ...wide }}>
          <Tooltip title={`SHA-256 ${b.sha256}`}>
            <Box component="code" sx={{ fontSize: "0.8rem" }}>{b.sha256.slice(0, 12)}</Box>
          </Tooltip>
        </TableCell>
        <TableCell sx={cell} align="right">
          <Box
            sx={{
              display: "inline-grid",
              gridTemplateColumns: { xs: "repeat(2, 44px)", sm: "repeat(4, 40px)" },
              justifyItems: "center",
            }}
          >
            <Tooltip title={b.locked ? "Locked: retention keeps it. Unlock" : "Lock (retention keeps it)"}>
              <IconButton
                aria-label={b.locked ? `Unlock ${b.id}` : `Lock ${b.id}`}
                onClick={lock}
                color={b.locked ? "primary" : "default"}
                sx={touch}
              >
                {b.locked ? <LockIcon /> : <LockOpenIcon />}
              </IconButton>
            </Tooltip>
            {isAdmin || !holdsSecrets(b)
              ? (
                <Tooltip title="Download">
                  <IconButton
                    component="a"
                    href={backupsApi.downloadUrl(b.id)}
                    download
                    aria-label={`Download ${b.id}`}
                    sx={touch}
                  >
                    <DownloadIcon />
                  </IconButton>
                </Tooltip>
              )
              : (
                <Tooltip title={BACKUP_MSG.downloadNeedsAdmin}>
                  {/* A span, so the tooltip still explains the disabled button. */}
                  <span>
                    <IconButton disabled aria-label={`Download ${b.id} (admins only)`} sx={touch}>
                      <DownloadIcon />
                    </IconButton>
                  </span>
                </Tooltip>
              )}
            <Tooltip title="Restore">
              <IconButton aria-label={`Restore ${b.id}`} onClick={() => onRestore(b)} sx={touch}>
                <RestoreIcon />
              </IconButton>
            </Tooltip>
            <DeleteButton
              title={b.locked ? "Unlock it to delete it" : "Delete"}
              label={`Delete ${b.id}`}
              disabled={b.locked}
              onClick={() => onDelete(b)}
              sx={touch}
            />
          </Box>
        </TableCell>
      </TableRow>
    );
  },
  (a, c) =>
    a.isAdmin === c.isAdmin && a.onRestore === c.onRestore && a.onDelete === c.onDelete &&
    a.onChanged === c.onChanged &&
    sameData(a.b, c.b),
);

export default function Backups() {
  const [backups, setBackups] = useState<Backup[]>([]);
  const shown = useProgressiveCount(backups.length);
  const [settings, setSettings] = useState<BackupSettings | null>(null);
  const [restoring, setRestoring] = useState<Backup | null>(null);
  const [deleting, setDeleting] = useState<Backup | null>(null);
  const { status } = useSnapshot(server);
  const isAdmin = useCan("admin");
  const load = useCallback(() => {
    backupsApi.list({ quiet: true }).then(setBackups, () => {});
  }, []);
  useEffect(load, [load, status?.status]);
  useEffect(() => {
    backupsApi.settings().then(setSettings, () => {});
  }, []);

  async function remove(b: Backup) {
    try {
      await backupsApi.remove(b.id);
      showFlash(`Backup ${b.id} deleted.`, "success");
    } catch {
      // flashed by the client
    }
    load();
  }

  return (
    <Page title="Backups">
      <ViewerNote />
      <ReadOnly>
        <BackUpNow settings={settings} onMade={load} />
      </ReadOnly>
      <Panel
        title="Backups"
        action={
          <Tooltip title="Refresh">
            <IconButton aria-label="Refresh the list" onClick={load}>
              <RefreshIcon />
            </IconButton>
          </Tooltip>
        }
      >
        {backups.length === 0 ? <Typography color="text.secondary">No backups yet.</Typography> : (
          <ReadOnly>
            <TableContainer>
              <Table size="small" aria-label="Backups">
                <TableHead>
                  <TableRow>
                    <TableCell sx={cell}>When</TableCell>
                    <TableCell sx={cell}>Why</TableCell>
                    <TableCell sx={cell}>Save</TableCell>
                    <TableCell sx={{ ...cell, ...wide }}>Version</TableCell>
                    <TableCell sx={{ ...cell, ...wide }} align="right">Size</TableCell>
                    <TableCell sx={{ ...cell, ...wide }}>Checksum</TableCell>
                    <TableCell sx={cell} align="right">Actions</TableCell>
                  </TableRow>
                </TableHead>
                <TableBody>
                  {backups.slice(0, shown).map((b) => (
                    <BackupRow
                      key={b.id}
                      b={b}
                      isAdmin={isAdmin}
                      onRestore={setRestoring}
                      onDelete={setDeleting}
                      onChanged={load}
                    />
                  ))}
                </TableBody>
              </Table>
            </TableContainer>
          </ReadOnly>
        )}
        {!isAdmin && backups.some(holdsSecrets) && (
          <Typography variant="body2" color="text.secondary" sx={{ mt: 1.5 }}>
            {BACKUP_MSG.downloadNeedsAdmin}
          </Typography>
        )}
      </Panel>
      <ReadOnly>
        <Retention settings={settings} onSaved={setSettings} />
      </ReadOnly>
      <RestoreDialog backup={restoring} onClose={() => setRestoring(null)} onRestored={load} />
      <ConfirmDialog
        open={deleting !== null}
        title="Delete backup"
        message={deleting
          ? `Delete the backup of ${deleting.save} from ${
            formatSaveDate(deleting.created)
          }? This cannot be undone.`
          : ""}
        confirmLabel="Delete"
        danger
        onConfirm={() => deleting && void remove(deleting)}
        onClose={() => setDeleting(null)}
      />
    </Page>
  );
}
