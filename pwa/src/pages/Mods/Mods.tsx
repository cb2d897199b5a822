import { memo, useCallback, useEffect, useState } from "react";
import {
  Alert,
  Box,
  Button,
  Card,
  Checkbox,
  Dialog,
  DialogActions,
  DialogContent,
  DialogContentText,
  DialogTitle,
  FormControlLabel,
  Tab,
  Tabs,
  Typography,
  useMediaQuery,
  useTheme,
} from "@mui/material";
import DeleteSweepIcon from "@mui/icons-material/DeleteSweep";
import DownloadIcon from "@mui/icons-material/Download";
import UpgradeIcon from "@mui/icons-material/Upgrade";
import { useSnapshot } from "valtio";
import type { Mod, ModUpdate } from "../../../../shared/api.ts";
import { MSG, PANEL_MSG } from "../../../../shared/messages.ts";
import { whoCanJoin } from "../../../../shared/mods.ts";
import { modsApi } from "../../api/mods.ts";
import { ApiError } from "../../api/client.ts";
import { Page, Panel } from "../../components/Page.tsx";
import { showFlash } from "../../state/flash.ts";
import { server } from "../../state/server.ts";
import { InstallMod } from "./InstallMod.tsx";
import { LoadFromSave } from "./LoadFromSave.tsx";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { ModPacks } from "./ModPacks.tsx";
import { ModsTable } from "./ModsTable.tsx";
import { ModSettings } from "./ModSettings.tsx";
import { UploadMod } from "./UploadMod.tsx";
import { type Work, WorkProgress } from "./WorkProgress.tsx";
import { useCan } from "../../state/access.ts";
import { ReadOnly, ViewerNote } from "../../components/ReadOnly.tsx";

const TABS = ["Install Mod", "Upload Mod", "Load Mod from Save"] as const;
type PageTab = "mods" | "settings";

// The page's tabs render only when their own props change: MUI's Tabs measure themselves after every
// render (getBoundingClientRect), a layout of the whole page, ~400 ms on a phone beside 300 mods, and the
// page renders for every step of a change (bench/lists-ui.mjs).
const PageTabs = memo(
  function PageTabs({ value, onChange }: { value: PageTab; onChange: (t: PageTab) => void }) {
    return (
      <Tabs
        value={value}
        onChange={(_, v) => onChange(v)}
        aria-label="Mods or their settings"
      >
        <Tab value="mods" label="Installed mods" />
        <Tab value="settings" label="Mod settings" />
      </Tabs>
    );
  },
);

// On a phone the three tabs share the width and their labels wrap ("Load Mod / from Save"): scrolled
// tabs showed "Load Mo" behind an arrow. The spec's labels stay as they are.
const AddTabs = memo(function AddTabs({ value, onChange }: { value: number; onChange: (t: number) => void }) {
  const phone = useMediaQuery(useTheme().breakpoints.down("sm"), { noSsr: true });
  return (
    <Tabs
      value={value}
      onChange={(_, v) => onChange(v)}
      variant={phone ? "fullWidth" : "standard"}
      aria-label="Add mods"
    >
      {TABS.map((t) => <Tab key={t} label={t} sx={{ px: { xs: 1, sm: 2 } }} />)}
    </Tabs>
  );
});

/** Before a start: whether players without Space Age (or without mods) can join, given what is on. */
function JoinNote({ mods }: { mods: Mod[] | null }) {
  if (!mods || mods.length === 0) return null;
  const { vanilla, text } = whoCanJoin(mods);
  return <Alert severity={vanilla ? "success" : "info"} role="note" aria-label="Who can join">{text}</Alert>;
}

function DeleteAll(
  { open, onClose, onConfirm }: {
    open: boolean;
    onClose: () => void;
    onConfirm: (modSettings: boolean) => void;
  },
) {
  const [modSettings, setModSettings] = useState(false);
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="delete-all-title" maxWidth="xs" fullWidth>
      <DialogTitle id="delete-all-title">Delete all Mods</DialogTitle>
      <DialogContent>
        <DialogContentText>
          Delete every installed mod? The game's built-in mods stay, and so do the mod packs.
        </DialogContentText>
        <FormControlLabel
          sx={{ mt: 1 }}
          control={<Checkbox checked={modSettings} onChange={(e) => setModSettings(e.target.checked)} />}
          label="Also delete mod-settings.dat (the mods' settings)"
        />
      </DialogContent>
      <DialogActions>
        <Button color="secondary" onClick={onClose} autoFocus>Cancel</Button>
        <Button
          color="error"
          onClick={() => {
            onConfirm(modSettings);
            onClose();
          }}
        >
          Delete all
        </Button>
      </DialogActions>
    </Dialog>
  );
}

export default function Mods() {
  const canChange = useCan("operator");
  const { status } = useSnapshot(server);
  const stopped = status?.status === "stopped";
  const [mods, setMods] = useState<Mod[] | null>(null);
  const [updates, setUpdates] = useState<ModUpdate[]>([]);
  const [updateNote, setUpdateNote] = useState<string | null>(null);
  const [tab, setTab] = useState(0);
  const [pageTab, setPageTab] = useState<PageTab>("mods");
  const [work, setWork] = useState<Work | null>(null);
  const [confirmDeleteAll, setConfirmDeleteAll] = useState(false);
  const [toDelete, setToDelete] = useState<Mod | null>(null);
  // Bumped after changes that packs care about (a pack loaded, mods changed).
  const [version, setVersion] = useState(0);

  const loadMods = useCallback(() => {
    modsApi.list().then(setMods, () => {});
  }, []);
  /** After a change: the mods again, and the packs (version). */
  const reload = useCallback(() => {
    loadMods();
    setVersion((v) => v + 1);
  }, [loadMods]);
  // On arrival the packs load on their own: bumping `version` here asked for them twice.
  useEffect(loadMods, [loadMods]);

  useEffect(() => {
    if (!stopped || !mods) return;
    // Given up when the list changes again or the page is left: a check the portal is slow to answer
    // would otherwise hold one of the browser's few connections to the panel until it ends.
    const check = new AbortController();
    const live = () => !check.signal.aborted;
    modsApi.updates(check.signal).then(
      (u) => {
        if (!live()) return;
        setUpdates(u);
        setUpdateNote(null);
      },
      (e) =>
        live() &&
        setUpdateNote(`Could not check for updates: ${e instanceof ApiError ? e.message : String(e)}`),
    );
    return () => check.abort();
  }, [stopped, mods]);

  /** Runs long work with the progress bar; errors were flashed by the api client. */
  const run = useCallback(async <T,>(label: string, fn: () => Promise<T>): Promise<T | undefined> => {
    setWork({ label });
    try {
      return await fn();
    } catch {
      return undefined;
    } finally {
      setWork(null);
    }
  }, []);

  const change = async <T,>(label: string, fn: () => Promise<T>) => {
    const done = await run(label, fn);
    reload();
    return done;
  };

  async function update(u: ModUpdate) {
    if (await change(`Updating ${u.modName} to ${u.version}`, () => modsApi.update(u))) {
      showFlash(PANEL_MSG.modUpdated(u.modName, u.version), "success");
    }
  }

  async function updateAll() {
    // One after the other: each waits for the download before the next starts.
    const todo = [...updates];
    let done = 0;
    for (const [i, u] of todo.entries()) {
      const ok = await run(
        `Updating ${i + 1} of ${todo.length}: ${u.modName} to ${u.version}`,
        () => modsApi.update(u),
      );
      if (ok === undefined) break;
      done++;
    }
    reload();
    if (done > 0) showFlash(`${done} mod${done === 1 ? "" : "s"} updated.`, "success");
  }

  const busy = work !== null;

  if (pageTab === "settings") {
    return (
      <Page title="Mods">
        <PageTabs value={pageTab} onChange={setPageTab} />
        <Panel title="Mod settings">
          <ModSettings readOnly={!stopped || !canChange} />
        </Panel>
      </Page>
    );
  }

  if (!stopped) {
    return (
      <Page title="Mods">
        <PageTabs value={pageTab} onChange={setPageTab} />
        {status === null
          // Not known yet (loading, or offline): do not claim the server runs.
          ? <Alert severity="info">{PANEL_MSG.modsWaitForStatus}</Alert>
          : <Alert severity="warning">{MSG.modsDisabledWhileRunning}</Alert>}
        <Panel title="Mods">
          <Box sx={{ display: "grid", gap: 2 }}>
            <JoinNote mods={mods} />
            <ModsTable label="Installed mods" mods={mods ?? []} readOnly />
          </Box>
        </Panel>
      </Page>
    );
  }

  return (
    <Page title="Mods">
      <ViewerNote />
      <PageTabs value={pageTab} onChange={setPageTab} />
      {canChange && (
        <Card>
          <AddTabs value={tab} onChange={setTab} />
          <Box sx={{ p: 2, pt: 2.5 }} role="tabpanel" aria-label={TABS[tab]}>
            {tab === 0 && <InstallMod run={run} onChanged={reload} disabled={busy} />}
            {tab === 1 && <UploadMod onWork={setWork} onChanged={reload} disabled={busy} />}
            {tab === 2 && <LoadFromSave run={run} onChanged={reload} disabled={busy} />}
          </Box>
        </Card>
      )}

      {work && (
        <Card sx={{ p: 2, position: "sticky", top: { xs: 64, md: 8 }, zIndex: 5 }}>
          <WorkProgress work={work} />
        </Card>
      )}

      <Panel title="Mods">
        <Box sx={{ display: "grid", gap: 2 }}>
          <JoinNote mods={mods} />
          {mods === null ? <Typography color="text.secondary">Loading…</Typography> : (
            <ReadOnly>
              <ModsTable
                label="Installed mods"
                mods={mods}
                updates={updates}
                disabled={busy}
                onToggle={(m) => void change(`Switching ${m.name}`, () => modsApi.toggle(m.name))}
                onDelete={setToDelete}
                onUpdate={(u) => void update(u)}
                onPin={(m, pinned) =>
                  void change(`${pinned ? "Pinning" : "Unpinning"} ${m.name}`, () =>
                    modsApi.pin(m.name, pinned))}
              />
            </ReadOnly>
          )}
          {updateNote && <Typography variant="body2" color="text.secondary">{updateNote}</Typography>}
          <Box sx={{ display: "flex", gap: 1.5, flexWrap: "wrap" }}>
            <Button
              color="error"
              startIcon={<DeleteSweepIcon />}
              disabled={busy || !canChange}
              onClick={() =>
                setConfirmDeleteAll(true)}
            >
              Delete all Mods
            </Button>
            <Button
              startIcon={<UpgradeIcon />}
              disabled={busy || !canChange || updates.length === 0}
              onClick={() => void updateAll()}
            >
              Update all Mods
            </Button>
            <Button color="secondary" startIcon={<DownloadIcon />} href={modsApi.downloadAllUrl()} download>
              Download all Mods
            </Button>
          </Box>
        </Box>
      </Panel>

      <ReadOnly>
        <ModPacks run={run} disabled={busy} onLoaded={reload} version={version} />
      </ReadOnly>

      <ConfirmDialog
        open={toDelete !== null}
        title="Delete Mod"
        message={toDelete ? PANEL_MSG.deleteModConfirm(toDelete.name) : ""}
        confirmLabel="Delete"
        danger
        onConfirm={() => {
          const m = toDelete;
          if (m) {
            void change(`Deleting ${m.name}`, () => modsApi.remove(m.name));
          }
        }}
        onClose={() => setToDelete(null)}
      />

      <DeleteAll
        open={confirmDeleteAll}
        onClose={() => setConfirmDeleteAll(false)}
        onConfirm={(modSettings) => void change("Deleting all mods", () => modsApi.removeAll(modSettings))}
      />
    </Page>
  );
}
