import { Alert, Stack } from "@mui/material";
import { useSnapshot } from "valtio";
import { dismissFlash, flash } from "../state/flash.ts";

/**
 * The flash messages, bottom right (above the phone's bottom bar), newest last; click one to dismiss it.
 * The live region is always in the page: screen readers only announce changes to a region that existed
 * before the message arrived.
 */
export function Flash() {
  const { items } = useSnapshot(flash);
  return (
    <Stack
      spacing={1}
      sx={{
        position: "fixed",
        right: 16,
        bottom: { xs: 76, md: 16 },
        zIndex: 2000,
        maxWidth: "min(480px, calc(100vw - 32px))",
        pointerEvents: items.length === 0 ? "none" : undefined,
      }}
      role="status"
      aria-live="polite"
      aria-label="Messages"
      data-testid="flash-region"
    >
      {items.map((f) => (
        <Alert
          key={f.id}
          variant="filled"
          severity={f.color}
          onClick={() => dismissFlash(f.id)}
          // The region announces it; an alert role of its own would announce it twice.
          role="none"
          data-testid="flash"
          sx={{ cursor: "pointer" }}
        >
          {f.message}
        </Alert>
      ))}
    </Stack>
  );
}
