import { useState } from "react";
import { Box, Button, TextField, Typography } from "@mui/material";
import ContentCopyIcon from "@mui/icons-material/ContentCopy";
import InputIcon from "@mui/icons-material/Input";
import type { WorldSettings } from "../../../../../shared/world.ts";
import { worldApi } from "../../../api/world.ts";
import { showFlash } from "../../../state/flash.ts";

/** Paste a map exchange string to fill the form, or turn the form into one (and copy it). */
export function ExchangeString(
  { settings, onApply }: { settings: WorldSettings; onApply: (s: WorldSettings) => void },
) {
  const [text, setText] = useState("");
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function apply() {
    setBusy(true);
    try {
      const data = await worldApi.decode(text);
      onApply({ map_gen_settings: data.map_gen_settings, map_settings: data.map_settings });
      setNote(`Settings of a Factorio ${data.version} map applied.`);
    } catch {
      // flashed by the client
    } finally {
      setBusy(false);
    }
  }

  async function copy() {
    setBusy(true);
    try {
      const r = await worldApi.encode(settings);
      setText(r.string);
      setNote(r.left_out?.length ? `A string cannot hold ${r.left_out.join(", ")}; left out.` : null);
      try {
        await navigator.clipboard.writeText(r.string);
        showFlash("The map exchange string is copied.", "success");
      } catch {
        showFlash("The map exchange string is in the field: copy it from there.", "info");
      }
    } catch {
      // flashed by the client
    } finally {
      setBusy(false);
    }
  }

  return (
    <Box component="section" aria-label="Map exchange string" sx={{ display: "grid", gap: 1.5 }}>
      <Typography variant="subtitle1" component="h3" color="primary" sx={{ fontWeight: 700 }}>
        Map exchange string
      </Typography>
      <TextField
        label="Map exchange string"
        placeholder=">>>eNp…<<<"
        multiline
        minRows={2}
        maxRows={6}
        value={text}
        onChange={(e) => setText(e.target.value)}
        slotProps={{
          htmlInput: { spellCheck: false, style: { fontFamily: "monospace", fontSize: "0.8rem" } },
        }}
      />
      <Box sx={{ display: "flex", gap: 1.5, flexWrap: "wrap" }}>
        <Button
          color="secondary"
          startIcon={<InputIcon />}
          disabled={busy || text.trim() === ""}
          onClick={() => void apply()}
        >
          Use this string
        </Button>
        <Button color="secondary" startIcon={<ContentCopyIcon />} disabled={busy} onClick={() => void copy()}>
          Copy settings as a string
        </Button>
      </Box>
      {note && <Typography variant="body2" color="text.secondary">{note}</Typography>}
    </Box>
  );
}
