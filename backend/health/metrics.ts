// The Prometheus text exposition format (version 0.0.4, what every Prometheus server and Grafana agent
// scrapes; https://prometheus.io/docs/instrumenting/exposition_formats/): for each metric family one
// "# HELP name text" and one "# TYPE name type" line, then its samples, "name{label="value",...} value",
// each family's lines together and each name once. HELP text escapes backslash and line feed; label values
// escape backslash, double quote and line feed. Names follow Prometheus' conventions
// (https://prometheus.io/docs/practices/naming/): a "factorio_" prefix, base units (seconds, bytes), "_total"
// on counters, and the process metrics named as every client library names its own
// (process_cpu_seconds_total, process_resident_memory_bytes) after the prefix. Each sample of a game carries
// the label server="<its id>".

export type MetricType = "gauge" | "counter";

export interface MetricFamily {
  name: string;
  help: string;
  type: MetricType;
  samples: { labels: Record<string, string>; value: number }[];
}

export const CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const escapeHelp = (s: string) => s.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");
const escapeLabel = (s: string) => s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

function number(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (v === Infinity) return "+Inf";
  if (v === -Infinity) return "-Inf";
  return String(v);
}

/**
 * The exposition text of `families`. Families given twice under one name are written as one (their samples
 * together); a name or label name the format does not allow, a type that differs between them, or a
 * label name starting with "__" (reserved) is a programming error and throws.
 */
export function formatMetrics(families: readonly MetricFamily[]): string {
  const byName = new Map<string, MetricFamily>();
  for (const f of families) {
    if (!NAME.test(f.name)) throw new Error(`not a metric name: ${f.name}`);
    const known = byName.get(f.name);
    if (!known) byName.set(f.name, { ...f, samples: [...f.samples] });
    else if (known.type !== f.type) throw new Error(`${f.name} is both a ${known.type} and a ${f.type}`);
    else known.samples.push(...f.samples);
  }
  let out = "";
  for (const f of byName.values()) {
    out += `# HELP ${f.name} ${escapeHelp(f.help)}\n# TYPE ${f.name} ${f.type}\n`;
    for (const s of f.samples) {
      const labels = Object.entries(s.labels).map(([k, v]) => {
        if (!LABEL.test(k) || k.startsWith("__")) throw new Error(`not a label name: ${k}`);
        return `${k}="${escapeLabel(v)}"`;
      });
      out += `${f.name}${labels.length ? `{${labels.join(",")}}` : ""} ${number(s.value)}\n`;
    }
  }
  return out;
}

/** What one server says of its health now; null where it is not known (the game stopped, no answer). */
export interface ServerHealth {
  /** The server label: the server's id, which does not change when it is renamed. */
  server: string;
  up: boolean;
  paused: boolean;
  ups: number | null;
  playersOnline: number | null;
  mapAgeSeconds: number | null;
  /** CPU time the game process used since it started. */
  cpuSecondsTotal: number | null;
  residentMemoryBytes: number | null;
  /** Free bytes where the server's saves and backups are. */
  diskFreeBytes: number | null;
}

const FAMILIES: {
  name: string;
  help: string;
  type: MetricType;
  value: (h: ServerHealth) => number | null;
}[] = [
  {
    name: "factorio_server_up",
    help: "1 while the game server's process runs.",
    type: "gauge",
    value: (h) => (h.up ? 1 : 0),
  },
  {
    name: "factorio_paused",
    help: "1 while the game answers and its clock stands still (auto_pause with nobody online).",
    type: "gauge",
    value: (h) => (h.up ? (h.paused ? 1 : 0) : null),
  },
  {
    name: "factorio_ups",
    help: "Game updates per second (60 when the game keeps up).",
    type: "gauge",
    value: (h) => h.ups,
  },
  {
    name: "factorio_players_online",
    help: "Players connected to the game.",
    type: "gauge",
    value: (h) => h.playersOnline,
  },
  {
    name: "factorio_map_age_seconds",
    help: "Age of the map, in game seconds.",
    type: "gauge",
    value: (h) => h.mapAgeSeconds,
  },
  {
    name: "factorio_process_cpu_seconds_total",
    help: "CPU time used by the game process (user and system), in seconds.",
    type: "counter",
    value: (h) => h.cpuSecondsTotal,
  },
  {
    name: "factorio_process_resident_memory_bytes",
    help: "Resident memory of the game process, in bytes.",
    type: "gauge",
    value: (h) => h.residentMemoryBytes,
  },
  {
    name: "factorio_disk_free_bytes",
    help: "Free space where the server's saves and backups are, in bytes.",
    type: "gauge",
    value: (h) => h.diskFreeBytes,
  },
];

/** The metric families of these servers: a sample per server where its value is known. */
export function serverFamilies(servers: readonly ServerHealth[]): MetricFamily[] {
  return FAMILIES.map(({ name, help, type, value }) => ({
    name,
    help,
    type,
    samples: servers.flatMap((h) => {
      const v = value(h);
      return v === null ? [] : [{ labels: { server: h.server }, value: v }];
    }),
  }));
}
