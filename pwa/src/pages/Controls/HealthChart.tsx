// The game's health over time on Controls (issue 51): one figure at a time (UPS, CPU, memory, players, free
// disk) over an hour, a day, a week or 90 days, drawn by uPlot (canvas: 8,640 points of 90 days draw in
// well under 500 ms on a throttled phone, bench in docs/performance.md), which is loaded only when this
// panel is shown. The average is the line, the bucket's minimum and maximum the band around it; starts,
// stops, crashes, updates and backups are marked on the time axis and listed under the chart. A tap or a
// pointer over the chart shows the values at that time in the legend; dragging does not zoom (it would
// fight the page's scrolling on a phone).

import { useEffect, useMemo, useRef, useState } from "react";
import { Box, ToggleButton, ToggleButtonGroup, Typography } from "@mui/material";
import { useSnapshot } from "valtio";
import type uPlot from "uplot";
import { Panel } from "../../components/Page.tsx";
import { healthApi } from "../../api/health.ts";
import { connection } from "../../state/connection.ts";
import type { HealthHistory, HealthRange } from "../../../../shared/contract/health.ts";

type Figure = "ups" | "cpu" | "memory" | "players" | "disk";

const FIGURES: Record<Figure, { label: string; unit: string; scale: (v: number) => number }> = {
  ups: { label: "UPS", unit: "UPS", scale: (v) => v },
  cpu: { label: "CPU", unit: "% of a core", scale: (v) => v },
  memory: { label: "Memory", unit: "MiB", scale: (v) => v / 1024 ** 2 },
  players: { label: "Players", unit: "players", scale: (v) => v },
  disk: { label: "Free disk", unit: "GiB", scale: (v) => v / 1024 ** 3 },
};

const RANGES: { value: HealthRange; label: string }[] = [
  { value: "hour", label: "Hour" },
  { value: "day", label: "Day" },
  { value: "week", label: "Week" },
  { value: "90d", label: "90 days" },
];

export const MARK_COLOURS: Record<HealthHistory["events"][number]["kind"], string> = {
  start: "#5eb663",
  stop: "#bdbdbd",
  crash: "#e0473a",
  update: "#b388ff",
  backup: "#42a5f5",
};

/** uPlot's module, loaded once on first use. */
let uplotModule: Promise<typeof uPlot> | null = null;
function loadUplot(): Promise<typeof uPlot> {
  uplotModule ??= Promise.all([import("uplot"), import("uplot/dist/uPlot.min.css")]).then(([m]) => m.default);
  return uplotModule;
}

function columns(h: HealthHistory, figure: Figure): uPlot.AlignedData {
  const f = FIGURES[figure];
  const s = h.series[figure];
  const conv = (col: (number | null)[]) => col.map((v) => (v === null ? null : f.scale(v)));
  return [h.at.map((t) => t / 1000), conv(s.avg), conv(s.min), conv(s.max)];
}

function options(width: number, figure: Figure, latest: () => HealthHistory): uPlot.Options {
  const f = FIGURES[figure];
  return {
    width,
    height: 220,
    cursor: { drag: { x: false, y: false }, points: { size: 6 } },
    legend: { live: true },
    // The whole range on the time axis, however much of it has points.
    scales: {
      x: { time: true, range: () => [latest().from / 1000, latest().to / 1000] },
      y: {
        range: (
          _u,
          min,
          max,
        ) => [
          figure === "ups" || figure === "players" ? 0 : Math.min(0, min),
          Math.max(max * 1.1, figure === "ups" ? 65 : 1),
        ],
      },
    },
    axes: [
      {
        stroke: "#bdbdbd",
        grid: { stroke: "rgba(255,255,255,0.08)" },
        ticks: { stroke: "rgba(255,255,255,0.2)" },
      },
      {
        stroke: "#bdbdbd",
        grid: { stroke: "rgba(255,255,255,0.08)" },
        ticks: { stroke: "rgba(255,255,255,0.2)" },
        size: 48,
      },
    ],
    series: [
      {},
      {
        label: `${f.label} (${f.unit})`,
        stroke: "#ffa200",
        width: 2,
        spanGaps: false,
        value: (_u, v) => (v === null ? "—" : v.toFixed(1)),
      },
      {
        label: "min",
        stroke: "rgba(255,162,0,0.35)",
        width: 1,
        value: (_u, v) => (v === null ? "—" : v.toFixed(1)),
      },
      {
        label: "max",
        stroke: "rgba(255,162,0,0.35)",
        width: 1,
        value: (_u, v) => (v === null ? "—" : v.toFixed(1)),
      },
    ],
    bands: [{ series: [3, 2], fill: "rgba(255,162,0,0.12)" }],
    hooks: {
      // The marks: a coloured line across the plot at each event's time.
      draw: [(u) => {
        const { ctx, bbox } = u;
        ctx.save();
        ctx.lineWidth = Math.max(1, devicePixelRatio);
        for (const e of latest().events) {
          const x = Math.round(u.valToPos(e.at / 1000, "x", true));
          if (x < bbox.left || x > bbox.left + bbox.width) continue;
          ctx.strokeStyle = MARK_COLOURS[e.kind];
          ctx.beginPath();
          ctx.moveTo(x, bbox.top);
          ctx.lineTo(x, bbox.top + bbox.height);
          ctx.stroke();
        }
        ctx.restore();
      }],
    },
  };
}

const timeOf = (ms: number, range: HealthRange) =>
  new Date(ms).toLocaleString(
    undefined,
    range === "hour" || range === "day"
      ? { hour: "2-digit", minute: "2-digit" }
      : { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" },
  );

export function HealthChart() {
  const { online } = useSnapshot(connection);
  const [range, setRange] = useState<HealthRange>("day");
  const [figure, setFigure] = useState<Figure>("ups");
  const [history, setHistory] = useState<HealthHistory | null>(null);
  const box = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!online) return;
    let live = true;
    // An answer without columns (an old panel during an update) is no history.
    const load = () =>
      healthApi.history(range).then((h) => live && Array.isArray(h?.at) && setHistory(h), () => {});
    void load();
    const t = setInterval(load, range === "hour" ? 10_000 : 60_000);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [online, range]);

  // The plot is made when the figure changes (or the first points come) and fed new points after that:
  // making it anew every 10 s would drop the reader's cursor. Its range and marks read the newest history.
  const current = useRef(history);
  current.current = history;
  const plot = useRef<uPlot | null>(null);
  const hasPoints = history !== null && history.at.length > 0;
  useEffect(() => {
    const el = box.current;
    if (!el || !hasPoints) return;
    let gone = false;
    const observer = new ResizeObserver(() => plot.current?.setSize({ width: el.clientWidth, height: 220 }));
    void loadUplot().then((UPlot) => {
      if (gone || !current.current) return;
      plot.current = new UPlot(
        options(el.clientWidth, figure, () => current.current!),
        columns(current.current, figure),
        el,
      );
      observer.observe(el);
    });
    return () => {
      gone = true;
      observer.disconnect();
      plot.current?.destroy();
      plot.current = null;
    };
  }, [figure, hasPoints]);
  useEffect(() => {
    if (history && plot.current) plot.current.setData(columns(history, figure));
    // Only new points: a new figure makes a new plot above.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [history]);

  const marks = useMemo(() => history?.events.slice(-8).reverse() ?? [], [history]);
  const empty = history !== null && history.at.length === 0;
  return (
    <Panel title="Health over time">
      {/* 44 px touch targets: the buttons are tapped on a phone. */}
      <Box
        sx={{
          display: "flex",
          flexWrap: "wrap",
          gap: 1,
          mb: 1.5,
          "& .MuiToggleButton-root": { minHeight: 44, minWidth: 44 },
        }}
      >
        <ToggleButtonGroup
          size="small"
          exclusive
          value={range}
          onChange={(_e, v) => v && setRange(v)}
          aria-label="Range"
        >
          {RANGES.map((r) => <ToggleButton key={r.value} value={r.value}>{r.label}</ToggleButton>)}
        </ToggleButtonGroup>
        <ToggleButtonGroup
          size="small"
          exclusive
          value={figure}
          onChange={(_e, v) => v && setFigure(v)}
          aria-label="Figure"
          sx={{ flexWrap: "wrap" }}
        >
          {(Object.keys(FIGURES) as Figure[]).map((f) => (
            <ToggleButton key={f} value={f}>{FIGURES[f].label}</ToggleButton>
          ))}
        </ToggleButtonGroup>
      </Box>
      {history === null
        ? <Typography color="text.secondary">Loading...</Typography>
        : empty
        ? (
          <Typography color="text.secondary">
            No samples in this range yet: they are taken while the panel runs.
          </Typography>
        )
        : (
          <Box
            ref={box}
            data-testid="health-chart"
            role="img"
            aria-label={`${FIGURES[figure].label} over the last ${
              RANGES.find((r) => r.value === range)!.label.toLowerCase()
            }`}
            sx={{
              width: "100%",
              minHeight: 220,
              "& .u-legend": { color: "text.primary", fontSize: 13, textAlign: "left" },
              "& .u-legend .u-series": { py: 0.25 },
              "& .u-select": { display: "none" },
            }}
          />
        )}
      {marks.length > 0 && (
        <Box
          component="ul"
          sx={{
            listStyle: "none",
            p: 0,
            m: 0,
            mt: 1,
            display: "flex",
            flexWrap: "wrap",
            columnGap: 2,
            rowGap: 0.5,
          }}
          data-testid="health-marks"
        >
          {marks.map((e) => (
            <Typography
              component="li"
              variant="caption"
              key={`${e.at}-${e.kind}`}
              sx={{ color: "text.secondary" }}
            >
              <Box component="span" sx={{ color: MARK_COLOURS[e.kind], fontWeight: 700 }}>│ {e.kind}</Box>
              {" "}
              {timeOf(e.at, range)}
            </Typography>
          ))}
        </Box>
      )}
    </Panel>
  );
}
