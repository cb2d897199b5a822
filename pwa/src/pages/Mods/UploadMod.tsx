import { type FormEvent, useState } from "react";
import { Box, Button, Stack, Typography } from "@mui/material";
import UploadFileIcon from "@mui/icons-material/UploadFile";
import { PANEL_MSG } from "../../../../shared/messages.ts";
import { modsApi } from "../../api/mods.ts";
import { showFlash } from "../../state/flash.ts";
import type { Work } from "./WorkProgress.tsx";

/** The 'Upload Mod' tab: a mod zip from this computer, with upload progress. */
export function UploadMod(
  props: { onWork: (w: Work | null) => void; onChanged: () => void; disabled: boolean },
) {
  const [file, setFile] = useState<File | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!file) return setError(PANEL_MSG.modFileRequired);
    setError(null);
    setBusy(true);
    const label = `Uploading ${file.name}`;
    props.onWork({ label, fraction: 0 });
    try {
      await modsApi.upload(file, (p) => props.onWork({ label, fraction: p.total ? p.loaded / p.total : 0 }))
        .promise;
      showFlash(`${file.name} is uploaded.`, "success");
      setFile(null);
      (e.target as HTMLFormElement).reset();
      props.onChanged();
    } catch {
      // flashed by the client
    } finally {
      setBusy(false);
      props.onWork(null);
    }
  }

  return (
    <Stack
      component="form"
      spacing={2}
      onSubmit={submit}
      noValidate
      aria-label="Upload Mod"
      sx={{ maxWidth: 520 }}
    >
      <Typography color="text.secondary" variant="body2">
        A mod zip as the game packs it (with its info.json). It is saved as name_version.zip; other versions
        of the same mod are replaced.
      </Typography>
      <Box sx={{ display: "flex", gap: 1.5, alignItems: "center", flexWrap: "wrap" }}>
        <Button component="label" color="secondary" startIcon={<UploadFileIcon />}>
          Choose file
          <input
            hidden
            type="file"
            name="mod_file"
            accept=".zip,application/zip"
            aria-label="Mod file"
            onChange={(e) => {
              setFile(e.target.files?.[0] ?? null);
              setError(null);
            }}
          />
        </Button>
        <Typography sx={{ overflowWrap: "anywhere" }}>{file ? file.name : "No file chosen"}</Typography>
      </Box>
      {error && <Typography color="error" variant="body2">{error}</Typography>}
      <Box>
        <Button type="submit" disabled={busy || props.disabled}>Upload</Button>
      </Box>
    </Stack>
  );
}
