// An upload's progress as the app shows it (Saves, a server's archive): a bar, then "45 % · 5.400 MB of
// 12.000 MB · 2.9 MB/s · 3 s left"; once all is sent, what the panel now does with the file.

import { Box, LinearProgress, Typography } from "@mui/material";
import type { UploadProgress } from "../api/client.ts";
import { formatRate, formatSaveSize, formatTimeLeft } from "../pages/Saves/format.ts";

/** The line under the bar; `checking` is what the panel does once the file is sent ("checks the save"). */
export function progressText(p: UploadProgress, checking: string): string {
  if (p.total > 0 && p.loaded >= p.total) {
    return `${formatSaveSize(p.total)} sent · the panel ${checking}…`;
  }
  const percent = p.total > 0 ? `${Math.floor((p.loaded / p.total) * 100)} % · ` : "";
  const of = p.total > 0 ? ` of ${formatSaveSize(p.total)}` : "";
  const speed = p.bytesPerSecond === undefined
    ? " · measuring the speed…"
    : ` · ${formatRate(p.bytesPerSecond)}${
      p.secondsLeft === undefined ? "" : ` · ${formatTimeLeft(p.secondsLeft)} left`
    }`;
  return `${percent}${formatSaveSize(p.loaded)}${of}${speed}`;
}

export function UploadBar({ progress, checking }: { progress: UploadProgress; checking: string }) {
  const percent = progress.total > 0 ? Math.min(100, (progress.loaded / progress.total) * 100) : 0;
  return (
    <Box>
      <LinearProgress
        variant="determinate"
        value={Math.floor(percent)}
        aria-label="Upload progress"
        sx={{ height: 10, borderRadius: 1 }}
      />
      <Typography variant="body2" color="text.secondary" sx={{ mt: 0.5 }} data-testid="upload-progress">
        {progressText(progress, checking)}
      </Typography>
    </Box>
  );
}
