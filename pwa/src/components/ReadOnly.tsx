// Controls a role may not use: greyed out and inert (a disabled fieldset turns off every button and
// input inside it, keyboard included). Links (downloads) keep working. The server refuses anyway; this
// only spares people a button that would answer 403.

import type { ReactNode } from "react";
import { Alert, Box } from "@mui/material";
import { useCan, VIEWER_NOTE } from "../state/access.ts";
import type { Role } from "../../../shared/api.ts";

export function ReadOnly({ need = "operator", children }: { need?: Role; children: ReactNode }) {
  const can = useCan(need);
  if (can) return <>{children}</>;
  return (
    <Box
      component="fieldset"
      disabled
      data-read-only
      sx={{
        border: 0,
        p: 0,
        m: 0,
        minWidth: 0,
        "& button, & .MuiInputBase-root, & .MuiSwitch-root": { opacity: 0.45, pointerEvents: "none" },
      }}
    >
      {children}
    </Box>
  );
}

/** One line at the top of a page a viewer can only read. */
export function ViewerNote() {
  const can = useCan("operator");
  return can ? null : <Alert severity="info">{VIEWER_NOTE}</Alert>;
}
