import { DeleteButton } from "../../components/DeleteButton.tsx";
import { type FormEvent, useCallback, useEffect, useState } from "react";
import {
  Alert,
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  FormControlLabel,
  FormHelperText,
  IconButton,
  Stack,
  Switch,
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
import RefreshIcon from "@mui/icons-material/Refresh";
import { useSnapshot } from "valtio";
import { Page, Panel } from "../../components/Page.tsx";
import { playersApi } from "../../api/settings.ts";
import { showFlash } from "../../state/flash.ts";
import { server } from "../../state/server.ts";
import { socket } from "../../state/socket.ts";
import type { PlayerLists } from "../../../../shared/api.ts";
import { PANEL_MSG } from "../../../../shared/messages.ts";
import { banReasonError, LIST_TITLES, type PlayerList, playerNameError } from "../../../../shared/players.ts";
import type { FieldErrors } from "../../../../shared/validation.ts";
import { useForm } from "../../components/useForm.ts";
import { ReadOnly, ViewerNote } from "../../components/ReadOnly.tsx";

type Apply = (lists: PlayerLists) => void;

function AddForm({ list, withReason, onDone }: { list: PlayerList; withReason?: boolean; onDone: Apply }) {
  const form = useForm({ name: "", reason: "" }, (v) => {
    const found: FieldErrors<"name" | "reason"> = {};
    const nameError = playerNameError(v.name.trim());
    if (nameError) found.name = nameError;
    const reasonError = withReason ? banReasonError(v.reason) : undefined;
    if (reasonError) found.reason = reasonError;
    return found;
  });
  const [busy, setBusy] = useState(false);
  const title = LIST_TITLES[list];

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!form.check()) return;
    const username = form.values.name.trim();
    setBusy(true);
    try {
      onDone(await playersApi.add(list, username, withReason ? form.values.reason.trim() : undefined));
      showFlash(PANEL_MSG.playerAdded(username, title), "success");
      form.reset();
    } catch {
      // flashed by the client
    } finally {
      setBusy(false);
    }
  }

  return (
    <Box
      component="form"
      onSubmit={submit}
      noValidate
      aria-label={`Add to the ${title}`}
      sx={{ display: "flex", gap: 1.5, flexWrap: "wrap", alignItems: "flex-start" }}
    >
      <TextField label="Player name" autoComplete="off" {...form.field("name")} sx={{ flex: "1 1 12rem" }} />
      {withReason && (
        <TextField label="Reason" autoComplete="off" {...form.field("reason")} sx={{ flex: "2 1 14rem" }} />
      )}
      <Button type="submit" disabled={busy} sx={{ mt: 0.25 }}>{withReason ? "Ban" : "Add"}</Button>
    </Box>
  );
}

function NameTable({ list, rows, reasons, onDone }: {
  list: PlayerList;
  rows: string[];
  reasons?: string[];
  onDone: Apply;
}) {
  const title = LIST_TITLES[list];
  async function remove(name: string) {
    try {
      onDone(await playersApi.remove(list, name));
      showFlash(PANEL_MSG.playerRemoved(name, title), "success");
    } catch {
      // flashed by the client
    }
  }
  if (rows.length === 0) return <Typography color="text.secondary">Nobody is on the {title}.</Typography>;
  return (
    <TableContainer>
      <Table size="small" aria-label={title}>
        <TableHead>
          <TableRow>
            <TableCell>Name</TableCell>
            {reasons && <TableCell>Reason</TableCell>}
            <TableCell align="right">Actions</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((name, i) => (
            <TableRow key={name + i}>
              <TableCell sx={{ wordBreak: "break-word" }}>{name}</TableCell>
              {reasons && <TableCell sx={{ wordBreak: "break-word" }}>{reasons[i] || "--"}</TableCell>}
              <TableCell align="right">
                <DeleteButton
                  title={`Remove from the ${title}`}
                  label={`Remove ${name} from the ${title}`}
                  onClick={() => void remove(name)}
                />
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

/** Asks for an optional reason before kicking or banning someone who is online. */
function ReasonDialog({ action, name, onClose, onConfirm }: {
  action: "Kick" | "Ban" | null;
  name: string;
  onClose: () => void;
  onConfirm: (reason: string) => void;
}) {
  const [reason, setReason] = useState("");
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    setReason("");
    setError(undefined);
  }, [action, name]);
  return (
    <Dialog open={action !== null} onClose={onClose} maxWidth="xs" fullWidth aria-labelledby="reason-title">
      <DialogTitle id="reason-title">{action} {name}</DialogTitle>
      <DialogContent>
        <DialogContentText sx={{ mb: 2 }}>
          {action === "Ban"
            ? `${name} is disconnected and cannot join again until unbanned.`
            : `${name} is disconnected and may join again.`}
        </DialogContentText>
        <TextField
          label="Reason"
          autoFocus
          value={reason}
          onChange={(e) =>
            setReason(e.target.value)}
          error={!!error}
          helperText={error}
        />
      </DialogContent>
      <DialogActions>
        <Button color="secondary" onClick={onClose}>Cancel</Button>
        <Button
          color="error"
          onClick={() => {
            const found = banReasonError(reason);
            if (found) {
              return setError(found);
            }
            onConfirm(reason.trim());
            onClose();
          }}
        >
          {action}
        </Button>
      </DialogActions>
    </Dialog>
  );
}

function Online({ running, onDone }: { running: boolean; onDone: Apply }) {
  const [players, setPlayers] = useState<string[] | null>(null);
  const [target, setTarget] = useState<{ action: "Kick" | "Ban"; name: string } | null>(null);

  const refresh = useCallback(() => {
    if (!running) return setPlayers(null);
    playersApi.online({ quiet: true }).then((r) => setPlayers(r.players), () => setPlayers(null));
  }, [running]);
  useEffect(refresh, [refresh]);
  // The game logs every join and leave; refresh the list when one passes by.
  useEffect(() => {
    if (!running) return;
    return socket.subscribe("gamelog", (line) => {
      if (/\[(JOIN|LEAVE)\]/.test(line)) refresh();
    });
  }, [running, refresh]);

  async function act(action: "Kick" | "Ban", name: string, reason: string) {
    try {
      if (action === "Kick") {
        await playersApi.kick(name, reason);
        showFlash(PANEL_MSG.playerKicked(name), "success");
      } else {
        onDone(await playersApi.add("bans", name, reason));
        showFlash(PANEL_MSG.playerAdded(name, LIST_TITLES.bans), "success");
      }
    } catch {
      // flashed by the client
    }
    refresh();
  }

  return (
    <Panel
      title="Online players"
      action={running && (
        <Tooltip title="Refresh">
          <IconButton aria-label="Refresh online players" onClick={refresh}>
            <RefreshIcon />
          </IconButton>
        </Tooltip>
      )}
    >
      {!running
        ? <Typography color="text.secondary">{PANEL_MSG.playersNotRunning}</Typography>
        : players === null
        ? <Typography color="text.secondary">Asking the game…</Typography>
        : players.length === 0
        ? <Typography color="text.secondary">Nobody is online.</Typography>
        : (
          <TableContainer>
            <Table size="small" aria-label="Online players">
              <TableHead>
                <TableRow>
                  <TableCell>Name</TableCell>
                  <TableCell align="right">Actions</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {players.map((name) => (
                  <TableRow key={name}>
                    <TableCell>{name}</TableCell>
                    <TableCell align="right">
                      <Stack direction="row" spacing={1} sx={{ justifyContent: "flex-end" }}>
                        <Button
                          size="small"
                          color="secondary"
                          aria-label={`Kick ${name}`}
                          onClick={() => setTarget({ action: "Kick", name })}
                        >
                          Kick
                        </Button>
                        <Button
                          size="small"
                          color="error"
                          aria-label={`Ban ${name}`}
                          onClick={() => setTarget({ action: "Ban", name })}
                        >
                          Ban
                        </Button>
                      </Stack>
                    </TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      <ReasonDialog
        action={target?.action ?? null}
        name={target?.name ?? ""}
        onClose={() => setTarget(null)}
        onConfirm={(reason) => target && void act(target.action, target.name, reason)}
      />
    </Panel>
  );
}

export default function Players() {
  const [lists, setLists] = useState<PlayerLists | null>(null);
  const { status } = useSnapshot(server);
  const state = status?.status;
  const running = state === "running";

  // Read again on every status change: after the game stops, its in-game edits are in the files.
  useEffect(() => {
    playersApi.lists().then(setLists, () => {});
  }, [state]);

  async function setUse(on: boolean) {
    // The switch moves at once; it moves back if the panel refuses.
    setLists((old) => old && { ...old, use_whitelist: on });
    try {
      setLists(await playersApi.useWhitelist(on));
      showFlash(PANEL_MSG.whitelistUse(on), "success");
    } catch {
      setLists((old) => old && { ...old, use_whitelist: !on });
    }
  }

  return (
    <Page title="Players">
      {state && (
        <Alert severity="info">
          {running
            ? PANEL_MSG.playersLive
            : state === "stopped"
            ? PANEL_MSG.playersStopped
            : PANEL_MSG.playersBusy}
        </Alert>
      )}
      <ViewerNote />
      <ReadOnly>
        <Online running={running} onDone={setLists} />
      </ReadOnly>
      {lists && (
        <ReadOnly>
          {
            <Box
              sx={{
                display: "grid",
                gap: 2.5,
                gridTemplateColumns: { xs: "1fr", lg: "1fr 1fr" },
                alignItems: "start",
              }}
            >
              <Panel title="Admins">
                <Stack spacing={2}>
                  <AddForm list="admins" onDone={setLists} />
                  <NameTable list="admins" rows={lists.admins} onDone={setLists} />
                </Stack>
              </Panel>
              <Panel title="Whitelist">
                <Stack spacing={2}>
                  <Box>
                    <FormControlLabel
                      control={
                        <Switch
                          checked={lists.use_whitelist}
                          onChange={(e) => void setUse(e.target.checked)}
                        />
                      }
                      label="Use whitelist"
                    />
                    <FormHelperText sx={{ mx: 0 }}>
                      Only players on the whitelist can join. Switching it takes effect at the next start.
                    </FormHelperText>
                  </Box>
                  <AddForm list="whitelist" onDone={setLists} />
                  <NameTable list="whitelist" rows={lists.whitelist} onDone={setLists} />
                </Stack>
              </Panel>
              <Box sx={{ gridColumn: "1 / -1" }}>
                <Panel title="Bans">
                  <Stack spacing={2}>
                    <AddForm list="bans" withReason onDone={setLists} />
                    <NameTable
                      list="bans"
                      rows={lists.bans.map((b) => b.username)}
                      reasons={lists.bans.map((b) => b.reason)}
                      onDone={setLists}
                    />
                  </Stack>
                </Panel>
              </Box>
            </Box>
          }
        </ReadOnly>
      )}
    </Page>
  );
}
