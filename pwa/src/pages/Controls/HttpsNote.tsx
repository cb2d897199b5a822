// On plain HTTP from another device (a phone on the LAN), the browser will neither install the panel as an
// app nor take its alerts, and says nothing about why: this says it, and where HTTPS is set up. Not on
// localhost or over HTTPS (a secure context), and not again on this browser once closed.

import { useState } from "react";
import { Link as RouterLink } from "react-router-dom";
import { Alert, AlertTitle, Box, Button, IconButton } from "@mui/material";
import CloseIcon from "@mui/icons-material/Close";
import { useCan } from "../../state/access.ts";

const DISMISSED = "https-note-dismissed";

export function HttpsNote() {
  const isAdmin = useCan("admin");
  const [dismissed, setDismissed] = useState(() => {
    try {
      return localStorage.getItem(DISMISSED) === "1";
    } catch {
      return false;
    }
  });
  if (window.isSecureContext || dismissed) return null;
  const close = () => {
    setDismissed(true);
    try {
      localStorage.setItem(DISMISSED, "1");
    } catch {
      // private mode: closed for this visit
    }
  };
  return (
    <Alert
      severity="info"
      data-testid="https-note"
      action={
        <IconButton aria-label="Close" color="inherit" onClick={close}>
          <CloseIcon fontSize="small" />
        </IconButton>
      }
    >
      <AlertTitle>This browser cannot install the panel as an app or get its alerts</AlertTitle>
      Browsers allow both only over HTTPS, and this page came over plain HTTP.
      {isAdmin
        ? (
          <Box sx={{ mt: 1 }}>
            <Button component={RouterLink} to="/settings/https" variant="outlined" color="inherit">
              Set up HTTPS
            </Button>
          </Box>
        )
        : " An admin can set up HTTPS under Settings, HTTPS."}
    </Alert>
  );
}
