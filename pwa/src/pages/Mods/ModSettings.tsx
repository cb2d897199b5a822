import { useCallback, useEffect, useMemo, useState } from "react";
import {
  Alert,
  Box,
  Button,
  Divider,
  IconButton,
  Tab,
  Tabs,
  TextField,
  Tooltip,
  Typography,
} from "@mui/material";
import DownloadIcon from "@mui/icons-material/Download";
import RestartAltIcon from "@mui/icons-material/RestartAlt";
import SaveIcon from "@mui/icons-material/Save";
import UploadFileIcon from "@mui/icons-material/UploadFile";
import RestoreIcon from "@mui/icons-material/Restore";
import type {
  ModSettingDefinition,
  ModSettingDefinitions,
  ModSettingKind,
  ModSettingSection,
  ModSettingsState,
} from "../../../../shared/modsettings.ts";
import { checkSettingValue, kindOfValue, MOD_SETTING_SECTIONS } from "../../../../shared/modsettings.ts";
import { modsApi } from "../../api/mods.ts";
import { showFlash } from "../../state/flash.ts";
import { ConfirmDialog } from "../../components/ConfirmDialog.tsx";
import { formatSaveDate } from "../Saves/format.ts";
import { parseDraft, SettingInput } from "./SettingInput.tsx";

const SECTION_LABELS: Record<ModSettingSection, string> = {
  "startup": "Startup",
  "runtime-global": "Map",
  "runtime-per-user": "Per player",
};
const SECTION_NOTES: Record<ModSettingSection, string> = {
  "startup":
    "Startup settings take effect when the game starts, and every player's game must have the same ones.",
  "runtime-global":
    "Map settings apply to the whole map; the save keeps its own copy once the game has run with them.",
  "runtime-per-user":
    "Per-player settings are the defaults for players; each player can change their own in the game.",
};
const PAGE = 60;
const OTHER = "In the file only";

interface Row {
  section: ModSettingSection;
  name: string;
  mod: string;
  def?: ModSettingDefinition;
  kind: ModSettingKind | null;
  stored: unknown;
  inFile: boolean;
}

const keyOf = (section: string, name: string) => `${section}/${name}`;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function show(v: unknown): string {
  if (v === "") return "(empty)";
  if (typeof v === "object" && v !== null) {
    return Object.entries(v).map(([k, x]) => `${k} ${x}`).join(", ");
  }
  return String(v);
}

/** The Mod settings tab: every installed mod's settings with typed inputs, saved to mod-settings.dat. */
export function ModSettings({ readOnly }: { readOnly: boolean }) {
  const [state, setState] = useState<ModSettingsState | null>(null);
  const [defs, setDefs] = useState<ModSettingDefinitions | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [drafts, setDrafts] = useState<Record<string, unknown>>({});
  const [section, setSection] = useState<ModSettingSection>("startup");
  const [filter, setFilter] = useState("");
  const [limit, setLimit] = useState(PAGE);
  const [busy, setBusy] = useState(false);
  // An upload replaces the whole file: it waits for a yes in a dialog; so does putting the kept one back.
  const [pendingUpload, setPendingUpload] = useState<File | null>(null);
  const [confirmRestore, setConfirmRestore] = useState(false);

  const load = useCallback(() => {
    modsApi.settings.get().then((s) => {
      setState(s);
      setLoadError(null);
    }, (e) => setLoadError(e instanceof Error ? e.message : String(e)));
    modsApi.settings.definitions().then(setDefs, () => setDefs({ definitions: [], problems: [] }));
  }, []);
  useEffect(load, [load]);

  const rows = useMemo(() => {
    if (!state) return [];
    const out: Row[] = [];
    const seen = new Set<string>();
    for (const def of defs?.definitions ?? []) {
      if (def.hidden) continue;
      const stored = state.settings[def.setting_type]?.[def.name];
      seen.add(keyOf(def.setting_type, def.name));
      out.push({
        section: def.setting_type,
        name: def.name,
        mod: def.mod,
        def,
        kind: def.type,
        stored: stored?.value ?? def.default,
        inFile: stored !== undefined,
      });
    }
    for (const s of MOD_SETTING_SECTIONS) {
      for (const [name, v] of Object.entries(state.settings[s] ?? {})) {
        if (seen.has(keyOf(s, name))) continue;
        out.push({ section: s, name, mod: OTHER, kind: kindOfValue(v.value), stored: v.value, inFile: true });
      }
    }
    return out;
  }, [state, defs]);

  const errorOf = (r: Row): string | null => {
    const k = keyOf(r.section, r.name);
    if (!(k in drafts) || r.kind === null) return null;
    return checkSettingValue(r.def ?? { type: r.kind }, parseDraft(r.kind, drafts[k]));
  };

  const changed = rows.filter((r) => {
    const k = keyOf(r.section, r.name);
    return k in drafts && r.kind !== null && !same(parseDraft(r.kind, drafts[k]), r.stored);
  });
  const invalid = changed.filter((r) => errorOf(r) !== null);

  const q = filter.trim().toLowerCase();
  const visible = rows
    .filter((r) => r.section === section)
    .filter((r) => !q || [r.name, r.mod, r.def?.title ?? ""].some((t) => t.toLowerCase().includes(q)))
    .sort((a, b) =>
      (a.mod === OTHER ? 1 : 0) - (b.mod === OTHER ? 1 : 0) || a.mod.localeCompare(b.mod) ||
      (a.def?.order ?? a.name).localeCompare(b.def?.order ?? b.name)
    );

  async function save() {
    if (invalid.length > 0) {
      showFlash(`${invalid[0].name}: ${errorOf(invalid[0])}`, "error");
      return;
    }
    const body: { settings: Partial<Record<ModSettingSection, Record<string, { value: unknown }>>> } = {
      settings: {},
    };
    for (const r of changed) {
      (body.settings[r.section] ??= {})[r.name] = {
        value: parseDraft(r.kind!, drafts[keyOf(r.section, r.name)]),
      };
    }
    setBusy(true);
    try {
      setState(await modsApi.settings.update(body));
      setDrafts({});
      showFlash(`Mod settings saved (${changed.length} changed).`, "success");
    } catch {
      // flashed by the client
    } finally {
      setBusy(false);
    }
  }

  async function uploadFile(file: File) {
    setBusy(true);
    try {
      setState(await modsApi.settings.upload(file, () => {}).promise);
      setDrafts({});
      showFlash(`${file.name} is now the mod settings. The file it replaced is kept.`, "success");
    } catch {
      // flashed by the client
    } finally {
      setBusy(false);
    }
  }

  async function restorePrevious() {
    setBusy(true);
    try {
      const restored = await modsApi.settings.restorePrevious();
      setState(restored);
      setDrafts({});
      showFlash(
        `The previous mod-settings.dat (Factorio ${restored.version}) is back; the one it replaced is kept.`,
        "success",
      );
    } catch {
      // flashed by the client
    } finally {
      setBusy(false);
    }
  }

  if (loadError) return <Alert severity="error">{loadError}</Alert>;
  if (!state) return <Typography color="text.secondary">Loading…</Typography>;

  const count = (s: ModSettingSection) => rows.filter((r) => r.section === s).length;
  let lastMod = "";
  return (
    <Box sx={{ display: "grid", gap: 2 }}>
      {readOnly && (
        <Alert severity="info">The server is running: mod settings can be changed once it is stopped.</Alert>
      )}
      <Typography variant="body2" color="text.secondary">
        mod-settings.dat, last written by Factorio{" "}
        {state.version}. Settings and their defaults come from each mod's settings.lua; a mod sets its
        defaults itself when a setting is not in the file.
      </Typography>
      {state.previous && (
        <Box
          sx={{ display: "flex", gap: 1.5, alignItems: "center", flexWrap: "wrap" }}
          data-testid="previous-mod-settings"
        >
          <Typography variant="body2" color="text.secondary" sx={{ flex: "1 1 260px" }}>
            {`Kept: the mod-settings.dat the last upload replaced (written by Factorio ${state.previous.version}, replaced ${
              formatSaveDate(state.previous.replaced)
            } UTC).`}
          </Typography>
          <Button
            color="secondary"
            startIcon={<RestoreIcon />}
            disabled={readOnly || busy}
            onClick={() => setConfirmRestore(true)}
          >
            Restore the previous file
          </Button>
        </Box>
      )}
      {defs && defs.problems.length > 0 && (
        <Alert severity="warning">
          {defs.problems.map((p) => `${p.mod}: ${p.message}`).join(" ")}
        </Alert>
      )}
      <Tabs
        value={section}
        onChange={(_, v) => {
          setSection(v);
          setLimit(PAGE);
        }}
        variant="scrollable"
        allowScrollButtonsMobile
        aria-label="Setting kinds"
      >
        {MOD_SETTING_SECTIONS.map((s) => (
          <Tab key={s} value={s} label={`${SECTION_LABELS[s]} (${count(s)})`} />
        ))}
      </Tabs>
      <Typography variant="body2" color="text.secondary">{SECTION_NOTES[section]}</Typography>
      <TextField
        size="small"
        label="Filter settings"
        value={filter}
        onChange={(e) => {
          setFilter(e.target.value);
          setLimit(PAGE);
        }}
        sx={{ maxWidth: 420 }}
      />
      {visible.length === 0 && <Typography color="text.secondary">No settings here.</Typography>}
      <Box
        component="ul"
        aria-label={`${SECTION_LABELS[section]} settings`}
        sx={{ listStyle: "none", p: 0, m: 0, display: "grid", gap: 1.5 }}
      >
        {visible.slice(0, limit).map((r) => {
          const k = keyOf(r.section, r.name);
          const value = k in drafts ? drafts[k] : r.stored;
          const heading = r.mod !== lastMod ? r.mod : null;
          lastMod = r.mod;
          const dflt = r.def?.default;
          const atDefault = dflt === undefined || (r.kind !== null && same(parseDraft(r.kind, value), dflt));
          return (
            <Box component="li" key={k}>
              {heading && (
                <>
                  <Typography variant="subtitle2" component="h3" color="primary" sx={{ mt: 1 }}>
                    {heading}
                  </Typography>
                  <Divider sx={{ mb: 1 }} />
                </>
              )}
              <Box sx={{ display: "flex", gap: 1.5, alignItems: "center", flexWrap: "wrap" }}>
                <Box sx={{ flex: "1 1 240px", minWidth: 0 }}>
                  <Typography sx={{ fontWeight: 600, overflowWrap: "anywhere" }}>
                    {r.def?.title ?? r.name}
                  </Typography>
                  <Typography
                    variant="caption"
                    color="text.secondary"
                    component="div"
                    sx={{ overflowWrap: "anywhere" }}
                  >
                    {r.def?.title ? `${r.name} · ` : ""}
                    {dflt !== undefined ? `default ${show(dflt)}` : "no default known"}
                    {!r.inFile && " · not in the file yet"}
                  </Typography>
                  {r.def?.description && (
                    <Typography variant="body2" color="text.secondary">{r.def.description}</Typography>
                  )}
                </Box>
                <Box sx={{ display: "flex", alignItems: "center", gap: 0.5 }}>
                  {r.kind === null
                    ? (
                      <Typography variant="body2" sx={{ fontFamily: "monospace" }}>
                        {JSON.stringify(r.stored)}
                      </Typography>
                    )
                    : (
                      <SettingInput
                        name={r.name}
                        kind={r.kind}
                        def={r.def}
                        value={value}
                        error={errorOf(r)}
                        disabled={readOnly || busy}
                        onChange={(v) => setDrafts((d) => ({ ...d, [k]: v }))}
                      />
                    )}
                  <Tooltip title="Reset to the default">
                    <span>
                      <IconButton
                        aria-label={`Reset ${r.name} to its default`}
                        disabled={readOnly || busy || atDefault}
                        onClick={() =>
                          setDrafts((d) => ({ ...d, [k]: dflt }))}
                        sx={{ width: 44, height: 44 }}
                      >
                        <RestartAltIcon />
                      </IconButton>
                    </span>
                  </Tooltip>
                </Box>
              </Box>
            </Box>
          );
        })}
      </Box>
      {visible.length > limit && (
        <Box>
          <Button
            color="secondary"
            onClick={() => setLimit((l) => l + PAGE)}
          >
            Show more ({visible.length - limit} left)
          </Button>
        </Box>
      )}
      <Box
        sx={{
          display: "flex",
          gap: 1.5,
          flexWrap: "wrap",
          alignItems: "center",
          position: "sticky",
          bottom: 0,
          bgcolor: "background.paper",
          py: 1,
        }}
      >
        <Button
          startIcon={<SaveIcon />}
          disabled={readOnly || busy || changed.length === 0}
          onClick={() => void save()}
        >
          Save mod settings{changed.length > 0 ? ` (${changed.length})` : ""}
        </Button>
        <Button
          color="secondary"
          disabled={busy || Object.keys(drafts).length === 0}
          onClick={() => setDrafts({})}
        >
          Discard changes
        </Button>
        <Button
          component="label"
          color="secondary"
          startIcon={<UploadFileIcon />}
          disabled={readOnly || busy}
        >
          Upload mod-settings.dat
          <input
            hidden
            type="file"
            aria-label="mod-settings.dat file"
            accept=".dat,application/octet-stream"
            onChange={(e) => {
              const f = e.target.files?.[0];
              e.target.value = "";
              if (f) setPendingUpload(f);
            }}
          />
        </Button>
        <Button color="secondary" startIcon={<DownloadIcon />} href={modsApi.settings.downloadUrl()} download>
          Download mod-settings.dat
        </Button>
      </Box>
      <ConfirmDialog
        open={pendingUpload !== null}
        title="Replace mod-settings.dat"
        message={pendingUpload
          ? `${pendingUpload.name} replaces every mod setting shown here (mod-settings.dat, last written by Factorio ` +
            `${state.version}). The current file is kept: "Restore the previous file" brings it back.`
          : ""}
        confirmLabel="Replace"
        onConfirm={() => pendingUpload && void uploadFile(pendingUpload)}
        onClose={() => setPendingUpload(null)}
      />
      <ConfirmDialog
        open={confirmRestore}
        title="Restore the previous mod-settings.dat"
        message={state.previous
          ? `Put back the mod-settings.dat written by Factorio ${state.previous.version} (replaced ` +
            `${
              formatSaveDate(state.previous.replaced)
            } UTC)? It replaces the current one (Factorio ${state.version}), ` +
            "which is kept in its place, so you can switch back."
          : ""}
        confirmLabel="Restore"
        onConfirm={() => void restorePrevious()}
        onClose={() => setConfirmRestore(false)}
      />
    </Box>
  );
}
