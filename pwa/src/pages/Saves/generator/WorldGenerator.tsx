import { useCallback, useEffect, useRef, useState } from "react";
import {
  Alert,
  Box,
  Button,
  CircularProgress,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  FormControlLabel,
  MenuItem,
  Switch,
  Tab,
  Tabs,
  TextField,
  Typography,
  useMediaQuery,
  useTheme,
} from "@mui/material";
import CasinoIcon from "@mui/icons-material/Casino";
import ImageIcon from "@mui/icons-material/Image";
import { applyPreset, type GeneratorInfo, type WorldSettings } from "../../../../../shared/world.ts";
import { MSG } from "../../../../../shared/messages.ts";
import { worldApi } from "../../../api/world.ts";
import { ApiError } from "../../../api/client.ts";
import { showFlash } from "../../../state/flash.ts";
import { ExchangeString } from "./ExchangeString.tsx";
import { NumberField } from "./NumberField.tsx";
import { getIn, label, type Obj, setIn } from "./paths.ts";

const PREVIEW_SIZE = 512;

function Section({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <Box component="section" aria-label={title} sx={{ display: "grid", gap: 1.5 }}>
      <Typography variant="subtitle1" component="h3" color="primary" sx={{ fontWeight: 700 }}>
        {title}
      </Typography>
      {children}
    </Box>
  );
}

const row = { display: "flex", gap: 1.5, flexWrap: "wrap", alignItems: "flex-start" } as const;

/** The world generator: presets, seed, size, per-planet controls, map settings, a preview, exchange strings. */
export function WorldGenerator(
  props: { open: boolean; name: string; stopped: boolean; onClose: () => void; onCreated: () => void },
) {
  const theme = useTheme();
  const phone = useMediaQuery(theme.breakpoints.down("sm"));
  const [info, setInfo] = useState<GeneratorInfo | null>(null);
  const [preset, setPreset] = useState("default");
  const [settings, setSettings] = useState<WorldSettings | null>(null);
  const [planet, setPlanet] = useState("nauvis");
  const [name, setName] = useState(props.name);
  const [nameError, setNameError] = useState<string>();
  const [preview, setPreview] = useState<{ url: string; planet: string } | null>(null);
  const [previewing, setPreviewing] = useState(false);
  const [creating, setCreating] = useState(false);
  const [failure, setFailure] = useState<string>();
  const firstPreview = useRef(false);

  useEffect(() => {
    if (!props.open) return;
    setName(props.name);
    firstPreview.current = false;
    worldApi.generator().then((i) => {
      setInfo(i);
      const dflt = i.presets.find((p) => p.default) ?? i.presets[0];
      setPreset(dflt?.name ?? "default");
      setSettings(
        applyPreset(
          { map_gen_settings: { ...i.map_gen_settings, seed: null }, map_settings: i.map_settings },
          dflt,
        ),
      );
    }, () => {});
  }, [props.open, props.name]);

  useEffect(() => () => {
    if (preview) URL.revokeObjectURL(preview.url);
  }, [preview]);

  const gen = (settings?.map_gen_settings ?? {}) as Obj;
  const ms = (settings?.map_settings ?? {}) as Obj;
  const setGen = (path: string[], v: unknown) =>
    setSettings((s) => s && { ...s, map_gen_settings: setIn(s.map_gen_settings, path, v) });
  const setMs = (path: string[], v: unknown) =>
    setSettings((s) => s && { ...s, map_settings: setIn(s.map_settings, path, v) });
  const num = (v: unknown) => (typeof v === "number" ? v : null);

  const runPreview = useCallback(async (s: WorldSettings, p: string) => {
    setPreviewing(true);
    try {
      const blob = await worldApi.preview(s, p, PREVIEW_SIZE);
      setPreview({ url: URL.createObjectURL(blob), planet: p });
    } catch {
      // flashed by the client
    } finally {
      setPreviewing(false);
    }
  }, []);

  // The first preview comes by itself once the form has its defaults.
  useEffect(() => {
    if (props.open && settings && props.stopped && !firstPreview.current) {
      firstPreview.current = true;
      void runPreview(settings, planet);
    }
  }, [props.open, settings, props.stopped, planet, runPreview]);

  function choosePreset(name: string) {
    if (!info) return;
    setPreset(name);
    const seed = gen.seed ?? null;
    const next = applyPreset({
      map_gen_settings: { ...info.map_gen_settings, seed },
      map_settings: info.map_settings,
    }, info.presets.find((p) => p.name === name));
    setSettings(next);
  }

  async function create() {
    if (!settings) return;
    if (name.trim() === "") return setNameError(MSG.savefileNameRequired);
    setNameError(undefined);
    setFailure(undefined);
    setCreating(true);
    try {
      const message = await worldApi.create(name.trim(), settings, { quiet: true });
      showFlash(message.split(" Command output:")[0], "success");
      props.onCreated();
      props.onClose();
    } catch (err) {
      if (err instanceof ApiError && err.status !== 0 && err.status !== 401) setFailure(err.message);
      else if (err instanceof ApiError) showFlash(err.message, "error");
    } finally {
      setCreating(false);
    }
  }

  const v2 = info ? !info.version.startsWith("1.") : false;
  const planets = info?.planets ?? [];
  const controls = planets.find((p) => p.name === planet)?.controls ?? [];
  const busy = creating || previewing;

  return (
    <Dialog
      open={props.open}
      onClose={busy ? undefined : props.onClose}
      fullScreen={phone}
      maxWidth="lg"
      fullWidth
      aria-labelledby="generator-title"
    >
      <DialogTitle id="generator-title">New world</DialogTitle>
      <DialogContent dividers>
        {!info || !settings
          ? (
            <Box sx={{ display: "flex", gap: 1, alignItems: "center" }}>
              <CircularProgress size={22} />
              <Typography>Reading the game's world settings…</Typography>
            </Box>
          )
          : (
            <Box
              sx={{
                display: "grid",
                gap: 3,
                gridTemplateColumns: { xs: "1fr", md: "minmax(0, 1fr) 360px" },
                alignItems: "start",
              }}
            >
              <Box sx={{ display: "grid", gap: 3, minWidth: 0 }}>
                {info.source === "examples" && (
                  <Alert severity="info">
                    {info.examples_reason ??
                      "Presets and planets could not be read from the game; the form shows the game's example settings."}
                  </Alert>
                )}
                <Section title="World">
                  <Box sx={row}>
                    <TextField
                      size="small"
                      label="Savefile Name"
                      value={name}
                      onChange={(e) => setName(e.target.value)}
                      error={!!nameError}
                      helperText={nameError}
                      sx={{ minWidth: 220, flex: "1 1 220px" }}
                    />
                    {info.presets.length > 0 && (
                      <TextField
                        select
                        size="small"
                        label="Preset"
                        value={preset}
                        onChange={(e) => choosePreset(e.target.value)}
                        sx={{ minWidth: 200 }}
                      >
                        {info.presets.map((p) => (
                          <MenuItem key={p.name} value={p.name}>{label(p.name)}</MenuItem>
                        ))}
                      </TextField>
                    )}
                  </Box>
                  <Box sx={row}>
                    <NumberField
                      label="Seed"
                      value={num(gen.seed)}
                      integer
                      min={0}
                      max={4294967295}
                      width={180}
                      helperText="Empty: a random one"
                      onChange={(v) => setGen(["seed"], v)}
                    />
                    <Button
                      color="secondary"
                      startIcon={<CasinoIcon />}
                      onClick={() => setGen(["seed"], Math.floor(Math.random() * 4294967296))}
                      sx={{ minHeight: 44 }}
                    >
                      Random seed
                    </Button>
                    <NumberField
                      label="Width"
                      value={num(gen.width)}
                      integer
                      min={0}
                      max={2000000}
                      helperText="0: unlimited"
                      onChange={(v) => setGen(["width"], v ?? 0)}
                    />
                    <NumberField
                      label="Height"
                      value={num(gen.height)}
                      integer
                      min={0}
                      max={2000000}
                      helperText="0: unlimited"
                      onChange={(v) => setGen(["height"], v ?? 0)}
                    />
                  </Box>
                  <Box sx={row}>
                    <NumberField
                      label="Starting area"
                      value={num(gen.starting_area)}
                      min={0}
                      max={6}
                      step={0.25}
                      onChange={(v) => setGen(["starting_area"], v ?? 1)}
                    />
                    <FormControlLabel
                      control={
                        <Switch
                          checked={gen.peaceful_mode === true}
                          onChange={(e) => setGen(["peaceful_mode"], e.target.checked)}
                        />
                      }
                      label="Peaceful mode"
                    />
                    {v2 && (
                      <FormControlLabel
                        control={
                          <Switch
                            checked={gen.no_enemies_mode === true}
                            onChange={(e) => setGen(["no_enemies_mode"], e.target.checked)}
                          />
                        }
                        label="No enemies"
                      />
                    )}
                  </Box>
                </Section>

                <Section title="Resources and terrain">
                  {planets.length > 1 && (
                    <Tabs
                      value={planet}
                      onChange={(_, p) => setPlanet(p)}
                      variant="scrollable"
                      allowScrollButtonsMobile
                      aria-label="Planets"
                    >
                      {planets.map((p) => <Tab key={p.name} value={p.name} label={label(p.name)} />)}
                    </Tabs>
                  )}
                  <Box
                    component="ul"
                    aria-label={`Controls of ${label(planet)}`}
                    sx={{ listStyle: "none", p: 0, m: 0, display: "grid", gap: 1.5 }}
                  >
                    {controls.map((c) => (
                      <Box
                        component="li"
                        key={c}
                        sx={{
                          display: "grid",
                          gap: 1,
                          gridTemplateColumns: { xs: "1fr", sm: "160px 1fr" },
                          alignItems: "center",
                        }}
                      >
                        <Typography sx={{ fontWeight: 600 }}>{label(c)}</Typography>
                        <Box sx={row}>
                          {(["frequency", "size", "richness"] as const).map((k) => (
                            <NumberField
                              key={k}
                              label={`${label(k)}`}
                              value={num(getIn(gen, ["autoplace_controls", c, k])) ?? 1}
                              min={0}
                              max={6}
                              step={0.25}
                              width={104}
                              onChange={(v) => setGen(["autoplace_controls", c, k], v ?? 1)}
                            />
                          ))}
                        </Box>
                      </Box>
                    ))}
                  </Box>
                  <Box sx={row}>
                    <NumberField
                      label="Cliff continuity"
                      value={num(getIn(gen, ["cliff_settings", "richness"]))}
                      min={0}
                      max={10}
                      step={0.25}
                      width={150}
                      onChange={(v) => setGen(["cliff_settings", "richness"], v ?? 1)}
                    />
                    {!v2 && (
                      <NumberField
                        label="Water coverage"
                        value={num(gen.water)}
                        min={0}
                        max={6}
                        step={0.25}
                        width={150}
                        onChange={(v) => setGen(["water"], v ?? 1)}
                      />
                    )}
                    {!v2 && (
                      <NumberField
                        label="Terrain segmentation"
                        value={num(gen.terrain_segmentation)}
                        min={0}
                        max={6}
                        step={0.25}
                        width={170}
                        onChange={(v) => setGen(["terrain_segmentation"], v ?? 1)}
                      />
                    )}
                  </Box>
                </Section>

                <Section title="Map settings">
                  <Box sx={row}>
                    <FormControlLabel
                      control={
                        <Switch
                          checked={getIn(ms, ["pollution", "enabled"]) !== false}
                          onChange={(e) => setMs(["pollution", "enabled"], e.target.checked)}
                        />
                      }
                      label="Pollution"
                    />
                    <FormControlLabel
                      control={
                        <Switch
                          checked={getIn(ms, ["enemy_evolution", "enabled"]) !== false}
                          onChange={(e) => setMs(["enemy_evolution", "enabled"], e.target.checked)}
                        />
                      }
                      label="Enemy evolution"
                    />
                    <FormControlLabel
                      control={
                        <Switch
                          checked={getIn(ms, ["enemy_expansion", "enabled"]) !== false}
                          onChange={(e) => setMs(["enemy_expansion", "enabled"], e.target.checked)}
                        />
                      }
                      label="Enemy expansion"
                    />
                  </Box>
                  <Box sx={row}>
                    <NumberField
                      label="Evolution: time factor"
                      value={num(getIn(ms, ["enemy_evolution", "time_factor"]))}
                      min={0}
                      width={190}
                      onChange={(v) => setMs(["enemy_evolution", "time_factor"], v ?? undefined)}
                    />
                    <NumberField
                      label="Evolution: pollution factor"
                      value={num(getIn(ms, ["enemy_evolution", "pollution_factor"]))}
                      min={0}
                      width={210}
                      onChange={(v) => setMs(["enemy_evolution", "pollution_factor"], v ?? undefined)}
                    />
                    <NumberField
                      label="Research cost multiplier"
                      value={num(getIn(ms, ["difficulty_settings", "technology_price_multiplier"]))}
                      min={0.001}
                      max={1000}
                      width={200}
                      onChange={(v) => setMs(["difficulty_settings", "technology_price_multiplier"], v ?? 1)}
                    />
                  </Box>
                </Section>

                <ExchangeString
                  settings={settings}
                  onApply={(s) => {
                    setSettings(s);
                    setPreset("");
                  }}
                />
              </Box>

              {/* On phones the preview comes first and smaller, so the first picture is in sight. */}
              <Box
                sx={{
                  position: { md: "sticky" },
                  top: 0,
                  display: "grid",
                  gap: 1,
                  order: { xs: -1, md: 0 },
                  width: { xs: "min(100%, 260px)", md: "auto" },
                  justifySelf: { xs: "center", md: "stretch" },
                }}
              >
                <Typography variant="subtitle1" component="h3" color="primary" sx={{ fontWeight: 700 }}>
                  Preview
                </Typography>
                <Box
                  sx={{
                    position: "relative",
                    width: "100%",
                    aspectRatio: "1",
                    bgcolor: "background.default",
                    border: 1,
                    borderColor: "divider",
                    borderRadius: 1,
                    overflow: "hidden",
                  }}
                >
                  {preview && (
                    <Box
                      component="img"
                      src={preview.url}
                      alt={`Map preview of ${label(preview.planet)}`}
                      sx={{ width: "100%", height: "100%", display: "block", imageRendering: "pixelated" }}
                    />
                  )}
                  {previewing && (
                    <Box
                      sx={{
                        position: "absolute",
                        inset: 0,
                        display: "grid",
                        placeItems: "center",
                        bgcolor: "rgba(0,0,0,0.4)",
                      }}
                    >
                      <CircularProgress aria-label="Rendering the preview" />
                    </Box>
                  )}
                </Box>
                {props.stopped
                  ? (
                    <Button
                      color="secondary"
                      startIcon={<ImageIcon />}
                      disabled={busy}
                      onClick={() => void runPreview(settings, planet)}
                    >
                      Preview {label(planet)}
                    </Button>
                  )
                  : (
                    <Typography variant="body2" color="text.secondary">
                      The game renders previews while the server is stopped.
                    </Typography>
                  )}
              </Box>
            </Box>
          )}
        {failure && (
          <Alert
            severity="error"
            sx={{ mt: 2, whiteSpace: "pre-wrap", maxHeight: 240, overflow: "auto" }}
            onClose={() => setFailure(undefined)}
          >
            {failure}
          </Alert>
        )}
      </DialogContent>
      <DialogActions>
        {creating && (
          <>
            <CircularProgress size={22} aria-label="Creating the world" />
            <Typography variant="body2" color="text.secondary" sx={{ mr: 1 }}>
              The game is creating the world…
            </Typography>
          </>
        )}
        <Button color="secondary" onClick={props.onClose} disabled={busy}>Cancel</Button>
        <Button onClick={() => void create()} disabled={busy || !settings || !props.stopped}>
          Create world
        </Button>
      </DialogActions>
    </Dialog>
  );
}
