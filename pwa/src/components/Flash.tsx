import { Alert, Stack } from "@mui/material";
import { useSnapshot } from "valtio";
import { dismissFlash, flash } from "../state/flash.ts";

/** The flash messages, bottom right, newest last; click one to dismiss it. */
export function Flash() {
  const { items } = useSnapshot(flash);
  if (items.length === 0) return null;
  return (
    <Stack
      spacing={1}
      sx={{ position: "fixed", right: 16, bottom: 16, zIndex: 2000, maxWidth: "min(480px, calc(100vw - 32px))" }}
      aria-live="polite"
    >
      {items.map((f) => (
        <Alert
          key={f.id}
          variant="filled"
          severity={f.color}
          onClick={() => dismissFlash(f.id)}
          role={f.color === "error" ? "alert" : "status"}
          data-testid="flash"
          sx={{ cursor: "pointer" }}
        >
          {f.message}
        </Alert>
      ))}
    </Stack>
  );
}
