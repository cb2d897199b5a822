// A game install, shown above every page while it runs (progress, speed, time left, Cancel), phone
// included, and how it ended once it has: an install takes minutes, and the user need not wait on
// Controls for it. Controls' versions card shows the outcome itself, so the banner leaves it out there.

import { useEffect, useState } from "react";
import { useLocation } from "react-router-dom";
import { Alert, AlertTitle, Button, LinearProgress, Typography } from "@mui/material";
import { useSnapshot } from "valtio";
import { gameInstall, INSTALL_ENDED, watchInstall } from "../state/install.ts";
import { versionsApi } from "../api/versions.ts";
import { ReadOnly } from "./ReadOnly.tsx";
import type { InstallProgress } from "../../../shared/factorio-versions.ts";

const PHASE_TEXT: Record<InstallProgress["phase"], string> = {
  checking: "Looking up the checksum of",
  downloading: "Downloading",
  unpacking: "Unpacking",
  testing: "Checking the unpacked",
  done: "Installed",
  failed: "Failed to install",
  cancelled: "Cancelled the install of",
};

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

function duration(seconds: number): string {
  return seconds >= 90 ? `${Math.round(seconds / 60)} min` : `${seconds} s`;
}

/** Messages name paths and 64-digit checksums: long words wrap inside the alert instead of overflowing it. */
export const WRAP_ANYWHERE = { overflowWrap: "anywhere", wordBreak: "break-word" } as const;

/** A running install: what it does, how far, and Cancel. */
function Running({ install }: { install: InstallProgress }) {
  const [cancelling, setCancelling] = useState(false);
  const pct = install.total ? Math.min(100, (install.received / install.total) * 100) : null;
  const facts = install.phase === "downloading"
    ? [
      `${size(install.received)}${install.total ? ` of ${size(install.total)}` : ""}`,
      install.bytesPerSecond ? `${size(install.bytesPerSecond)}/s` : null,
      install.etaSeconds !== null ? `${duration(install.etaSeconds)} left` : null,
    ].filter(Boolean).join(" · ")
    : "";
  return (
    <Alert
      severity="info"
      role="status"
      data-testid="install-progress"
      sx={{ mb: 2.5, "& .MuiAlert-message": { flexGrow: 1, minWidth: 0 } }}
    >
      <AlertTitle sx={{ mb: 0.5 }}>
        {PHASE_TEXT[install.phase]} Factorio {install.version}
      </AlertTitle>
      {facts && <Typography variant="body2" sx={{ mb: 1 }}>{facts}</Typography>}
      <LinearProgress
        variant={pct !== null && install.phase === "downloading" ? "determinate" : "indeterminate"}
        value={pct ?? 0}
        aria-label={`Installing Factorio ${install.version}`}
        sx={{ mb: 1.5 }}
      />
      <ReadOnly>
        <Button
          color="error"
          variant="outlined"
          size="small"
          disabled={cancelling}
          sx={{ minHeight: 44 }}
          onClick={() => {
            setCancelling(true);
            versionsApi.cancel().catch(() => {}).finally(() => setCancelling(false));
          }}
        >
          Cancel install
        </Button>
      </ReadOnly>
    </Alert>
  );
}

export function InstallBanner() {
  const { current } = useSnapshot(gameInstall);
  const { pathname } = useLocation();
  // The install this page saw running: only its outcome is told (not one that ended before it opened).
  const [watched, setWatched] = useState<string | null>(null);
  const [dismissed, setDismissed] = useState<string | null>(null);
  useEffect(() => watchInstall(), []);
  const running = current && !INSTALL_ENDED.includes(current.phase);
  useEffect(() => {
    if (running) setWatched(current.version);
  }, [running, current?.version]);
  if (!current) return null;
  if (running) return <Running install={current as InstallProgress} />;
  if (watched !== current.version || dismissed === current.version || pathname === "/") return null;
  return (
    <Alert
      severity={current.phase === "done" ? "success" : current.phase === "failed" ? "error" : "info"}
      data-testid="install-outcome"
      onClose={() => setDismissed(current.version)}
      sx={{ mb: 2.5, "& .MuiAlert-message": { minWidth: 0, ...WRAP_ANYWHERE } }}
    >
      {current.message}
    </Alert>
  );
}
