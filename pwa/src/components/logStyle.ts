// The look of game output wherever the app shows it (console, log, crash report): monospace lines in an
// inset dark panel, wrapping long lines rather than scrolling sideways on a phone.

import type { SystemStyleObject } from "@mui/system";
import type { Theme } from "@mui/material/styles";
import { factorio } from "../theme.ts";

export const logBoxSx: SystemStyleObject<Theme> = {
  overflow: "auto",
  p: 1.5,
  fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace",
  fontSize: { xs: "0.75rem", sm: "0.8rem" },
  lineHeight: 1.45,
  whiteSpace: "pre-wrap",
  overflowWrap: "anywhere",
  bgcolor: factorio.insetDeep,
  boxShadow: "inset 0 2px 4px rgba(0,0,0,0.85), inset 0 0 0 1px #000",
  borderRadius: 0.5,
};
