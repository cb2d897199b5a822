import { useEffect, useState } from "react";
import {
  Alert,
  Button,
  Checkbox,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  Radio,
  RadioGroup,
  Stack,
  TextField,
  Typography,
  useMediaQuery,
} from "@mui/material";
import { useTheme } from "@mui/material/styles";
import { useSnapshot } from "valtio";
import { backupsApi } from "../../api/backups.ts";
import { showFlash } from "../../state/flash.ts";
import { server } from "../../state/server.ts";
import { type Backup, listInWords, RESTORE_REPLACES, restoreSummary } from "../../../../shared/backups.ts";

/** "world.zip" backed up at 2026-11-22T11:05 -> "world-restored-2026-11-22-1105.zip". */
function suggestedName(b: Backup): string {
  const stamp = b.created.slice(0, 16).replace("T", "-").replace(/:/g, "");
  return `${b.save.replace(/\.zip$/i, "")}-restored-${stamp}.zip`;
}

export function RestoreDialog({ backup, onClose, onRestored }: {
  backup: Backup | null;
  onClose: () => void;
  onRestored: () => void;
}) {
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down("sm"));
  const { status } = useSnapshot(server);
  const [mode, setMode] = useState<"new" | "replace">("new");
  const [name, setName] = useState("");
  // Only the save unless asked: the parts a backup holds replace what the server has now.
  const [files, setFiles] = useState(false);
  const [restart, setRestart] = useState(false);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    if (!backup) return;
    setMode("new");
    setName(suggestedName(backup));
    setFiles(false);
    setRestart(false);
  }, [backup]);
  if (!backup) return null;

  const running = status !== null && status.status !== "stopped";
  // A new save touches nothing the game uses; replacing it or its mods and settings needs it stopped.
  const needsStop = running && (mode === "replace" || files);
  const withFiles = files && backup.includes.length > 0;
  const summary = restoreSummary(backup, mode === "new" ? name.trim() || "…" : null, withFiles);

  async function submit() {
    if (!backup) return;
    setBusy(true);
    try {
      const r = await backupsApi.restore(backup.id, {
        ...(mode === "new" ? { as: name.trim() } : { replace: true }),
        files: withFiles,
        ...(needsStop ? { restart } : {}),
      });
      showFlash(r.message, "success");
      onRestored();
      onClose();
    } catch {
      // flashed by the client
    } finally {
      setBusy(false);
    }
  }

  return (
    <Dialog
      open
      onClose={busy ? undefined : onClose}
      fullScreen={phone}
      maxWidth="sm"
      fullWidth
      aria-labelledby="restore-title"
    >
      <DialogTitle id="restore-title">Restore backup</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <Typography variant="body2" color="text.secondary">
            {`${backup.save}, backed up ${backup.created.replace("T", " ").slice(0, 19)} UTC.`}
          </Typography>
          <RadioGroup
            value={mode}
            onChange={(e) => setMode(e.target.value as "new" | "replace")}
            aria-label="Restore as"
          >
            <FormControlLabel
              value="new"
              control={<Radio />}
              label="Into a new save (nothing is overwritten)"
            />
            <FormControlLabel
              value="replace"
              control={<Radio />}
              label={`Over ${backup.save} (backed up first)`}
            />
          </RadioGroup>
          {mode === "new" && (
            <TextField
              label="New save name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              autoComplete="off"
            />
          )}
          {backup.includes.length > 0 && (
            <FormControlLabel
              control={<Checkbox checked={files} onChange={(e) => setFiles(e.target.checked)} />}
              label={`Also restore ${listInWords(backup.includes.map((i) => RESTORE_REPLACES[i]))}`}
            />
          )}
          {mode === "replace" || withFiles
            ? <Alert severity="warning" data-testid="restore-summary">{summary}</Alert>
            : (
              <Typography variant="body2" color="text.secondary" data-testid="restore-summary">
                {summary}
              </Typography>
            )}
          {needsStop && (
            <>
              <Typography color="warning.main" variant="body2">
                The server is running. This restore needs it stopped.
              </Typography>
              <FormControlLabel
                control={<Checkbox checked={restart} onChange={(e) => setRestart(e.target.checked)} />}
                label="Stop, restore, start"
              />
            </>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        {busy && <CircularProgress size={22} aria-label="Restoring" sx={{ mr: 1 }} />}
        <Button color="secondary" onClick={onClose} disabled={busy}>Cancel</Button>
        <Button
          onClick={submit}
          disabled={busy || (needsStop && !restart) || (mode === "new" && name.trim() === "")}
        >
          Restore
        </Button>
      </DialogActions>
    </Dialog>
  );
}
