// The first-run import: a new panel takes over the old panel's folder on this machine (preview first) or
// an archive made with `npm start -- --export FILE`. Offered only while the panel is new (the server
// checks it on every request); linked from the first-start password notice.

import { type FormEvent, useEffect, useRef, useState } from "react";
import { useNavigate } from "react-router-dom";
import { Alert, Box, Button, Stack, TextField, Typography } from "@mui/material";
import { Page, Panel } from "../../components/Page.tsx";
import { transferApi } from "../../api/transfer.ts";
import { ApiError, type UploadProgress } from "../../api/client.ts";
import { session } from "../../state/session.ts";
import { Lines } from "../../components/Lines.tsx";
import { FilePicker } from "../../components/FilePicker.tsx";
import { UploadBar } from "../../components/UploadBar.tsx";
import { type ImportResult, TRANSFER_MSG } from "../../../../shared/transfer.ts";
import { PUSH_MSG } from "../../../../shared/messages.ts";

/** Why an import failed, to show in its form until the next try (a flash would be gone before it is read). */
function failureOf(e: unknown): string {
  if (e instanceof ApiError && e.status === 0) return PUSH_MSG.needsConnection;
  return e instanceof Error ? e.message : String(e);
}

function Failure({ message }: { message: string | undefined }) {
  if (!message) return null;
  return <Alert severity="error" variant="outlined" sx={{ overflowWrap: "anywhere" }}>{message}</Alert>;
}

function OldPanel(
  { busy, setBusy, onDone }: {
    busy: boolean;
    setBusy: (b: boolean) => void;
    onDone: (r: ImportResult) => void;
  },
) {
  const [dir, setDir] = useState("");
  const [error, setError] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [preview, setPreview] = useState<ImportResult | null>(null);

  async function run(action: "preview" | "import") {
    setFailure(undefined);
    if (dir.trim() === "") return setError(TRANSFER_MSG.dirRequired);
    setError(undefined);
    setBusy(true);
    try {
      if (action === "preview") setPreview(await transferApi.previewOldPanel(dir.trim()));
      else onDone(await transferApi.importOldPanel(dir.trim()));
    } catch (e) {
      setFailure(failureOf(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Panel title="From the old panel on this machine">
      <Stack
        component="form"
        spacing={2}
        noValidate
        aria-label="Import from the old panel"
        onSubmit={(e: FormEvent) => (e.preventDefault(), run("preview"))}
      >
        <Typography variant="body2" color="text.secondary">
          The folder of factorio-server-manager that holds its conf.json. Users keep their passwords; mod
          packs and the mod portal login come along. You see what would be imported before anything changes.
        </Typography>
        <TextField
          label="Folder of the old panel"
          placeholder="/opt/factorio-server-manager"
          value={dir}
          onChange={(e) => {
            setDir(e.target.value);
            setPreview(null);
            setFailure(undefined);
          }}
          error={!!error}
          helperText={error}
          fullWidth
        />
        <Failure message={failure} />
        {preview && <Lines lines={preview.lines} label="What would be imported" />}
        <Box sx={{ display: "flex", gap: 1.5, flexWrap: "wrap" }}>
          <Button type="submit" color={preview ? "secondary" : "primary"} disabled={busy}>Preview</Button>
          {preview && <Button onClick={() => run("import")} disabled={busy}>Import from this folder</Button>}
        </Box>
      </Stack>
    </Panel>
  );
}

function Archive(
  { busy, setBusy, onDone }: {
    busy: boolean;
    setBusy: (b: boolean) => void;
    onDone: (r: ImportResult) => void;
  },
) {
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const abort = useRef<() => void>(undefined);
  useEffect(() => () => abort.current?.(), []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setFailure(undefined);
    if (!file) return setError(TRANSFER_MSG.archiveRequired);
    setError(undefined);
    setBusy(true);
    setProgress({ loaded: 0, total: file.size });
    const job = transferApi.importArchive(file, setProgress);
    abort.current = job.abort;
    try {
      onDone(await job.promise);
    } catch (err) {
      setFailure(failureOf(err));
    } finally {
      abort.current = undefined;
      setProgress(null);
      setBusy(false);
    }
  }

  return (
    <Panel title="From an export archive">
      <Stack component="form" spacing={2} noValidate aria-label="Import an export archive" onSubmit={submit}>
        <Typography variant="body2" color="text.secondary">
          {"An archive made on the old host with "}
          <Box component="code" sx={{ whiteSpace: "nowrap", fontSize: "0.9em" }}>
            npm start -- --export FILE
          </Box>
          {". It is checked whole before anything is imported."}
        </Typography>
        <FilePicker
          name="archive"
          label="Export archive"
          file={file}
          disabled={busy}
          onChange={(f) => {
            setFile(f);
            setError(undefined);
            setFailure(undefined);
          }}
        />
        {error && <Typography color="error" variant="body2" role="alert">{error}</Typography>}
        <Failure message={failure} />
        {progress && <UploadBar progress={progress} checking="checks and imports the archive" />}
        <Box>
          <Button type="submit" disabled={busy}>Upload and import</Button>
        </Box>
      </Stack>
    </Panel>
  );
}

function Result({ result }: { result: ImportResult }) {
  const navigate = useNavigate();
  // The generated-password notice goes: the admin's password is the imported one, or still the generated one.
  useEffect(() => {
    if (result.admin_password_replaced && session.user) {
      session.user = { ...session.user, generated_password: undefined };
    }
  }, [result]);
  return (
    <Panel title="Imported">
      <Stack spacing={2}>
        <Lines lines={result.lines} label="What was imported" />
        {result.passwords.length > 0 && (
          <Alert severity="warning" variant="outlined" data-testid="new-passwords">
            <Typography sx={{ mb: 1 }}>
              The archive has no passwords, so these users got new ones. They are shown only now: give each
              user theirs; they can change it under Account.
            </Typography>
            <Box component="ul" sx={{ m: 0, pl: 2.5, fontFamily: "monospace" }}>
              {result.passwords.map((p) => <li key={p.username}>{`${p.username}: ${p.password}`}</li>)}
            </Box>
          </Alert>
        )}
        {result.admin_password_replaced && (
          <Alert severity="info" variant="outlined">
            The admin account now has the old panel's password: sign in with it from now on.
          </Alert>
        )}
        <Box>
          <Button onClick={() => navigate("/")}>Go to Controls</Button>
        </Box>
      </Stack>
    </Panel>
  );
}

export default function Import() {
  const [available, setAvailable] = useState<boolean | null>(null);
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<ImportResult | null>(null);
  useEffect(() => {
    transferApi.status().then((s) => setAvailable(s.available), () => setAvailable(false));
  }, []);

  return (
    <Page title="Import from another panel">
      {result
        ? <Result result={result} />
        : available === false
        ? <Alert severity="info" variant="outlined">{TRANSFER_MSG.notFresh}</Alert>
        : available && (
          <>
            <Typography color="text.secondary">
              This panel is new. Bring over the users, settings, schedules and mod packs of the panel you used
              before.
            </Typography>
            <OldPanel busy={busy} setBusy={setBusy} onDone={setResult} />
            <Archive busy={busy} setBusy={setBusy} onDone={setResult} />
          </>
        )}
    </Page>
  );
}
