import { DeleteButton } from "../../components/DeleteButton.tsx";
import { type FormEvent, useCallback, useEffect, useState } from "react";
import {
  Box,
  Button,
  Collapse,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  IconButton,
  TextField,
  Tooltip,
  Typography,
} from "@mui/material";
import AddIcon from "@mui/icons-material/Add";
import DownloadIcon from "@mui/icons-material/Download";
import ExpandMoreIcon from "@mui/icons-material/ExpandMore";
import PlayForWorkIcon from "@mui/icons-material/PlayForWork";
import UpgradeIcon from "@mui/icons-material/Upgrade";
import type { ModPack, ModUpdate } from "../../../../shared/api.ts";
import { MSG, PANEL_MSG } from "../../../../shared/messages.ts";
import { modsApi } from "../../api/mods.ts";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { Panel } from "../../components/Page.tsx";
import { showFlash } from "../../state/flash.ts";
import { ModsTable } from "./ModsTable.tsx";

type Run = <T>(label: string, fn: () => Promise<T>) => Promise<T | undefined>;

function CreatePack(
  { open, onClose, onCreate }: {
    open: boolean;
    onClose: () => void;
    onCreate: (name: string) => Promise<boolean>;
  },
) {
  const [name, setName] = useState("");
  const [error, setError] = useState<string | null>(null);
  async function submit(e: FormEvent) {
    e.preventDefault();
    if (name.trim() === "") return setError(MSG.modPackNameRequired);
    setError(null);
    if (await onCreate(name.trim())) setName("");
  }
  return (
    <Dialog open={open} onClose={onClose} aria-labelledby="create-pack-title" maxWidth="xs" fullWidth>
      <form onSubmit={submit} noValidate aria-label="Create Mod Pack">
        <DialogTitle id="create-pack-title">Create Mod Pack</DialogTitle>
        <DialogContent>
          <Typography variant="body2" color="text.secondary" sx={{ mb: 2 }}>
            The pack gets a copy of the installed mods, their mod-list.json and mod-settings.dat.
          </Typography>
          <TextField
            autoFocus
            label="Name"
            name="name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={!!error}
            helperText={error}
          />
        </DialogContent>
        <DialogActions>
          <Button color="secondary" onClick={onClose}>Cancel</Button>
          <Button type="submit">Create</Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}

/** One pack: its name and actions, and (opened) its own mods table with toggle, update and delete. */
function Pack(
  props: {
    pack: ModPack;
    run: Run;
    disabled: boolean;
    onChanged: () => void;
    onLoad: () => void;
    onDelete: () => void;
  },
) {
  const { pack, run, disabled } = props;
  const [open, setOpen] = useState(false);
  const [updates, setUpdates] = useState<ModUpdate[]>([]);
  const checkUpdates = useCallback(() => {
    modsApi.packs.updates(pack.name).then(setUpdates, () => setUpdates([]));
  }, [pack.name]);
  useEffect(() => {
    if (open) checkUpdates();
  }, [open, checkUpdates, pack]);

  const change = async <T,>(label: string, fn: () => Promise<T>) => {
    const done = await run(label, fn);
    props.onChanged();
    return done;
  };
  const updateAll = async () => {
    for (const [i, u] of updates.entries()) {
      if (
        await change(
          `Updating ${pack.name}: ${i + 1} of ${updates.length} (${u.modName})`,
          () => modsApi.packs.update(pack.name, u),
        ) === undefined
      ) break;
    }
  };

  return (
    <Box
      component="section"
      aria-label={`Mod pack ${pack.name}`}
      sx={{ borderBottom: "1px solid #141314", py: 0.5 }}
    >
      <Box sx={{ display: "flex", alignItems: "center", gap: 0.5, minWidth: 0 }}>
        <IconButton
          aria-expanded={open}
          aria-controls={`pack-${pack.name}`}
          aria-label={`${open ? "Hide" : "Show"} the mods of ${pack.name}`}
          onClick={() => setOpen(!open)}
        >
          <ExpandMoreIcon
            sx={{ transform: open ? "rotate(180deg)" : undefined, transition: "transform 150ms" }}
          />
        </IconButton>
        <Typography
          component="h3"
          sx={{ fontWeight: 700, flexGrow: 1, overflowWrap: "anywhere", cursor: "pointer" }}
          onClick={() => setOpen(!open)}
        >
          {pack.name}
          <Typography component="span" variant="body2" color="text.secondary" sx={{ ml: 1 }}>
            {pack.mods.mods.filter((m) => !m.built_in).length} mods
          </Typography>
        </Typography>
        <Tooltip title="Load this pack">
          <span>
            <IconButton
              color="primary"
              disabled={disabled}
              aria-label={`Load mod pack ${pack.name}`}
              onClick={props.onLoad}
            >
              <PlayForWorkIcon />
            </IconButton>
          </span>
        </Tooltip>
        <Tooltip title="Download as zip">
          <IconButton
            component="a"
            href={modsApi.packs.downloadUrl(pack.name)}
            download
            aria-label={`Download mod pack ${pack.name}`}
          >
            <DownloadIcon />
          </IconButton>
        </Tooltip>
        <DeleteButton
          title="Delete this pack"
          label={`Delete mod pack ${pack.name}`}
          onClick={props.onDelete}
        />
      </Box>
      <Collapse in={open} unmountOnExit>
        <Box id={`pack-${pack.name}`} sx={{ display: "grid", gap: 1.5, pb: 1.5, pt: 0.5 }}>
          <ModsTable
            label={`Mods of pack ${pack.name}`}
            mods={pack.mods.mods}
            updates={updates}
            onToggle={(m) =>
              void change(`Switching ${m.name}`, () => modsApi.packs.toggle(pack.name, m.name))}
            onDelete={(m) =>
              void change(`Deleting ${m.name}`, () => modsApi.packs.removeMod(pack.name, m.name))}
            onUpdate={(u) => void change(`Updating ${u.modName}`, () => modsApi.packs.update(pack.name, u))}
          />
          {updates.length > 0 && (
            <Box>
              <Button size="small" startIcon={<UpgradeIcon />} onClick={() => void updateAll()}>
                Update all Mods of this pack
              </Button>
            </Box>
          )}
        </Box>
      </Collapse>
    </Box>
  );
}

/** The 'Mod packs' card. Loading a pack (it replaces the installed mods) asks first, in the spec's words. */
export function ModPacks(props: { run: Run; disabled: boolean; onLoaded: () => void; version: number }) {
  const { run } = props;
  const [packs, setPacks] = useState<ModPack[]>([]);
  const [creating, setCreating] = useState(false);
  const [loading, setLoading] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<string | null>(null);
  const reload = useCallback(() => {
    modsApi.packs.list().then(setPacks, () => {});
  }, []);
  useEffect(reload, [reload, props.version]);

  async function create(name: string): Promise<boolean> {
    const list = await run(`Creating the mod pack ${name}`, () => modsApi.packs.create(name));
    if (!list) return false;
    setPacks(list);
    setCreating(false);
    showFlash(`The mod pack ${name} is created.`, "success");
    return true;
  }

  async function load(name: string) {
    if (await run(`Loading the mod pack ${name}`, () => modsApi.packs.load(name))) {
      showFlash(PANEL_MSG.modPackLoaded(name), "success");
      props.onLoaded();
    }
  }

  async function remove(name: string) {
    if (await run(`Deleting the mod pack ${name}`, () => modsApi.packs.remove(name))) reload();
  }

  return (
    <Panel title="Mod packs">
      <Box sx={{ display: "grid", gap: 1.5 }}>
        {packs.length === 0 && <Typography color="text.secondary">No mod packs yet.</Typography>}
        <Box>
          {packs.map((p) => (
            <Pack
              key={p.name}
              pack={p}
              run={run}
              disabled={props.disabled}
              onChanged={reload}
              onLoad={() => setLoading(p.name)}
              onDelete={() => setDeleting(p.name)}
            />
          ))}
        </Box>
        <Box>
          <Button startIcon={<AddIcon />} onClick={() => setCreating(true)}>
            Add ModPack with current installed Mods
          </Button>
        </Box>
      </Box>
      <CreatePack open={creating} onClose={() => setCreating(false)} onCreate={create} />
      <ConfirmDialog
        open={loading !== null}
        title="Load Mod Pack"
        message={MSG.loadModPackConfirm(loading ?? "")}
        confirmLabel="Load"
        danger
        onConfirm={() => void load(loading!)}
        onClose={() => setLoading(null)}
      />
      <ConfirmDialog
        open={deleting !== null}
        title="Delete Mod Pack"
        message={`Delete the mod pack ${deleting ?? ""} and its copies of the mods? The installed mods stay.`}
        confirmLabel="Delete"
        danger
        onConfirm={() => void remove(deleting!)}
        onClose={() => setDeleting(null)}
      />
    </Panel>
  );
}
