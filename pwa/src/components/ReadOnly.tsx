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

/**
 * Children whose controls are turned off together while `disabled` (a disabled fieldset, as ReadOnly
 * uses), without rendering them again: a table whose every row took `disabled` was rendered in full when
 * a change began and again when it ended (300 mods: seconds on a phone, bench/lists-ui.mjs). Not greyed
 * out, unlike ReadOnly: the change shows its own progress, and greying 300 rows in and out for each
 * change was a restyle and repaint of them all (switching a mod at 4x throttling: 2.4 s against 1.2 s).
 */
export function DisabledGroup({ disabled, children }: { disabled: boolean; children: ReactNode }) {
  return (
    <Box component="fieldset" disabled={disabled} sx={{ border: 0, p: 0, m: 0, minWidth: 0 }}>{children}</Box>
  );
}

/** One line at the top of a page a viewer can only read. */
export function ViewerNote() {
  const can = useCan("operator");
  return can ? null : <Alert severity="info">{VIEWER_NOTE}</Alert>;
}
