import { DeleteButton } from "../../components/DeleteButton.tsx";
import { type FormEvent, memo, useCallback, useEffect, useRef, useState } from "react";
import {
  Alert,
  Box,
  Button,
  CircularProgress,
  IconButton,
  LinearProgress,
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
  useMediaQuery,
} from "@mui/material";
import DownloadIcon from "@mui/icons-material/Download";
import RefreshIcon from "@mui/icons-material/Refresh";
import UploadFileIcon from "@mui/icons-material/UploadFile";
import { useSnapshot } from "valtio";
import { Page, Panel } from "../../components/Page.tsx";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { savesApi } from "../../api/saves.ts";
import { ApiError, type UploadProgress } from "../../api/client.ts";
import { showFlash } from "../../state/flash.ts";
import { server } from "../../state/server.ts";
import { LOAD_LATEST, type Save } from "../../../../shared/api.ts";
import { MSG, PANEL_MSG } from "../../../../shared/messages.ts";
import { saveUploadNameProblem } from "../../../../shared/validation.ts";
import { formatSaveDate, formatSaveSize } from "./format.ts";
import { useCan } from "../../state/access.ts";
import { ViewerNote } from "../../components/ReadOnly.tsx";
import { WorldGenerator } from "./generator/WorldGenerator.tsx";
import { Scenarios } from "./Scenarios.tsx";
import { insetBox } from "../../theme.ts";
import { sameData, useProgressiveCount } from "../../components/useProgressive.ts";

/** A failed create: the reason, then the game's output scrolled to its end, where the game says why. */
function CreateFailure({ message, onClose }: { message: string; onClose: () => void }) {
  const [summary, ...rest] = message.split("\n");
  const output = useRef<HTMLPreElement>(null);
  useEffect(() => {
    if (output.current) output.current.scrollTop = output.current.scrollHeight;
  }, [message]);
  return (
    <Alert severity="error" onClose={onClose} sx={{ "& .MuiAlert-message": { minWidth: 0, flex: 1 } }}>
      <Typography sx={{ fontWeight: 700 }}>{summary}</Typography>
      {rest.length > 0 && (
        <Box
          component="pre"
          ref={output}
          data-testid="create-output"
          sx={{ m: 0, mt: 0.5, whiteSpace: "pre-wrap", wordBreak: "break-word", fontSize: "0.8rem", maxHeight: 200, overflow: "auto" }}
        >
          {rest.join("\n")}
        </Box>
      )}
    </Alert>
  );
}

function CreateSave({ onCreated }: { onCreated: () => void }) {
  const { status } = useSnapshot(server);
  const [name, setName] = useState("");
  const [error, setError] = useState<string>();
  const [failure, setFailure] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [generator, setGenerator] = useState(false);
  // "Not stopped" is what the server refuses with 423; an unknown status leaves the form to the server.
  const gameUp = status !== null && status.status !== "stopped";

  async function submit(e: FormEvent) {
    e.preventDefault();
    setFailure(undefined);
    if (name.trim() === "") return setError(MSG.savefileNameRequired);
    setError(undefined);
    setBusy(true);
    try {
      // The game's output on failure can be long: it is shown here, not in a flash that vanishes.
      const message = await savesApi.create(name.trim(), { quiet: true });
      showFlash(message.split(" Command output:")[0], "success");
      setName("");
      onCreated();
    } catch (err) {
      if (err instanceof ApiError && err.status !== 0 && err.status !== 401) setFailure(err.message);
      else if (err instanceof ApiError) showFlash(err.message, "error");
    } finally {
      setBusy(false);
    }
  }

  return (
    <Panel title="Create Save">
      {gameUp && !busy
        ? <Typography color="error" sx={{ py: 1 }}>{MSG.createSaveWhileRunning}</Typography>
        : (
          <Stack component="form" spacing={2} onSubmit={submit} noValidate aria-label="Create Save">
            <TextField
              label="Savefile Name"
              name="savefile"
              value={name}
              onChange={(e) => setName(e.target.value)}
              error={!!error}
              helperText={error ?? "The game makes a new map with this name (.zip is added)."}
              disabled={busy}
              autoComplete="off"
            />
            <Box sx={{ display: "flex", alignItems: "center", gap: 1.5, flexWrap: "wrap" }}>
              <Button type="submit" disabled={busy}>Create Save</Button>
              <Button color="secondary" disabled={busy} onClick={() => setGenerator(true)}>More options</Button>
              {busy && (
                <>
                  <CircularProgress size={22} aria-label="Creating the save" />
                  <Typography variant="body2" color="text.secondary">{PANEL_MSG.saveCreating}</Typography>
                </>
              )}
            </Box>
            {failure && <CreateFailure message={failure} onClose={() => setFailure(undefined)} />}
          </Stack>
        )}
      {generator && (
        <WorldGenerator
          open
          name={name}
          stopped={!gameUp}
          onClose={() => setGenerator(false)}
          onCreated={() => {
            setName("");
            onCreated();
          }}
        />
      )}
    </Panel>
  );
}

function UploadSave({ onUploaded, existing }: { onUploaded: () => void; existing: string[] }) {
  const [file, setFile] = useState<File | null>(null);
  const [replace, setReplace] = useState<File | null>(null);
  const [error, setError] = useState<string>();
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const abort = useRef<() => void>(undefined);
  const input = useRef<HTMLInputElement>(null);

  useEffect(() => () => abort.current?.(), []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!file) return setError(MSG.savefileRequired);
    const problem = saveUploadNameProblem(file.name);
    if (problem) return setError(problem);
    setError(undefined);
    // Same name: the upload would replace that save, so ask first. Against the list as it is now: the
    // page's may not have arrived yet (a file chosen at once), or the game may have saved since.
    const names = await savesApi.list().then((list) => list.map((s) => s.name), () => existing);
    if (names.includes(file.name)) return setReplace(file);
    await upload(file);
  }

  async function upload(file: File) {
    setProgress({ loaded: 0, total: file.size });
    const job = savesApi.upload(file, setProgress);
    abort.current = job.abort;
    try {
      await job.promise;
      showFlash(PANEL_MSG.saveUploaded(file.name), "success");
      setFile(null);
      if (input.current) input.current.value = "";
      onUploaded();
    } catch (err) {
      // Errors from the server were flashed by the client; a cancel or a lost connection were not.
      if (err instanceof ApiError && err.status === 0) showFlash(err.message, "error");
    } finally {
      abort.current = undefined;
      setProgress(null);
    }
  }

  const percent = progress && progress.total > 0 ? Math.min(100, (progress.loaded / progress.total) * 100) : 0;
  return (
    <Panel title="Upload Save">
      <Stack component="form" spacing={2} onSubmit={submit} noValidate aria-label="Upload Save">
        <Box sx={{ display: "flex", alignItems: "center", gap: 1.5, flexWrap: "wrap" }}>
          <Button component="label" color="secondary" startIcon={<UploadFileIcon />} disabled={!!progress}>
            Choose file
            <input
              ref={input}
              type="file"
              name="savefile"
              accept=".zip,application/zip"
              hidden
              aria-label="Savefile"
              onChange={(e) => {
                setFile(e.target.files?.[0] ?? null);
                setError(undefined);
              }}
            />
          </Button>
          <Typography
            variant="body2"
            color={file ? "text.primary" : "text.secondary"}
            sx={{ wordBreak: "break-all", flex: "1 1 10rem" }}
            data-testid="chosen-file"
          >
            {file ? `${file.name} (${formatSaveSize(file.size)})` : "No file chosen"}
          </Typography>
        </Box>
        {error && <Typography color="error" variant="body2" role="alert">{error}</Typography>}
        {progress && (
          <Box>
            <LinearProgress variant="determinate" value={Math.floor(percent)} aria-label="Upload progress" sx={{ height: 10, borderRadius: 1 }} />
            <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5 }}>
              {`${percent.toFixed(0)} % · ${formatSaveSize(progress.loaded)} of ${formatSaveSize(progress.total)}`}
            </Typography>
          </Box>
        )}
        <Box sx={{ display: "flex", gap: 1.5 }}>
          <Button type="submit" disabled={!!progress}>Upload</Button>
          {progress && <Button color="secondary" onClick={() => abort.current?.()}>Cancel</Button>}
        </Box>
      </Stack>
      <ConfirmDialog
        open={replace !== null}
        title="Replace save"
        message={replace ? PANEL_MSG.replaceSaveConfirm(replace.name) : ""}
        confirmLabel="Replace"
        danger
        onConfirm={() => replace && void upload(replace)}
        onClose={() => setReplace(null)}
      />
    </Panel>
  );
}

// On a phone the four columns share ~330px: tighter cells, the time under the date, smaller icons.
const cell = { px: { xs: 0.75, sm: 2 } };

function SaveDate({ iso }: { iso: string }) {
  const [date, time] = formatSaveDate(iso).split(" ");
  return (
    <>
      <Box component="span" sx={{ display: { xs: "block", sm: "inline" } }}>{date}</Box>
      {" "}
      <Box component="span" sx={{ display: { xs: "block", sm: "inline" } }}>{time}</Box>
    </>
  );
}

function SaveActions({ save, onDelete }: { save: Save; onDelete: (name: string) => void }) {
  return (
    <>
      <Tooltip title="Download">
        <IconButton component="a" href={savesApi.downloadUrl(save.name)} download={save.name} aria-label={`Download ${save.name}`}>
          <DownloadIcon />
        </IconButton>
      </Tooltip>
      <DeleteButton title="Delete" label={`Delete ${save.name}`} onClick={() => onDelete(save.name)} />
    </>
  );
}

/** Phones: one card per save, name on top, date and size below, the actions at the right at full size. */
const SaveCard = memo(
  function SaveCard({ save: s, onDelete }: { save: Save; onDelete: (name: string) => void }) {
    return (
      <Box component="li" sx={[insetBox, { p: 1.25, display: "flex", alignItems: "center", gap: 1 }]}>
        <Box sx={{ flexGrow: 1, minWidth: 0 }}>
          <Typography sx={{ fontWeight: 700, overflowWrap: "anywhere" }}>{s.name}</Typography>
          <Typography variant="body2" color="text.secondary">
            {s.name === LOAD_LATEST ? "Starts the newest save" : `${formatSaveDate(s.last_mod)} · ${formatSaveSize(s.size)}`}
          </Typography>
        </Box>
        {s.name !== LOAD_LATEST && <Box sx={{ display: "flex", flexShrink: 0 }}><SaveActions save={s} onDelete={onDelete} /></Box>}
      </Box>
    );
  },
  (a, b) => a.onDelete === b.onDelete && sameData(a.save, b.save),
);

/** A row of the table (wider screens). */
const SaveRow = memo(
  function SaveRow({ save: s, onDelete }: { save: Save; onDelete: (name: string) => void }) {
    if (s.name === LOAD_LATEST) {
      return (
        <TableRow>
          <TableCell sx={cell} colSpan={4}>
            {s.name}
            <Typography variant="caption" color="text.secondary" component="span" sx={{ ml: 1 }}>
              (starts the newest save)
            </Typography>
          </TableCell>
        </TableRow>
      );
    }
    return (
      <TableRow>
        <TableCell sx={{ ...cell, overflowWrap: "anywhere", minWidth: "6rem" }}>{s.name}</TableCell>
        <TableCell sx={{ ...cell, whiteSpace: "nowrap" }}><SaveDate iso={s.last_mod} /></TableCell>
        <TableCell sx={{ ...cell, whiteSpace: "nowrap" }} align="right">{formatSaveSize(s.size)}</TableCell>
        <TableCell sx={{ ...cell, whiteSpace: "nowrap" }} align="right">
          <SaveActions save={s} onDelete={onDelete} />
        </TableCell>
      </TableRow>
    );
  },
  (a, b) => a.onDelete === b.onDelete && sameData(a.save, b.save),
);

/**
 * The saves: cards on phones, the spec's table on wider screens. Each save renders again only when its
 * own data changed (the list is loaded again whenever the game changes state), and a long list renders
 * its first rows with the page and the rest just after (useProgressiveCount).
 */
function SavesTable({ saves, onDelete, onRefresh }: { saves: Save[]; onDelete: (name: string) => void; onRefresh: () => void }) {
  // Below MUI's "sm" breakpoint, written out so the page needs no theme provider.
  const narrow = useMediaQuery("(max-width: 599.95px)", { noSsr: true });
  const shown = saves.slice(0, useProgressiveCount(saves.length));
  return (
    <Panel
      title="Saves"
      action={
        <Tooltip title="Refresh">
          <IconButton aria-label="Refresh the list" onClick={onRefresh}><RefreshIcon /></IconButton>
        </Tooltip>
      }
    >
      {narrow
        ? (
          <Box component="ul" aria-label="Saves" sx={{ listStyle: "none", m: 0, p: 0, display: "grid", gap: 1 }}>
            {shown.map((s) => <SaveCard key={s.name} save={s} onDelete={onDelete} />)}
          </Box>
        )
        : (
          <TableContainer>
            <Table size="small" aria-label="Saves">
              <TableHead>
                <TableRow>
                  <TableCell sx={cell}>Name</TableCell>
                  <TableCell sx={cell}>Last Modified At</TableCell>
                  <TableCell sx={cell} align="right">Size</TableCell>
                  <TableCell sx={cell} align="right">Actions</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {shown.map((s) => <SaveRow key={s.name} save={s} onDelete={onDelete} />)}
              </TableBody>
            </Table>
          </TableContainer>
        )}
    </Panel>
  );
}

export default function Saves() {
  const [saves, setSaves] = useState<Save[]>([]);
  const [confirm, setConfirm] = useState<string | null>(null);
  const canChange = useCan("operator");
  const { status } = useSnapshot(server);
  const load = useCallback(() => {
    savesApi.list().then(setSaves, () => {});
  }, []);
  // Reload when the game changes state too: stopping it writes its save.
  useEffect(load, [load, status?.status]);

  async function remove(name: string) {
    try {
      showFlash(await savesApi.remove(name), "success");
    } catch {
      // flashed by the client
    }
    load();
  }

  return (
    <Page title="Saves">
      <ViewerNote />
      {canChange && (
        <Box sx={{ display: "grid", gap: 2.5, gridTemplateColumns: { xs: "1fr", md: "1fr 1fr" }, alignItems: "start" }}>
          <CreateSave onCreated={load} />
          <UploadSave onUploaded={load} existing={saves.map((s) => s.name)} />
        </Box>
      )}
      <SavesTable saves={saves} onDelete={setConfirm} onRefresh={load} />
      <Scenarios onStarted={load} onSaved={load} />
      <ConfirmDialog
        open={confirm !== null}
        title="Delete save"
        message={confirm ? PANEL_MSG.saveDeleteConfirm(confirm) : ""}
        confirmLabel="Delete"
        danger
        onConfirm={() => confirm && void remove(confirm)}
        onClose={() => setConfirm(null)}
      />
    </Page>
  );
}
