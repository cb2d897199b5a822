// The admins' Servers page: the panel's servers, adding one (empty, a Factorio folder used where it is,
// a copy of a server, or a backup of one), renaming, and deleting (a backup first unless the admin types
// the server's name to go without), and importing one server's archive (--export-server) as a new server.

import { type FormEvent, useEffect, useRef, useState } from "react";
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  MenuItem,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableHead,
  TableRow,
  TextField,
  Typography,
} from "@mui/material";
import AddIcon from "@mui/icons-material/Add";
import EditIcon from "@mui/icons-material/Edit";
import DeleteIcon from "@mui/icons-material/Delete";
import { useSnapshot } from "valtio";
import { Page, Panel } from "../../components/Page.tsx";
import { ReadOnly } from "../../components/ReadOnly.tsx";
import { StateDot } from "../../components/ServerSwitcher.tsx";
import { UploadBar } from "../../components/UploadBar.tsx";
import { Lines } from "../../components/Lines.tsx";
import { FilePicker } from "../../components/FilePicker.tsx";
import { loadServers, serverList } from "../../state/servers.ts";
import { showFlash } from "../../state/flash.ts";
import { serversApi } from "../../api/servers.ts";
import { ApiError, call, type UploadProgress } from "../../api/client.ts";
import type { Backup } from "../../../../shared/contract/backups.ts";
import type { ImportResult } from "../../../../shared/contract/transfer.ts";
import type { NewServer, ServerSource, ServerSummary } from "../../../../shared/contract/servers.ts";
import { FIRST_SERVER, SERVER_NAME_MAX, SERVERS_MSG, SERVERS_UI } from "../../../../shared/servers.ts";

/** The words of a refusal, as the panel put them (the client flashed them too). */
function refusal(e: unknown): string | null {
  return e instanceof ApiError && e.status !== 0 ? e.message : null;
}

/** Columns a phone leaves out (their facts go under the name). */
const WIDE = { display: { xs: "none", sm: "table-cell" } } as const;

/** A select whose empty choice has words ("An empty server") shows them, not a bare label. */
const SHOW_EMPTY = { slotProps: { inputLabel: { shrink: true }, select: { displayEmpty: true } } } as const;

type SourceKind = "" | "folder" | "server" | "backup";

/** A port field's value: empty means "the next free one" (left out of the request). */
function portOf(text: string): number | undefined {
  return text.trim() === "" ? undefined : Number(text);
}

function AddServer({ servers }: { servers: readonly ServerSummary[] }) {
  const empty = { name: "", port: "", rcon: "", version: "", kind: "" as SourceKind, folder: "", from: "" };
  const [form, setForm] = useState(empty);
  const [versions, setVersions] = useState<string[]>([]);
  const [backups, setBackups] = useState<Backup[] | null>(null);
  const [backup, setBackup] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    call("GET /api/factorio/versions", { server: FIRST_SERVER }, { quiet: true }).then(
      (v) => setVersions(v.installed.map((i) => i.version)),
      () => setVersions([]),
    );
  }, []);
  // The backups of the server chosen as the source.
  useEffect(() => {
    setBackups(null);
    setBackup("");
    if (form.kind !== "backup" || form.from === "") return;
    let live = true;
    call("GET /api/backups", { server: Number(form.from) }, { quiet: true }).then(
      (list) => live && setBackups(list),
      () => live && setBackups([]),
    );
    return () => {
      live = false;
    };
  }, [form.kind, form.from]);

  const set = (key: keyof typeof empty) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [key]: e.target.value }));

  function source(): ServerSource | undefined {
    if (form.kind === "folder") return { folder: form.folder.trim() };
    if (form.kind === "server") return { server: Number(form.from) };
    if (form.kind === "backup") return { backup, server: Number(form.from) };
    return undefined;
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    setError(null);
    setBusy(true);
    const body: NewServer = {
      name: form.name.trim(),
      port: portOf(form.port),
      rcon_port: portOf(form.rcon),
      version: form.version || undefined,
      from: source(),
    };
    try {
      await serversApi.add(body);
      showFlash(SERVERS_UI.added(body.name), "success");
      setForm(empty);
      void loadServers();
    } catch (err) {
      setError(refusal(err));
    } finally {
      setBusy(false);
    }
  }

  return (
    <Panel title={SERVERS_UI.add}>
      <Box
        component="form"
        onSubmit={submit}
        noValidate
        aria-label={SERVERS_UI.add}
        sx={{ display: "grid", gap: 2, gridTemplateColumns: { xs: "1fr", sm: "1fr 1fr" }, maxWidth: 720 }}
      >
        <TextField
          label={SERVERS_UI.name}
          value={form.name}
          onChange={set("name")}
          required
          slotProps={{ htmlInput: { maxLength: SERVER_NAME_MAX } }}
          sx={{ gridColumn: "1 / -1" }}
        />
        <TextField
          label={SERVERS_UI.port}
          type="number"
          value={form.port}
          onChange={set("port")}
          placeholder={SERVERS_UI.nextFree}
          slotProps={{ inputLabel: { shrink: true }, htmlInput: { min: 1, max: 65535 } }}
        />
        <TextField
          label={SERVERS_UI.rconPort}
          type="number"
          value={form.rcon}
          onChange={set("rcon")}
          placeholder={SERVERS_UI.nextFree}
          slotProps={{ inputLabel: { shrink: true }, htmlInput: { min: 1, max: 65535 } }}
        />
        <TextField
          label={SERVERS_UI.version}
          select
          value={form.version}
          onChange={set("version")}
          {...SHOW_EMPTY}
        >
          <MenuItem value="">{SERVERS_UI.versionDefault}</MenuItem>
          {versions.map((v) => <MenuItem key={v} value={v}>{v}</MenuItem>)}
        </TextField>
        <TextField label={SERVERS_UI.source} select value={form.kind} onChange={set("kind")} {...SHOW_EMPTY}>
          <MenuItem value="">{SERVERS_UI.sourceEmpty}</MenuItem>
          <MenuItem value="folder">{SERVERS_UI.sourceFolder}</MenuItem>
          <MenuItem value="server">{SERVERS_UI.sourceServer}</MenuItem>
          <MenuItem value="backup">{SERVERS_UI.sourceBackup}</MenuItem>
        </TextField>
        {form.kind === "folder" && (
          <TextField
            label={SERVERS_UI.folder}
            value={form.folder}
            onChange={set("folder")}
            placeholder="/opt/factorio"
            helperText={SERVERS_UI.folderHint}
            slotProps={{ inputLabel: { shrink: true } }}
            sx={{ gridColumn: "1 / -1" }}
          />
        )}
        {(form.kind === "server" || form.kind === "backup") && (
          <TextField
            label={form.kind === "server" ? SERVERS_UI.copyOf : SERVERS_UI.backupOf}
            select
            value={form.from}
            onChange={set("from")}
          >
            {servers.map((s) => <MenuItem key={s.id} value={String(s.id)}>{s.name}</MenuItem>)}
          </TextField>
        )}
        {form.kind === "backup" && form.from !== "" && (
          backups?.length === 0
            ? (
              <Typography color="text.secondary" sx={{ alignSelf: "center" }}>
                {SERVERS_UI.noBackups}
              </Typography>
            )
            : (
              <TextField
                label={SERVERS_UI.backup}
                select
                value={backup}
                onChange={(e) => setBackup(e.target.value)}
                disabled={backups === null}
              >
                {(backups ?? []).map((b) => (
                  <MenuItem key={b.id} value={b.id}>
                    {`${b.save}, ${b.created.slice(0, 16).replace("T", " ")}`}
                  </MenuItem>
                ))}
              </TextField>
            )
        )}
        {error && <Alert severity="error" sx={{ gridColumn: "1 / -1" }}>{error}</Alert>}
        <Box sx={{ gridColumn: "1 / -1" }}>
          <Button type="submit" color="success" startIcon={<AddIcon />} disabled={busy}>
            {SERVERS_UI.add}
          </Button>
        </Box>
      </Box>
    </Panel>
  );
}

/** One server's archive (--export-server) uploaded: a new server, the panel's lines shown, the list again. */
function ImportServer() {
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [result, setResult] = useState<ImportResult | null>(null);
  const abort = useRef<() => void>(undefined);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => () => abort.current?.(), []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setResult(null);
    if (!file) return setError(SERVERS_UI.importRequired);
    setError(null);
    setProgress({ loaded: 0, total: file.size });
    const job = serversApi.importArchive(file, setProgress);
    abort.current = job.abort;
    try {
      const answer = await job.promise;
      setResult(answer);
      setFile(null);
      if (input.current) input.current.value = "";
      const list = await loadServers();
      const added = list?.find((s) => s.id === answer.server);
      if (added) showFlash(SERVERS_UI.added(added.name), "success");
    } catch (err) {
      // In the panel's words (the upload is quiet: a flash would be gone before it is read).
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      abort.current = undefined;
      setProgress(null);
    }
  }

  return (
    <Panel title={SERVERS_UI.importTitle}>
      <Stack component="form" spacing={2} noValidate aria-label={SERVERS_UI.importTitle} onSubmit={submit}>
        <Typography variant="body2" color="text.secondary">
          {`${SERVERS_UI.importSays} `}
          <Box component="code" sx={{ fontSize: "0.9em", overflowWrap: "anywhere" }}>
            npm start -- --export FILE --export-server N
          </Box>
          {`. ${SERVERS_UI.importKeeps}`}
        </Typography>
        <FilePicker
          name="archive"
          label={SERVERS_UI.importFile}
          file={file}
          inputRef={input}
          disabled={!!progress}
          onChange={(f) => {
            setFile(f);
            setError(null);
            setResult(null);
          }}
        />
        {error && <Alert severity="error" sx={{ overflowWrap: "anywhere" }}>{error}</Alert>}
        {progress && <UploadBar progress={progress} checking={SERVERS_UI.importChecking} />}
        {result && <Lines lines={result.lines} label={SERVERS_UI.imported} />}
        <Box sx={{ display: "flex", gap: 1.5 }}>
          <Button type="submit" disabled={!!progress}>{SERVERS_UI.importButton}</Button>
          {progress && <Button color="secondary" onClick={() => abort.current?.()}>Cancel</Button>}
        </Box>
      </Stack>
    </Panel>
  );
}

function RenameDialog({ server, onClose }: { server: ServerSummary | null; onClose: () => void }) {
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setName(server?.name ?? "");
    setError(null);
  }, [server]);
  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!server) return;
    try {
      showFlash(await serversApi.change(server.id, { name: name.trim() }), "success");
      void loadServers();
      onClose();
    } catch (err) {
      setError(refusal(err));
    }
  }
  return (
    <Dialog open={server !== null} onClose={onClose} maxWidth="xs" fullWidth>
      <Box component="form" onSubmit={submit} noValidate>
        <DialogTitle>{SERVERS_UI.rename}</DialogTitle>
        <DialogContent sx={{ display: "grid", gap: 2, pt: "8px !important" }}>
          <TextField
            label={SERVERS_UI.name}
            value={name}
            onChange={(e) => setName(e.target.value)}
            autoFocus
            slotProps={{ htmlInput: { maxLength: SERVER_NAME_MAX } }}
          />
          {error && <Alert severity="error">{error}</Alert>}
        </DialogContent>
        <DialogActions>
          <Button color="secondary" onClick={onClose}>Cancel</Button>
          <Button type="submit" color="primary">{SERVERS_UI.rename}</Button>
        </DialogActions>
      </Box>
    </Dialog>
  );
}

/** Deleting: a backup first; without one only once the server's name is typed. */
function DeleteDialog({ server, onClose }: { server: ServerSummary | null; onClose: () => void }) {
  const [without, setWithout] = useState(false);
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setWithout(false);
    setTyped("");
    setError(null);
  }, [server]);
  async function remove() {
    if (!server) return;
    setBusy(true);
    setError(null);
    try {
      showFlash(
        await serversApi.remove(server.id, without ? { backup: false, confirm: typed } : { backup: true }),
        "success",
      );
      void loadServers();
      onClose();
    } catch (err) {
      setError(refusal(err));
    } finally {
      setBusy(false);
    }
  }
  return (
    <Dialog
      open={server !== null}
      onClose={busy ? undefined : onClose}
      maxWidth="sm"
      fullWidth
      aria-labelledby="delete-server-title"
    >
      <DialogTitle id="delete-server-title">{server && SERVERS_UI.deleteTitle(server.name)}</DialogTitle>
      <DialogContent sx={{ display: "grid", gap: 2 }}>
        <DialogContentText>{server && SERVERS_UI.deleteSays(server.name)}</DialogContentText>
        {without && server && (
          <>
            <Alert severity="warning">{SERVERS_UI.deleteNoBackup}</Alert>
            <TextField
              label={SERVERS_UI.typeName}
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              helperText={SERVERS_MSG.confirmName(server.name)}
              autoFocus
              autoComplete="off"
            />
          </>
        )}
        {error && <Alert severity="error">{error}</Alert>}
      </DialogContent>
      <DialogActions sx={{ flexWrap: "wrap", gap: 1 }}>
        <Button color="secondary" onClick={onClose} autoFocus disabled={busy}>Cancel</Button>
        {without
          ? (
            <Button color="error" onClick={() => void remove()} disabled={busy || typed !== server?.name}>
              {SERVERS_UI.deleteWithoutBackup}
            </Button>
          )
          : (
            <>
              <Button color="error" variant="outlined" onClick={() => setWithout(true)} disabled={busy}>
                {SERVERS_UI.deleteWithoutBackup}
              </Button>
              <Button color="error" onClick={() => void remove()} disabled={busy}>
                {SERVERS_UI.deleteWithBackup}
              </Button>
            </>
          )}
      </DialogActions>
    </Dialog>
  );
}

export default function ServersAdmin() {
  const { list } = useSnapshot(serverList);
  const [renaming, setRenaming] = useState<ServerSummary | null>(null);
  const [deleting, setDeleting] = useState<ServerSummary | null>(null);
  useEffect(() => {
    void loadServers();
  }, []);
  const servers = (list ?? []) as ServerSummary[];
  return (
    <Page title={SERVERS_UI.adminTitle}>
      <ReadOnly need="admin">
        <Panel title={SERVERS_UI.overviewTitle}>
          <Box sx={{ overflowX: "auto" }}>
            <Table size="small" aria-label={SERVERS_UI.overviewTitle}>
              <TableHead>
                <TableRow>
                  <TableCell>{SERVERS_UI.name}</TableCell>
                  <TableCell sx={WIDE}>{SERVERS_UI.port}</TableCell>
                  <TableCell sx={WIDE}>{SERVERS_UI.rconPort}</TableCell>
                  <TableCell sx={WIDE}>{SERVERS_UI.version}</TableCell>
                  <TableCell sx={{ display: { xs: "none", md: "table-cell" } }}>Folder</TableCell>
                  <TableCell align="right">Actions</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {servers.map((s) => (
                  <TableRow key={s.id} data-testid={`server-row-${s.id}`}>
                    <TableCell>
                      <Box sx={{ display: "flex", alignItems: "center", gap: 1 }}>
                        <StateDot state={s.status} />
                        <span>{s.name}</span>
                      </Box>
                      {/* A phone has no room for the columns: the same facts under the name. */}
                      <Typography
                        variant="body2"
                        color="text.secondary"
                        sx={{ display: { sm: "none" }, mt: 0.5 }}
                      >
                        {`${SERVERS_UI.port} ${s.port}, RCON ${s.rcon_port}, ${s.version || "-"}`}
                      </Typography>
                    </TableCell>
                    <TableCell sx={WIDE}>{s.port}</TableCell>
                    <TableCell sx={WIDE}>{s.rcon_port}</TableCell>
                    <TableCell sx={WIDE}>{s.version || "-"}</TableCell>
                    <TableCell sx={{ display: { xs: "none", md: "table-cell" }, overflowWrap: "anywhere" }}>
                      {s.dir}
                    </TableCell>
                    <TableCell align="right">
                      <Box
                        sx={{ display: "inline-flex", gap: 1, flexWrap: "wrap", justifyContent: "flex-end" }}
                      >
                        <Button
                          size="small"
                          color="secondary"
                          startIcon={<EditIcon />}
                          onClick={() => setRenaming(s)}
                          aria-label={`${SERVERS_UI.rename} ${s.name}`}
                        >
                          {SERVERS_UI.rename}
                        </Button>
                        {s.id !== FIRST_SERVER && (
                          <Button
                            size="small"
                            color="error"
                            startIcon={<DeleteIcon />}
                            onClick={() => setDeleting(s)}
                            aria-label={`${SERVERS_UI.remove} ${s.name}`}
                          >
                            {SERVERS_UI.remove}
                          </Button>
                        )}
                      </Box>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Box>
          <Typography variant="body2" color="text.secondary" sx={{ mt: 1.5 }}>
            {SERVERS_UI.firstStays}
          </Typography>
        </Panel>
        <Box sx={{ mt: 2.5 }}>
          <AddServer servers={servers} />
        </Box>
        <Box sx={{ mt: 2.5 }}>
          <ImportServer />
        </Box>
      </ReadOnly>
      <RenameDialog server={renaming} onClose={() => setRenaming(null)} />
      <DeleteDialog server={deleting} onClose={() => setDeleting(null)} />
    </Page>
  );
}
