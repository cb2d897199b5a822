import { type FormEvent, useEffect, useState } from "react";
import { Box, Button, CircularProgress, MenuItem, Stack, TextField, Typography } from "@mui/material";
import PlayArrowIcon from "@mui/icons-material/PlayArrow";
import SaveIcon from "@mui/icons-material/Save";
import { useSnapshot } from "valtio";
import { Panel } from "../../components/Page.tsx";
import { worldApi } from "../../api/world.ts";
import { showFlash } from "../../state/flash.ts";
import { server } from "../../state/server.ts";
import { connection } from "../../state/connection.ts";
import { DEFAULT_BIND_IP, DEFAULT_GAME_PORT } from "../../../../shared/api.ts";
import { validateStart } from "../../../../shared/validation.ts";
import type { Scenario } from "../../../../shared/world.ts";
import { ScenarioToSave } from "./ScenarioToSave.tsx";

/** Offline, under a form whose buttons are off: why (the banner above every page says the rest). */
export function NeedsConnection({ what }: { what: string }) {
  return (
    <Typography variant="body2" color="text.secondary">
      Offline: {what} needs a connection to the panel.
    </Typography>
  );
}

/** Start the server on a new map from a scenario of the game, of a mod, or of your own, or make a save of one. */
export function Scenarios({ onStarted, onSaved }: { onStarted: () => void; onSaved: () => void }) {
  const { status } = useSnapshot(server);
  const { online } = useSnapshot(connection);
  const [scenarios, setScenarios] = useState<Scenario[] | null>(null);
  const [failed, setFailed] = useState(false);
  const [name, setName] = useState("");
  const [bindip, setBindip] = useState(status?.bindip || DEFAULT_BIND_IP);
  const [port, setPort] = useState(String(status?.port || DEFAULT_GAME_PORT));
  const [errors, setErrors] = useState<{ bindip?: string; port?: string }>({});
  const [busy, setBusy] = useState(false);
  const [saving, setSaving] = useState(false);
  const gameUp = status !== null && status.status !== "stopped";

  // Loaded when the panel answers (again): a list that could not be loaded is not "no scenarios".
  const loaded = scenarios !== null;
  useEffect(() => {
    if (!online || loaded) return;
    worldApi.scenarios().then((list) => {
      setScenarios(list);
      setFailed(false);
      setName((n) => n || (list.find((s) => s.name === "base/freeplay") ?? list[0])?.name || "");
    }, () => setFailed(true));
  }, [online, loaded]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const problems = validateStart({ bindip, port, savefile: name });
    setErrors({ bindip: problems.bindip, port: problems.port });
    if (problems.bindip || problems.port || !name) return;
    setBusy(true);
    try {
      showFlash(await worldApi.startScenario(name, bindip.trim(), Number(port)), "success");
      onStarted();
    } catch {
      // flashed by the client
    } finally {
      setBusy(false);
    }
  }

  return (
    <Panel title="Scenarios">
      {scenarios === null
        ? (
          <Typography color="text.secondary">
            {!online
              ? "Offline: the scenarios are shown when the panel can be reached."
              : failed
              ? "The scenarios could not be loaded."
              : "Loading…"}
          </Typography>
        )
        : scenarios.length === 0
        ? <Typography color="text.secondary">The game and the installed mods offer no scenarios.</Typography>
        : (
          <Stack component="form" spacing={2} onSubmit={submit} noValidate aria-label="Start on a scenario">
            <Typography variant="body2" color="text.secondary">
              A new map from a scenario. A restart afterwards loads the newest save. Create save makes the map
              without starting it; it then appears among the saves.
            </Typography>
            <TextField
              select
              size="small"
              label="Scenario"
              value={name}
              onChange={(e) => setName(e.target.value)}
              disabled={busy}
            >
              {scenarios.map((s) => <MenuItem key={s.name} value={s.name}>{s.name} · {s.source}</MenuItem>)}
            </TextField>
            <Box sx={{ display: "flex", gap: 1.5, flexWrap: "wrap" }}>
              <TextField
                size="small"
                label="IP"
                value={bindip}
                onChange={(e) => setBindip(e.target.value)}
                error={!!errors.bindip}
                helperText={errors.bindip}
                disabled={busy}
                sx={{ flex: "1 1 160px" }}
              />
              <TextField
                size="small"
                label="Port"
                value={port}
                onChange={(e) => setPort(e.target.value)}
                error={!!errors.port}
                helperText={errors.port}
                disabled={busy}
                slotProps={{ htmlInput: { inputMode: "numeric" } }}
                sx={{ width: 120 }}
              />
            </Box>
            <Box sx={{ display: "flex", gap: 1.5, alignItems: "center", flexWrap: "wrap" }}>
              <Button
                type="submit"
                startIcon={<PlayArrowIcon />}
                disabled={busy || gameUp || !name || !online}
              >
                Start server on scenario
              </Button>
              <Button
                color="secondary"
                startIcon={<SaveIcon />}
                disabled={busy || gameUp || !name || !online}
                onClick={() => setSaving(true)}
              >
                Create save
              </Button>
              {busy && <CircularProgress size={22} aria-label="Starting the server" />}
              {!online
                ? <NeedsConnection what="starting" />
                : gameUp && (
                  <Typography variant="body2" color="text.secondary">The server is running.</Typography>
                )}
            </Box>
          </Stack>
        )}
      {saving && <ScenarioToSave scenario={name} onClose={() => setSaving(false)} onSaved={onSaved} />}
    </Panel>
  );
}
