// Quiet hours of one push device: no alerts in those hours, except when the game is down or the disk full.
// Kept in the device's own time zone, so the hours mean what the person holding it expects.

import { useState } from "react";
import {
  Box,
  Button,
  Dialog,
  DialogActions,
  DialogContent,
  DialogTitle,
  Stack,
  TextField,
  Typography,
} from "@mui/material";
import { pushApi } from "../../api/push.ts";
import type { PushDevice } from "../../../../shared/api.ts";

export function QuietHoursLine(
  { device, onChanged }: { device: PushDevice; onChanged: (d: PushDevice) => void },
) {
  const [open, setOpen] = useState(false);
  const [start, setStart] = useState("22:00");
  const [end, setEnd] = useState("07:00");
  const q = device.quiet_hours;

  async function save(hours: PushDevice["quiet_hours"]) {
    try {
      onChanged(await pushApi.update(device.id, { quiet_hours: hours }));
      setOpen(false);
    } catch {
      // flashed by the client
    }
  }

  return (
    <Box sx={{ display: "flex", alignItems: "center", gap: 1, flexWrap: "wrap" }}>
      <Typography variant="body2" color="text.secondary">
        {q
          ? `Quiet hours ${q.start} to ${q.end} (${q.tz}): only crashes and other critical alerts.`
          : "No quiet hours."}
      </Typography>
      <Button
        size="small"
        color="secondary"
        aria-label={`Quiet hours of ${device.name}`}
        onClick={() => {
          setStart(q?.start ?? "22:00");
          setEnd(q?.end ?? "07:00");
          setOpen(true);
        }}
        sx={{ minHeight: 44 }}
      >
        {q ? "Change" : "Set quiet hours"}
      </Button>
      <Dialog
        open={open}
        onClose={() => setOpen(false)}
        maxWidth="xs"
        fullWidth
        aria-labelledby={`quiet-${device.id}`}
      >
        <DialogTitle id={`quiet-${device.id}`}>Quiet hours for {device.name}</DialogTitle>
        <DialogContent>
          <Typography variant="body2" sx={{ mb: 2 }}>
            No alerts in these hours, except crashes, failed starts, still down, low disk space and failed
            backups.
          </Typography>
          <Stack direction="row" spacing={2}>
            <TextField
              label="From"
              type="time"
              value={start}
              onChange={(e) => setStart(e.target.value)}
              fullWidth
            />
            <TextField
              label="To"
              type="time"
              value={end}
              onChange={(e) => setEnd(e.target.value)}
              fullWidth
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          {q && <Button color="secondary" onClick={() => void save(null)}>Turn off</Button>}
          <Button color="secondary" onClick={() => setOpen(false)}>Cancel</Button>
          <Button
            disabled={!start || !end || start === end}
            onClick={() =>
              void save({ start, end, tz: Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC" })}
          >
            Save
          </Button>
        </DialogActions>
      </Dialog>
    </Box>
  );
}
