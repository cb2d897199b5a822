// Players online over the last 24 hours, as a small step chart. Drawn as one SVG path: a step line of a
// few hundred samples does not need a chart library, and every kilobyte of script is precached by the
// installed app (see docs/performance.md).

import { useEffect, useState } from "react";
import { Box, Typography } from "@mui/material";
import { useSnapshot } from "valtio";
import { Panel } from "../../components/Page.tsx";
import { playerHistoryApi } from "../../api/alerts.ts";
import { connection } from "../../state/connection.ts";
import { server } from "../../state/server.ts";
import type { OnlineCountSample } from "../../../../shared/alerts.ts";

const HOURS = 24;
const W = 600;
const H = 120;

/** The step line's path: each sample holds until the next one, the last one until now. */
export function stepPath(samples: OnlineCountSample[], from: number, to: number, max: number): string {
  const x = (t: number) => ((Math.min(Math.max(t, from), to) - from) / (to - from)) * W;
  const y = (n: number) => H - (n / max) * (H - 8);
  // Before the first sample in the window nobody was seen online.
  let d = samples.length && Date.parse(samples[0].at) > from ? `M0,${y(0).toFixed(1)}` : "";
  let last = 0;
  for (const s of samples) {
    const t = Date.parse(s.at);
    d += d === ""
      ? `M${x(t).toFixed(1)},${y(s.count).toFixed(1)}`
      : `H${x(t).toFixed(1)}V${y(s.count).toFixed(1)}`;
    last = s.count;
  }
  return d === "" ? "" : `${d}H${W}V${y(last).toFixed(1)}`;
}

export function PlayersChart() {
  const { online } = useSnapshot(connection);
  const { status } = useSnapshot(server);
  const [samples, setSamples] = useState<OnlineCountSample[] | null>(null);
  const [to, setTo] = useState(Date.now());
  useEffect(() => {
    if (!online) return;
    const load = () => {
      setTo(Date.now());
      playerHistoryApi.onlineCounts(HOURS).then((s) => setSamples(Array.isArray(s) ? s : []), () => {});
    };
    load();
    const timer = setInterval(load, 60_000);
    return () => clearInterval(timer);
  }, [online, status?.status]);

  const from = to - HOURS * 3600_000;
  const counts = samples?.map((s) => s.count) ?? [];
  const max = Math.max(1, ...counts);
  const now = counts.length ? counts[counts.length - 1] : 0;
  const label = `Players online over the last ${HOURS} hours: ${now} now, at most ${Math.max(0, ...counts)}.`;
  return (
    <Panel title="Players online">
      {samples === null ? <Typography color="text.secondary">Loading...</Typography> : (
        <Box>
          <Box
            component="svg"
            viewBox={`0 0 ${W} ${H}`}
            role="img"
            aria-label={label}
            preserveAspectRatio="none"
            sx={{
              width: "100%",
              height: 120,
              display: "block",
              bgcolor: "rgba(0,0,0,0.35)",
              borderRadius: 1,
            }}
          >
            <line x1={0} x2={W} y1={8} y2={8} stroke="rgba(255,255,255,0.12)" />
            {samples.length > 0 && (
              <path
                d={stepPath(samples, from, to, max)}
                fill="none"
                stroke="#ffa200"
                strokeWidth={2.5}
                vectorEffect="non-scaling-stroke"
              />
            )}
          </Box>
          <Box sx={{ display: "flex", justifyContent: "space-between", mt: 0.5 }}>
            <Typography variant="caption" color="text.secondary">{HOURS} h ago</Typography>
            <Typography variant="caption" color="text.secondary">
              {samples.length === 0
                ? "no players seen yet"
                : `${now} online now · most ${Math.max(0, ...counts)}`}
            </Typography>
            <Typography variant="caption" color="text.secondary">now</Typography>
          </Box>
        </Box>
      )}
    </Panel>
  );
}
