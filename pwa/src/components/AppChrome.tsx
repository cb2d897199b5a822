// What the installable app adds around the pages: the offline banner with the last known status, the
// "New version available" prompt, and opening the page a clicked notification points to.

import { useEffect } from "react";
import { useNavigate } from "react-router-dom";
import { Alert, AlertTitle, Button, IconButton, Snackbar } from "@mui/material";
import CloseIcon from "@mui/icons-material/Close";
import { useSnapshot } from "valtio";
import { connection } from "../state/connection.ts";
import { badgeOf, type LastKnown, server } from "../state/server.ts";
import { applyUpdate, onOpenRequest, update } from "../state/update.ts";
import { PUSH_MSG } from "../../../shared/messages.ts";
import { factorio } from "../theme.ts";

/** "12:03" today, "2024-05-01 12:03" on another day (local time: it is the user's own clock). */
export function confirmedAt(iso: string, now = new Date()): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, "0");
  const time = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  return d.toDateString() === now.toDateString()
    ? time
    : `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${time}`;
}

export function offlineText(lastKnown: LastKnown | null): string {
  if (!lastKnown) return PUSH_MSG.offlineNothingKnown;
  return PUSH_MSG.offline(badgeOf(lastKnown.status), confirmedAt(lastKnown.at));
}

/** Shown above every page while the panel does not answer. */
export function ConnectionBanner() {
  const { online } = useSnapshot(connection);
  const { lastKnown } = useSnapshot(server);
  if (online) return null;
  return (
    <Alert severity="warning" variant="outlined" role="status" data-testid="offline-banner" sx={{ mb: 2.5 }}>
      <AlertTitle sx={{ mb: 0 }}>{offlineText(lastKnown as LastKnown | null)}</AlertTitle>
      {PUSH_MSG.offlineHint}
    </Alert>
  );
}

/** Non-blocking: the user finishes what they are doing and reloads when they choose. */
export function UpdatePrompt() {
  const { available } = useSnapshot(update);
  return (
    <Snackbar
      open={available}
      // Centred: clear of the sidebar's Logout (left) and the flash messages (right).
      anchorOrigin={{ vertical: "bottom", horizontal: "center" }}
      message={PUSH_MSG.updateAvailable}
      slotProps={{
        content: {
          sx: {
            bgcolor: factorio.frame,
            color: factorio.text,
            boxShadow:
              `inset 0 0 0 1px #000, inset 2px 2px 0 ${factorio.frameLight}, 0 3px 8px rgba(0,0,0,0.55)`,
          },
        },
      }}
      action={
        <>
          <Button color="primary" size="small" onClick={applyUpdate}>Reload</Button>
          <IconButton
            size="small"
            aria-label="Later"
            color="inherit"
            onClick={() => (update.available = false)}
          >
            <CloseIcon fontSize="small" />
          </IconButton>
        </>
      }
    />
  );
}

/** A clicked notification focuses this window; go to the page it names. */
export function OpenFromNotifications() {
  const navigate = useNavigate();
  useEffect(() => onOpenRequest((url) => navigate(url)), [navigate]);
  return null;
}
