import { DeleteButton } from "../../components/DeleteButton.tsx";
import {
  type FormEvent,
  memo,
  type ReactNode,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import {
  Alert,
  Box,
  Button,
  CircularProgress,
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
  useMediaQuery,
} from "@mui/material";
import DownloadIcon from "@mui/icons-material/Download";
import PlayArrowIcon from "@mui/icons-material/PlayArrow";
import RefreshIcon from "@mui/icons-material/Refresh";
import { useSnapshot } from "valtio";
import { Page, Panel } from "../../components/Page.tsx";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { UploadBar } from "../../components/UploadBar.tsx";
import { FilePicker } from "../../components/FilePicker.tsx";
import { savesApi } from "../../api/saves.ts";
import { serverApi } from "../../api/server.ts";
import { ApiError, type UploadProgress } from "../../api/client.ts";
import { showFlash } from "../../state/flash.ts";
import { refreshStatus, server } from "../../state/server.ts";
import { connection } from "../../state/connection.ts";
import { confirmedAt } from "../../components/AppChrome.tsx";
import {
  DEFAULT_BIND_IP,
  DEFAULT_GAME_PORT,
  LOAD_LATEST,
  type Save,
  type ServerStatus,
} from "../../../../shared/api.ts";
import { MSG, PANEL_MSG } from "../../../../shared/messages.ts";
import { saveUploadNameProblem } from "../../../../shared/validation.ts";
import { compareVersionStrings } from "../../../../shared/versions.ts";
import { formatSaveDate, formatSaveSize, formatSaveVersion } from "./format.ts";
import { useCan, VIEWER_NOTE } from "../../state/access.ts";
import { ViewerNote } from "../../components/ReadOnly.tsx";
import { WorldGenerator } from "./generator/WorldGenerator.tsx";
import { NeedsConnection, Scenarios } from "./Scenarios.tsx";
import { insetBox } from "../../theme.ts";
import { sameData, useProgressiveCount } from "../../components/useProgressive.ts";
import { type Sort, type SortColumn, SortHeadCell, SortPicker } from "../../components/Sorting.tsx";
import { lazyCompare } from "../../../../shared/util.ts";

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
          sx={{
            m: 0,
            mt: 0.5,
            whiteSpace: "pre-wrap",
            wordBreak: "break-word",
            fontSize: "0.8rem",
            maxHeight: 200,
            overflow: "auto",
          }}
        >
          {rest.join("\n")}
        </Box>
      )}
    </Alert>
  );
}

function CreateSave({ onCreated, offline }: { onCreated: () => void; offline: boolean }) {
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
              <Button type="submit" disabled={busy || offline}>Create Save</Button>
              <Button color="secondary" disabled={busy || offline} onClick={() => setGenerator(true)}>
                More options
              </Button>
              {busy && (
                <>
                  <CircularProgress size={22} aria-label="Creating the save" />
                  <Typography variant="body2" color="text.secondary">{PANEL_MSG.saveCreating}</Typography>
                </>
              )}
            </Box>
            {offline && !busy && <NeedsConnection what="creating a save" />}
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

function UploadSave(
  { onUploaded, existing, offline }: { onUploaded: () => void; existing: string[]; offline: boolean },
) {
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

  return (
    <Panel title="Upload Save">
      <Stack component="form" spacing={2} onSubmit={submit} noValidate aria-label="Upload Save">
        <FilePicker
          name="savefile"
          label="Savefile"
          file={file}
          inputRef={input}
          disabled={!!progress || offline}
          describe={(f) => `${f.name} (${formatSaveSize(f.size)})`}
          onChange={(f) => {
            setFile(f);
            setError(undefined);
          }}
        />
        {error && <Typography color="error" variant="body2" role="alert">{error}</Typography>}
        {progress && <UploadBar progress={progress} checking="checks the save" />}
        <Box sx={{ display: "flex", gap: 1.5 }}>
          <Button type="submit" disabled={!!progress || offline}>Upload</Button>
          {progress && <Button color="secondary" onClick={() => abort.current?.()}>Cancel</Button>}
        </Box>
        {offline && !progress && <NeedsConnection what="uploading" />}
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

// Five columns on a small tablet's width: tighter cells below "sm" (phones get cards instead).
const cell = { px: { xs: 0.75, sm: 2 } };

/** "2024-05-06 07:08:09 UTC": the spec's UTC time, saying which zone it is. */
function saveTime(iso: string): string {
  const text = formatSaveDate(iso);
  return text && `${text} UTC`;
}

/** What the rows' buttons do; one object for the whole list, so rows are not rendered again for new handlers. */
interface RowActions {
  onDelete: (name: string) => void;
  onStart: (name: string) => void;
}

/** Whether "Start this save" is off, and why; null when it can be used. */
type StartBlock = string | null;

function StartButton({ save, actions, blocked }: { save: Save; actions: RowActions; blocked: StartBlock }) {
  const latest = save.name === LOAD_LATEST;
  return (
    <Tooltip title={blocked ?? (latest ? "Start the newest save" : "Start this save")}>
      {/* A span, so the tooltip still explains a disabled button. */}
      <span>
        <IconButton
          color="primary"
          aria-label={`Start ${save.name}`}
          aria-describedby={blocked ? "saves-start-blocked" : undefined}
          disabled={blocked !== null}
          onClick={() => actions.onStart(save.name)}
        >
          <PlayArrowIcon />
        </IconButton>
      </span>
    </Tooltip>
  );
}

function SaveActions(
  { save, actions, blocked, offline }: {
    save: Save;
    actions: RowActions;
    blocked: StartBlock;
    offline: boolean;
  },
) {
  return (
    <>
      <StartButton save={save} actions={actions} blocked={blocked} />
      {save.name !== LOAD_LATEST && (
        <>
          <Tooltip title="Download">
            <IconButton
              component="a"
              href={savesApi.downloadUrl(save.name)}
              download={save.name}
              aria-label={`Download ${save.name}`}
              disabled={offline}
            >
              <DownloadIcon />
            </IconButton>
          </Tooltip>
          <DeleteButton
            title="Delete"
            label={`Delete ${save.name}`}
            disabled={offline}
            onClick={() => actions.onDelete(save.name)}
          />
        </>
      )}
    </>
  );
}

interface RowProps {
  save: Save;
  actions: RowActions;
  blocked: StartBlock;
  offline: boolean;
}

const sameRow = (a: RowProps, b: RowProps) =>
  a.actions === b.actions && a.blocked === b.blocked && a.offline === b.offline && sameData(a.save, b.save);

/** Phones: one card per save, name on top, date, size and version below, the actions at the right at full size. */
const SaveCard = memo(function SaveCard({ save: s, actions, blocked, offline }: RowProps) {
  const version = formatSaveVersion(s.factorio_version);
  return (
    <Box component="li" sx={[insetBox, { p: 1.25, display: "flex", alignItems: "center", gap: 1 }]}>
      <Box sx={{ flexGrow: 1, minWidth: 0 }}>
        <Typography sx={{ fontWeight: 700, overflowWrap: "anywhere" }}>{s.name}</Typography>
        <Typography variant="body2" color="text.secondary">
          {s.name === LOAD_LATEST ? "Starts the newest save" : saveTime(s.last_mod)}
        </Typography>
        {s.name !== LOAD_LATEST && (
          <Typography variant="body2" color="text.secondary">
            {formatSaveSize(s.size)} · {version ? `Factorio ${version}` : "version unknown"}
          </Typography>
        )}
      </Box>
      <Box sx={{ display: "flex", flexShrink: 0 }}>
        <SaveActions save={s} actions={actions} blocked={blocked} offline={offline} />
      </Box>
    </Box>
  );
}, sameRow);

/** A row of the table (wider screens). */
const SaveRow = memo(function SaveRow({ save: s, actions, blocked, offline }: RowProps) {
  const buttons = (
    <TableCell sx={{ ...cell, whiteSpace: "nowrap" }} align="right">
      <SaveActions save={s} actions={actions} blocked={blocked} offline={offline} />
    </TableCell>
  );
  if (s.name === LOAD_LATEST) {
    return (
      <TableRow>
        <TableCell sx={cell} colSpan={4}>
          {s.name}
          <Typography variant="caption" color="text.secondary" component="span" sx={{ ml: 1 }}>
            (starts the newest save)
          </Typography>
        </TableCell>
        {buttons}
      </TableRow>
    );
  }
  return (
    <TableRow>
      <TableCell sx={{ ...cell, overflowWrap: "anywhere", minWidth: "6rem" }}>{s.name}</TableCell>
      <TableCell sx={{ ...cell, whiteSpace: "nowrap" }}>{saveTime(s.last_mod)}</TableCell>
      <TableCell sx={{ ...cell, whiteSpace: "nowrap" }} align="right">{formatSaveSize(s.size)}</TableCell>
      <TableCell sx={{ ...cell, whiteSpace: "nowrap" }}>
        {formatSaveVersion(s.factorio_version) || "unknown"}
      </TableCell>
      {buttons}
    </TableRow>
  );
}, sameRow);

type SaveColumn = "name" | "last_mod" | "size" | "factorio_version";

// The spec's columns (Name, Last Modified At, Size), then the game version; Actions last.
const COLUMNS: SortColumn<SaveColumn>[] = [
  { key: "name", label: "Name" },
  { key: "last_mod", label: "Last Modified At", firstDesc: true },
  { key: "size", label: "Size", numeric: true, firstDesc: true },
  { key: "factorio_version", label: "Version", firstDesc: true },
];

const byName = lazyCompare({ numeric: true });

/** The saves in the chosen order, ties by name; "Load Latest" stays last, as it is not a file. */
export function sortSaves(saves: readonly Save[], sort: Sort<SaveColumn>): Save[] {
  const dir = sort.desc ? -1 : 1;
  const compare = (a: Save, b: Save): number => {
    switch (sort.by) {
      case "name":
        return 0;
      case "last_mod":
        return Date.parse(a.last_mod) - Date.parse(b.last_mod);
      case "size":
        return a.size - b.size;
      case "factorio_version":
        return compareVersionStrings(a.factorio_version ?? "", b.factorio_version ?? "");
    }
  };
  const files = saves.filter((s) => s.name !== LOAD_LATEST);
  files.sort((a, b) => compare(a, b) * dir || byName(a.name, b.name) * (sort.by === "name" ? dir : 1));
  return files.length === saves.length ? files : [...files, ...saves.filter((s) => s.name === LOAD_LATEST)];
}

/**
 * The saves: cards on phones, the spec's table on wider screens, both sortable. Each save renders again
 * only when its own data changed (the list is loaded again whenever the game changes state), and a long
 * list renders its first rows with the page and the rest just after (useProgressiveCount).
 */
function SavesTable(
  { saves, actions, blocked, offline, note, onRefresh }: {
    saves: Save[];
    actions: RowActions;
    blocked: StartBlock;
    offline: boolean;
    note: ReactNode;
    onRefresh: () => void;
  },
) {
  // Below MUI's "sm" breakpoint, written out so the page needs no theme provider.
  const narrow = useMediaQuery("(max-width: 599.95px)", { noSsr: true });
  const [sort, setSort] = useState<Sort<SaveColumn>>({ by: "name", desc: false });
  const sorted = useMemo(() => sortSaves(saves, sort), [saves, sort]);
  const shown = sorted.slice(0, useProgressiveCount(sorted.length));
  return (
    <Panel
      title="Saves"
      action={
        <Tooltip title="Refresh">
          <span>
            <IconButton aria-label="Refresh the list" onClick={onRefresh} disabled={offline}>
              <RefreshIcon />
            </IconButton>
          </span>
        </Tooltip>
      }
    >
      {note}
      {narrow
        ? (
          <>
            {saves.length > 2 && <SortPicker columns={COLUMNS} sort={sort} onSort={setSort} />}
            <Box
              component="ul"
              aria-label="Saves"
              sx={{ listStyle: "none", m: 0, p: 0, display: "grid", gap: 1 }}
            >
              {shown.map((s) => (
                <SaveCard key={s.name} save={s} actions={actions} blocked={blocked} offline={offline} />
              ))}
            </Box>
          </>
        )
        : (
          <TableContainer>
            <Table size="small" aria-label="Saves">
              <TableHead>
                <TableRow>
                  {COLUMNS.map((c) => (
                    <SortHeadCell key={c.key} column={c} sort={sort} onSort={setSort} sx={cell} />
                  ))}
                  <TableCell sx={cell} align="right">Actions</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {shown.map((s) => (
                  <SaveRow key={s.name} save={s} actions={actions} blocked={blocked} offline={offline} />
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
    </Panel>
  );
}

/**
 * The list as last loaded, kept while the app runs: offline, the page shows it (saying so) instead of
 * nothing, also after going to another page and back.
 */
let lastList: { saves: Save[]; at: string } | null = null;

/** Why "Start this save" is off now (the role, the connection, the server's state), or null. */
function startBlock(
  canChange: boolean,
  offline: boolean,
  status: ServerStatus | null,
  starting: string | null,
): StartBlock {
  if (!canChange) return VIEWER_NOTE;
  if (offline) return "Offline: starting a save needs a connection to the panel.";
  if (starting !== null) return `Starting the server on ${starting}…`;
  if (status === null) return "The server's state is not known yet.";
  if (status.status !== "stopped") {
    return `Starting a save needs the server stopped; it is ${status.status} now.`;
  }
  return null;
}

export default function Saves() {
  const [list, setList] = useState(lastList);
  const saves = list?.saves ?? [];
  const [failed, setFailed] = useState(false);
  const [confirm, setConfirm] = useState<string | null>(null);
  const [startAsk, setStartAsk] = useState<string | null>(null);
  const [starting, setStarting] = useState<string | null>(null);
  const canChange = useCan("operator");
  const { status } = useSnapshot(server);
  const { online } = useSnapshot(connection);
  const load = useCallback(() => {
    savesApi.list().then((saves) => {
      lastList = { saves, at: new Date().toISOString() };
      setList(lastList);
      setFailed(false);
    }, () => setFailed(true));
  }, []);
  // Reload when the game changes state too (stopping it writes its save), and when the panel answers again.
  useEffect(() => {
    if (online) load();
  }, [load, status?.status, online]);

  async function remove(name: string) {
    try {
      showFlash(await savesApi.remove(name), "success");
    } catch {
      // flashed by the client
    }
    load();
  }

  async function start(savefile: string, at: { bindip: string; port: number }) {
    setStarting(savefile);
    try {
      // Answers once the game hosts, or with the game's reason (flashed by the client).
      showFlash(await serverApi.start({ bindip: at.bindip, port: at.port, savefile }), "success");
    } catch {
      // flashed by the client; a failed start's details are on Controls
    } finally {
      setStarting(null);
      void refreshStatus();
    }
  }

  const blocked = startBlock(canChange, !online, status as ServerStatus | null, starting);
  // The address and port of the server's last start; the defaults before the first one (no save named yet).
  const startAt = status
    ? {
      bindip: status.bindip || DEFAULT_BIND_IP,
      port: status.port || DEFAULT_GAME_PORT,
      known: status.savefile !== "",
    }
    : null;
  const actions = useMemo<RowActions>(() => ({ onDelete: setConfirm, onStart: setStartAsk }), []);

  let note: ReactNode = null;
  if (!online) {
    note = (
      <Alert severity="warning" variant="outlined" sx={{ mb: 1.5 }} data-testid="saves-offline">
        {list
          ? `Offline: this is the list as it was at ${
            confirmedAt(list.at)
          }; it may have changed since, and its actions need a connection.`
          : "Offline: the saves are shown when the panel can be reached."}
      </Alert>
    );
  } else if (list === null) {
    note = (
      <Typography color="text.secondary" sx={{ mb: 1.5 }}>
        {failed ? "The list of saves could not be loaded; Refresh tries again." : "Loading…"}
      </Typography>
    );
  } else if (blocked && canChange) {
    note = (
      <Typography
        id="saves-start-blocked"
        variant="body2"
        color="text.secondary"
        sx={{ mb: 1.5, display: "flex", alignItems: "center", gap: 1 }}
      >
        {starting !== null && <CircularProgress size={18} aria-label="Starting the server" />}
        {blocked}
      </Typography>
    );
  }

  return (
    <Page title="Saves">
      <ViewerNote />
      {canChange && (
        <Box
          sx={{
            display: "grid",
            gap: 2.5,
            gridTemplateColumns: { xs: "1fr", md: "1fr 1fr" },
            alignItems: "start",
          }}
        >
          <CreateSave onCreated={load} offline={!online} />
          <UploadSave onUploaded={load} existing={saves.map((s) => s.name)} offline={!online} />
        </Box>
      )}
      <SavesTable
        saves={saves}
        actions={actions}
        blocked={blocked}
        offline={!online}
        note={note}
        onRefresh={load}
      />
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
      <ConfirmDialog
        open={startAsk !== null && startAt !== null}
        title="Start this save"
        message={startAsk && startAt
          ? `The server starts on ${
            startAsk === LOAD_LATEST ? "the newest save" : startAsk
          }, at ${startAt.bindip}:${startAt.port} (${
            startAt.known
              ? "the address and port of its last start"
              : "the defaults: it has not been started since the panel started"
          }).`
          : ""}
        confirmLabel="Start"
        onConfirm={() => startAsk && startAt && void start(startAsk, startAt)}
        onClose={() => setStartAsk(null)}
      />
    </Page>
  );
}
