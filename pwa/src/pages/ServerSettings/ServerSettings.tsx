import { type FormEvent, useCallback, useEffect, useRef, useState } from "react";
import {
  Alert,
  Box,
  Button,
  Card,
  CardContent,
  Checkbox,
  CircularProgress,
  FormControl,
  FormControlLabel,
  FormGroup,
  FormHelperText,
  FormLabel,
  IconButton,
  InputAdornment,
  MenuItem,
  TextField,
  Typography,
} from "@mui/material";
import Visibility from "@mui/icons-material/Visibility";
import VisibilityOff from "@mui/icons-material/VisibilityOff";
import { useSnapshot } from "valtio";
import { Page } from "../../components/Page.tsx";
import { settingsApi } from "../../api/settings.ts";
import { showFlash } from "../../state/flash.ts";
import { server } from "../../state/server.ts";
import { useUnsavedChanges } from "../../state/unsaved.ts";
import { MSG, PANEL_MSG } from "../../../../shared/messages.ts";
import { ALLOW_COMMANDS, SECRET_MASK, type Settings } from "../../../../shared/settings.ts";
import {
  buildBody,
  type Field,
  type FormValue,
  type FormValues,
  initialValues,
  type Item,
  layout,
} from "./form.ts";
import { ReadOnly, ViewerNote } from "../../components/ReadOnly.tsx";
import { useCan } from "../../state/access.ts";
import { ACCESS_MSG } from "../../../../shared/access.ts";

const SECRET_KEPT = "A value is stored. Leave it as it is to keep it, or clear the field to remove it.";

function Help({ lines, error }: { lines: string[]; error?: string }) {
  if (error) return <FormHelperText error>{error}</FormHelperText>;
  if (lines.length === 0) return null;
  return (
    <FormHelperText component="div" sx={{ fontStyle: "italic", mx: 0 }}>
      {lines.map((line, i) => <Box key={i}>{line}</Box>)}
    </FormHelperText>
  );
}

function SecretInput({ field, value, error, onChange }: {
  field: Field;
  value: string;
  error?: string;
  onChange: (v: string) => void;
}) {
  const [shown, setShown] = useState(false);
  // Passwords and tokens are the admin's: an operator sees that one is stored, and cannot change it.
  const isAdmin = useCan("admin");
  const help = [
    ...(value === SECRET_MASK ? [SECRET_KEPT] : []),
    ...(isAdmin ? [] : [ACCESS_MSG.secretsNeedAdmin]),
    ...field.help,
  ];
  return (
    <Box>
      <TextField
        label={field.label}
        name={field.key}
        type={shown ? "text" : "password"}
        value={value}
        // Not the panel's own sign-in: keep the browser's password manager out of these fields.
        autoComplete="new-password"
        error={!!error}
        disabled={!isAdmin}
        onChange={(e) => onChange(e.target.value)}
        slotProps={{
          input: {
            endAdornment: (
              <InputAdornment position="end">
                <IconButton
                  aria-label={shown ? `Hide ${field.label}` : `Show ${field.label}`}
                  onClick={() => setShown(!shown)}
                  edge="end"
                  size="small"
                >
                  {shown ? <VisibilityOff /> : <Visibility />}
                </IconButton>
              </InputAdornment>
            ),
          },
        }}
      />
      <Help lines={help} error={error} />
    </Box>
  );
}

function SettingInput({ field, value, error, onChange }: {
  field: Field;
  value: FormValue | undefined;
  error?: string;
  onChange: (v: FormValue) => void;
}) {
  const { key, kind, label, help } = field;
  switch (kind) {
    case "bool":
      return (
        <FormControl error={!!error}>
          <FormControlLabel
            control={
              <Checkbox
                name={key}
                checked={value === true}
                onChange={(e) => onChange(e.target.checked)}
              />
            }
            label={label}
          />
          <Help lines={help} error={error} />
        </FormControl>
      );
    case "flags": {
      const flags = value as Record<string, boolean>;
      return (
        <FormControl component="fieldset" error={!!error}>
          <FormLabel component="legend">{label}</FormLabel>
          <FormGroup row>
            {Object.entries(flags).map(([flag, on]) => (
              <FormControlLabel
                key={flag}
                control={
                  <Checkbox
                    name={`${key}.${flag}`}
                    checked={on}
                    onChange={(e) => onChange({ ...flags, [flag]: e.target.checked })}
                  />
                }
                label={flag}
              />
            ))}
          </FormGroup>
          <Help lines={help} error={error} />
        </FormControl>
      );
    }
    case "secret":
      return <SecretInput field={field} value={value as string} error={error} onChange={onChange} />;
    case "fixed":
      return (
        <TextField
          label={label}
          name={key}
          value={JSON.stringify(value ?? null)}
          helperText={help.join(" ") || "Shown as stored; edit it in the file."}
          slotProps={{ input: { readOnly: true } }}
        />
      );
    default:
      return (
        <Box>
          <TextField
            label={label}
            name={key}
            value={value as string}
            select={kind === "select"}
            type={kind === "number" ? "number" : "text"}
            autoComplete="off"
            error={!!error}
            onChange={(e) => onChange(e.target.value)}
            slotProps={{
              htmlInput: kind === "number" ? { inputMode: "numeric" } : undefined,
            }}
          >
            {kind === "select" ? ALLOW_COMMANDS.map((v) => <MenuItem key={v} value={v}>{v}</MenuItem>) : null}
          </TextField>
          <Help lines={kind === "list" ? [...help, "Separate entries with commas."] : help} error={error} />
        </Box>
      );
  }
}

function SettingsForm({ loaded, onSaved }: { loaded: Settings; onSaved: () => void }) {
  const [initial] = useState<FormValues>(() => initialValues(loaded));
  const [values, setValues] = useState<FormValues>(initial);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const dirty = JSON.stringify(values) !== JSON.stringify(initial);
  useUnsavedChanges(dirty);
  const formRef = useRef<HTMLFormElement>(null);
  const items: Item[] = layout(loaded);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const { body, errors: found } = buildBody(loaded, values);
    setErrors(found);
    const first = Object.keys(found)[0];
    if (first) {
      formRef.current?.querySelector<HTMLElement>(
        `[name="${CSS.escape(first)}"], [name^="${CSS.escape(first)}."]`,
      )?.focus();
      return;
    }
    setBusy(true);
    try {
      await settingsApi.update(body);
      showFlash(MSG.settingsSaved, "success");
      onSaved();
    } catch {
      // the client flashed the server's message
    } finally {
      setBusy(false);
    }
  }

  return (
    // overflow visible: a clipping card would keep the sticky Save bar from sticking to the screen.
    <Card
      component="form"
      ref={formRef}
      onSubmit={submit}
      noValidate
      aria-label="Server Settings"
      sx={{ overflow: "visible" }}
    >
      <CardContent>
        <Box
          sx={{
            display: "grid",
            gap: 2.5,
            gridTemplateColumns: { xs: "1fr", md: "1fr 1fr" },
            alignItems: "start",
          }}
        >
          {items.map((item) =>
            item.type === "note"
              ? (
                <Typography
                  key={item.key}
                  variant="body2"
                  color="text.secondary"
                  sx={{ gridColumn: "1 / -1", fontStyle: "italic", mt: 1 }}
                >
                  {item.lines.join(" ")}
                </Typography>
              )
              : (
                <SettingInput
                  key={item.field.key}
                  field={item.field}
                  value={values[item.field.key]}
                  error={errors[item.field.key]}
                  onChange={(v) => setValues((old) => ({ ...old, [item.field.key]: v }))}
                />
              )
          )}
        </Box>
      </CardContent>
      {/* The Save bar stays in view at the bottom while the long form scrolls (above the phone's bottom bar). */}
      <Box
        data-testid="save-bar"
        sx={{
          position: "sticky",
          bottom: { xs: 60, md: 0 },
          zIndex: 3,
          display: "flex",
          gap: 1.5,
          alignItems: "center",
          flexWrap: "wrap",
          px: 2,
          py: 1.25,
          bgcolor: "#2a292a",
          borderTop: "1px solid #000",
          boxShadow: "0 -4px 8px rgba(0,0,0,0.45)",
        }}
      >
        <Typography
          variant="body2"
          sx={{ flexGrow: 1, color: dirty ? "warning.main" : "text.secondary" }}
          role="status"
        >
          {dirty ? "Unsaved changes" : "No changes"}
        </Typography>
        {busy && <CircularProgress size={22} aria-label="Saving" />}
        <Button
          color="secondary"
          disabled={busy || !dirty}
          onClick={() => {
            setValues(initial);
            setErrors({});
          }}
        >
          Discard
        </Button>
        <Button type="submit" disabled={busy}>Save</Button>
      </Box>
    </Card>
  );
}

export default function ServerSettings() {
  const [loaded, setLoaded] = useState<Settings | null>(null);
  const [failed, setFailed] = useState(false);
  // A new key per load, so the form starts from what the server has after each save.
  const [version, setVersion] = useState(0);
  const { status } = useSnapshot(server);

  const load = useCallback(() => {
    settingsApi.get().then(
      (s) => {
        setLoaded(s);
        setFailed(false);
        setVersion((v) => v + 1);
      },
      () => setFailed(true),
    );
  }, []);
  useEffect(load, [load]);

  return (
    <Page title="Server Settings">
      <ViewerNote />
      {status && status.status !== "stopped" && (
        <Alert severity="info">{PANEL_MSG.settingsApplyAtNextStart}</Alert>
      )}
      {loaded
        ? (
          <ReadOnly>
            <SettingsForm key={version} loaded={loaded} onSaved={load} />
          </ReadOnly>
        )
        : failed
        ? <Alert severity="error">The server settings could not be read.</Alert>
        : <CircularProgress aria-label="Loading" />}
    </Page>
  );
}
