import { type ChangeEvent, type FormEvent, useCallback, useEffect, useState } from "react";
import {
  Box,
  Button,
  CircularProgress,
  LinearProgress,
  MenuItem,
  TextField,
  Typography,
} from "@mui/material";
import PlayArrowIcon from "@mui/icons-material/PlayArrow";
import { serverApi } from "../../api/server.ts";
import { savesApi } from "../../api/saves.ts";
import { refreshStatus } from "../../state/server.ts";
import { showFlash } from "../../state/flash.ts";
import {
  DEFAULT_BIND_IP,
  DEFAULT_GAME_PORT,
  LOAD_LATEST,
  type ServerStatus,
} from "../../../../shared/api.ts";
import { MSG } from "../../../../shared/messages.ts";
import {
  type FieldErrors,
  portNumber,
  type StartField,
  validateStart,
} from "../../../../shared/validation.ts";

/**
 * The form offers what the last start asked for, as the panel kept it (every device, after a stop, a crash
 * or a start that failed), or the spec's defaults before the first start (the port: the server's own,
 * when the panel has several).
 */
function initialValues(last: ServerStatus["last_start"], port: number): Record<StartField, string> {
  if (!last) return { bindip: DEFAULT_BIND_IP, port: String(port), savefile: LOAD_LATEST };
  return { bindip: last.bindip, port: String(last.port), savefile: last.savefile || LOAD_LATEST };
}

export function StartForm({ disabled, last, port = DEFAULT_GAME_PORT }: {
  disabled?: boolean;
  last: ServerStatus["last_start"];
  /** The server's game port (its default before a first start). */
  port?: number;
}) {
  const [form, setForm] = useState(() => initialValues(last, port));
  const [errors, setErrors] = useState<FieldErrors<StartField>>({});
  const [saves, setSaves] = useState<{ names: string[]; loaded: boolean }>({
    names: [LOAD_LATEST],
    loaded: false,
  });
  const [busy, setBusy] = useState(false);

  const loadSaves = useCallback(() => {
    savesApi.list({ quiet: true }).then(
      (list) => {
        const names = list.map((s) => s.name).filter((n) => n !== LOAD_LATEST);
        setSaves({ names: [...names, LOAD_LATEST], loaded: true });
        // A remembered save that is gone (deleted, renamed) falls back to the newest one.
        setForm((f) => names.includes(f.savefile) ? f : { ...f, savefile: LOAD_LATEST });
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
      showFlash(
        await serverApi.start({
          bindip: form.bindip.trim(),
          port: portNumber(form.port),
          savefile: form.savefile,
        }),
        "success",
      );
    } catch {
      // the client flashed the reason; the failed start's card keeps it on the page
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
    disabled: busy || disabled,
  });
  // The remembered save shows even before the list arrives.
  const names = saves.names.includes(form.savefile) ? saves.names : [form.savefile, ...saves.names];
  return (
    <Box
      component="form"
      onSubmit={submit}
      noValidate
      aria-label="Start Server"
      data-saves-loaded={saves.loaded}
    >
      <Box sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", sm: "2fr 1fr" }, mb: 2 }}>
        <TextField
          label="IP"
          {...field("bindip")}
          slotProps={{ htmlInput: { inputMode: "decimal", autoComplete: "off" } }}
        />
        <TextField
          label="Port"
          type="number"
          {...field("port")}
          slotProps={{ htmlInput: { min: 1, max: 65535 } }}
        />
        <TextField label="Save" select {...field("savefile")} sx={{ gridColumn: "1 / -1" }}>
          {names.map((n) => <MenuItem key={n} value={n}>{n}</MenuItem>)}
        </TextField>
      </Box>
      {busy && (
        <Box sx={{ mb: 2 }}>
          <Typography color="text.secondary" sx={{ mb: 1 }}>
            Starting the server: the game is loading the map...
          </Typography>
          <LinearProgress aria-label="Starting the server" />
        </Box>
      )}
      <Button
        type="submit"
        color="success"
        startIcon={busy ? <CircularProgress size={18} color="inherit" /> : <PlayArrowIcon />}
        disabled={busy || disabled}
      >
        Start Server
      </Button>
    </Box>
  );
}
