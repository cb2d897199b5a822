import { useEffect, useState } from "react";
import { Box, LinearProgress, Typography } from "@mui/material";
import type { DownloadProgress } from "../../../../shared/api.ts";
import { modsApi } from "../../api/mods.ts";

/** What the page is busy with: a label, and for uploads the share sent so far. */
export interface Work {
  label: string;
  /** 0..1 when known (uploads); downloads from the portal are asked of the panel. */
  fraction?: number;
}

const POLL_MS = 400;

function percent(d: DownloadProgress): number | null {
  return d.total > 0 ? Math.min(100, (100 * d.received) / d.total) : null;
}

/** A progress bar for long work. While the panel downloads from the portal, it shows that download. */
export function WorkProgress({ work }: { work: Work | null }) {
  const [downloads, setDownloads] = useState<DownloadProgress[]>([]);
  const active = work !== null && work.fraction === undefined;
  useEffect(() => {
    if (!active) {
      setDownloads([]);
      return;
    }
    let live = true;
    const poll = async () => {
      try {
        const d = await modsApi.portal.progress();
        if (live) setDownloads(d);
      } catch {
        // the bar stays indeterminate
      }
    };
    void poll();
    const timer = setInterval(poll, POLL_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [active]);

  if (!work) return null;
  const d = downloads[0];
  const value = work.fraction !== undefined ? work.fraction * 100 : d ? percent(d) : null;
  const detail = d
    ? `Downloading ${d.name} ${d.version}${value !== null ? `: ${Math.round(value)} %` : ""}`
    : null;
  return (
    <Box role="status" aria-live="polite" sx={{ display: "grid", gap: 0.5 }}>
      <Typography variant="body2">
        {work.label}
        {work.fraction !== undefined && `: ${Math.round(work.fraction * 100)} %`}
        {detail && <Typography component="span" variant="body2" color="text.secondary">· {detail}
        </Typography>}
      </Typography>
      <LinearProgress
        variant={value === null ? "indeterminate" : "determinate"}
        value={value ?? undefined}
        aria-label={work.label}
      />
    </Box>
  );
}
