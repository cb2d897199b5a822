import { type FormEvent, useState } from "react";
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  LinearProgress,
  TextField,
  Typography,
} from "@mui/material";
import { ApiError } from "../../api/client.ts";
import { worldApi } from "../../api/world.ts";
import { showFlash } from "../../state/flash.ts";

/** The save name a scenario suggests: its own name, without the mod ("arena-mod/arena" -> "arena"). */
export function defaultSaveName(scenario: string): string {
  return scenario.split("/").pop() ?? scenario;
}

/**
 * Turns a scenario into a save (the game's --scenario2map) under a name the user picks. A taken name is
 * answered 409: the dialog then offers to replace that save. The game's own error stays in the dialog.
 */
export function ScenarioToSave(
  { scenario, onClose, onSaved }: { scenario: string; onClose: () => void; onSaved: (save: string) => void },
) {
  const [name, setName] = useState(defaultSaveName(scenario));
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string>();
  const [taken, setTaken] = useState(false);

  async function create(overwrite: boolean) {
    if (name.trim() === "") return setFailure("Save name is required");
    setBusy(true);
    setFailure(undefined);
    try {
      const message = await worldApi.scenarioToSave(scenario, name.trim(), overwrite, { quiet: true });
      showFlash(message, "success");
      onSaved(name.trim());
      onClose();
    } catch (err) {
      if (!(err instanceof ApiError) || err.status === 401) return;
      if (err.status === 0) showFlash(err.message, "error");
      else {
        setTaken(err.status === 409);
        setFailure(err.message);
      }
    } finally {
      setBusy(false);
    }
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    void create(false);
  }

  return (
    <Dialog
      open
      onClose={busy ? undefined : onClose}
      maxWidth="xs"
      fullWidth
      aria-labelledby="scenario-save-title"
    >
      <DialogTitle id="scenario-save-title">Create a save from {scenario}</DialogTitle>
      <DialogContent>
        <Box
          component="form"
          id="scenario-save-form"
          onSubmit={submit}
          noValidate
          aria-label="Create a save from a scenario"
          sx={{ pt: 1 }}
        >
          <TextField
            label="Save name"
            value={name}
            onChange={(e) => {
              setName(e.target.value);
              setTaken(false);
            }}
            disabled={busy}
            fullWidth
            autoFocus
            autoComplete="off"
            helperText="The game makes a new map from the scenario and saves it under this name (.zip is added)."
          />
        </Box>
        {busy && (
          <Box sx={{ mt: 2 }} role="status">
            <LinearProgress aria-label="Creating the save" />
            <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
              The game is making the map…
            </Typography>
          </Box>
        )}
        {failure && (
          <Alert severity="error" sx={{ mt: 2, whiteSpace: "pre-wrap", wordBreak: "break-word" }}>
            {failure}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        <Button color="secondary" onClick={onClose} disabled={busy}>Cancel</Button>
        {taken
          ? <Button color="error" onClick={() => void create(true)} disabled={busy}>Replace it</Button>
          : <Button type="submit" form="scenario-save-form" disabled={busy}>Create save</Button>}
      </DialogActions>
    </Dialog>
  );
}
