// "Choose file" and the chosen file's name, as every upload form of the app shows them (the browser's own
// file input is hidden: it cannot be themed).

import type { Ref } from "react";
import { Box, Button, Typography } from "@mui/material";
import UploadFileIcon from "@mui/icons-material/UploadFile";

export function FilePicker(
  { name, label, file, onChange, disabled, inputRef, describe = (f) => f.name }: {
    /** The form field's name. */
    name: string;
    /** The input's accessible name. */
    label: string;
    file: File | null;
    onChange: (file: File | null) => void;
    disabled?: boolean;
    /** To clear the input after an upload. */
    inputRef?: Ref<HTMLInputElement>;
    /** How the chosen file is named beside the button. */
    describe?: (file: File) => string;
  },
) {
  return (
    <Box sx={{ display: "flex", alignItems: "center", gap: 1.5, flexWrap: "wrap" }}>
      <Button component="label" color="secondary" startIcon={<UploadFileIcon />} disabled={disabled}>
        Choose file
        <input
          ref={inputRef}
          type="file"
          name={name}
          accept=".zip,application/zip"
          hidden
          aria-label={label}
          onChange={(e) => onChange(e.target.files?.[0] ?? null)}
        />
      </Button>
      <Typography
        variant="body2"
        color={file ? "text.primary" : "text.secondary"}
        sx={{ wordBreak: "break-all", flex: "1 1 10rem" }}
        data-testid="chosen-file"
      >
        {file ? describe(file) : "No file chosen"}
      </Typography>
    </Box>
  );
}
