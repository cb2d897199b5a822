import { useEffect, useState } from "react";
import {
  Box,
  Button,
  Chip,
  FormControl,
  InputLabel,
  MenuItem,
  Select,
  Stack,
  Table,
  TableBody,
  TableCell,
  TableContainer,
  TableHead,
  TableRow,
  Typography,
} from "@mui/material";
import { type InstallMultipleResult, LOAD_LATEST, type SaveMod } from "../../../../shared/api.ts";
import { MSG } from "../../../../shared/messages.ts";
import { modsApi } from "../../api/mods.ts";
import { ApiError } from "../../api/client.ts";
import { showFlash } from "../../state/flash.ts";
import { shortVersion } from "./ModsTable.tsx";

/**
 * The 'Load Mod from Save' tab: pick a save, see the mods it was played with, install them all. Built-in
 * mods (base, the 2.0 expansion) are switched on or off to match, never downloaded.
 */
export function LoadFromSave(props: {
  run: <T>(label: string, fn: () => Promise<T>) => Promise<T | undefined>;
  onChanged: () => void;
  disabled: boolean;
}) {
  const [saves, setSaves] = useState<string[]>([]);
  const [save, setSave] = useState("");
  const [mods, setMods] = useState<{ save: string; mods: SaveMod[] } | null>(null);
  // What the last install did with each mod (success, or the 424's detail).
  const [outcome, setOutcome] = useState<InstallMultipleResult | null>(null);

  useEffect(() => {
    modsApi.saves.list().then(
      (list) => setSaves(list.map((s) => s.name).filter((n) => n !== LOAD_LATEST)),
      () => {},
    );
  }, []);

  async function read() {
    if (!save) return;
    const header = await props.run(`Reading ${save}`, () => modsApi.saves.mods(save));
    if (header) setMods({ save, mods: header.mods });
  }

  async function install() {
    if (!mods) return;
    let failed: InstallMultipleResult | null = null;
    setOutcome(null);
    const result: InstallMultipleResult | undefined = await props.run(
      `Installing the mods of ${mods.save}`,
      () =>
        modsApi.portal.installMultiple(
          mods.mods.map((m) => ({ name: m.name, version: m.version, built_in: m.built_in })),
        )
          .catch((e: unknown) => {
            // 424: some mods failed; the client flashed which. The others were installed: show them.
            if (e instanceof ApiError && e.status === 424 && typeof e.body === "object" && e.body !== null) {
              failed = e.body as InstallMultipleResult;
            }
            throw e;
          }),
    );
    const done = result ?? failed;
    if (done) {
      setOutcome(done);
      props.onChanged();
    }
    if (result) showFlash(MSG.modsLoadedFromSave(mods.save), "success");
  }

  return (
    <Stack spacing={2}>
      <Box sx={{ display: "flex", gap: 1.5, alignItems: "center", flexWrap: "wrap" }}>
        <FormControl size="small" sx={{ minWidth: 240, flex: "1 1 240px", maxWidth: 420 }}>
          <InputLabel id="load-save-label">Save</InputLabel>
          <Select
            labelId="load-save-label"
            label="Save"
            value={save}
            onChange={(e) => {
              setSave(e.target.value);
              setMods(null);
              setOutcome(null);
            }}
          >
            {saves.length === 0 && <MenuItem value="" disabled>No saves yet</MenuItem>}
            {saves.map((s) => <MenuItem key={s} value={s}>{s}</MenuItem>)}
          </Select>
        </FormControl>
        <Button disabled={!save} onClick={() => void read()}>Show Mods</Button>
      </Box>
      {mods && (
        <>
          <Typography>
            {mods.save} was played with {mods.mods.length} mod{mods.mods.length === 1 ? "" : "s"}:
          </Typography>
          <TableContainer>
            <Table size="small" aria-label={`Mods of ${mods.save}`}>
              <TableHead>
                <TableRow>
                  <TableCell>Name</TableCell>
                  <TableCell>Version</TableCell>
                  {outcome && <TableCell>Result</TableCell>}
                </TableRow>
              </TableHead>
              <TableBody>
                {mods.mods.map((m) => {
                  const o = outcome && outcomeOf(outcome, m);
                  return (
                    <TableRow key={m.name}>
                      <TableCell>
                        {m.name}{" "}
                        {m.built_in && (
                          <Chip size="small" variant="outlined" label="built-in" sx={{ ml: 1 }} />
                        )}
                      </TableCell>
                      <TableCell>{shortVersion(m.version)}</TableCell>
                      {o && (
                        <TableCell sx={{ color: o.failed ? "error.main" : undefined }}>{o.text}</TableCell>
                      )}
                    </TableRow>
                  );
                })}
              </TableBody>
            </Table>
          </TableContainer>
          {outcome && switchedOff(outcome).length > 0 && (
            <Typography variant="body2" color="text.secondary">
              Switched off, as the save does not use {switchedOff(outcome).length === 1 ? "it" : "them"}:{" "}
              {switchedOff(outcome).join(", ")}.
            </Typography>
          )}
          <Box>
            <Button onClick={() => void install()} disabled={props.disabled}>Install Mods</Button>
          </Box>
        </>
      )}
    </Stack>
  );
}

/** What the install did with one mod of the save, in words. */
function outcomeOf(r: InstallMultipleResult, m: SaveMod): { text: string; failed: boolean } {
  const failed = r.failed.find((f) => f.name === m.name);
  if (failed) return { text: `Not installed: ${failed.reason}`, failed: true };
  if (r.installed.includes(m.name)) return { text: "Installed", failed: false };
  if (r.present.includes(m.name)) return { text: "Already there", failed: false };
  if (m.built_in) return { text: "Built in, switched on", failed: false };
  return { text: "", failed: false };
}

/** The game's built-in mods switched off because the save does not use them. */
function switchedOff(r: InstallMultipleResult): string[] {
  return r.toggled.filter((t) => !t.enabled).map((t) => t.name);
}
