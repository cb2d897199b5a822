// CPU and resident memory of the games' processes, by pid, under the panel's own permissions. Deno refuses
// to read /proc/<pid>/* without --allow-all (as liveness.ts says), and refuses /sys/fs/cgroup too
// ("NotCapable: Requires all access to "/sys/fs/cgroup/memory/memory.usage_in_bytes"", Deno 2.9.6 with the
// launcher's flags), so both are read by programs the panel runs:
// - `ps -o pid=,times=,rss=,cgroup= -p PID,PID,...`: one call for every game (and the panel itself, to
//   compare cgroups). `times` is the CPU time used (user and system) in whole seconds, so a CPU share over a
//   span of W seconds is within 100/W percentage points of one core: CpuMeter averages over 60 s (±1.7) and
//   says `settled` from 50 s (±2). A call costs ~8 ms of CPU (`bench/health.mjs`): 20 games sampled every
//   10 s in one call is ~0.1% of a core.
// - a game in a cgroup of its own (a cgroup other than the panel's: started under systemd-run, a container
//   per game) is measured exactly by its cgroup's files, read with one `grep -s -H "" FILE...` (memory in
//   use and its limit, CPU time to the microsecond), v2 (0::/path, at /sys/fs/cgroup or, on hybrid hosts,
//   /sys/fs/cgroup/unified) or v1 (the memory and cpuacct hierarchies). When the game shares the panel's
//   cgroup (the Docker image: both in the container's) those files count the panel too; they still give the
//   limit the game's memory counts against, and `own` says which it is.

/** What ps says of one process. */
export interface ProcessUsage {
  pid: number;
  /** CPU time used so far, user and system, in whole seconds. */
  cpuSeconds: number;
  rssBytes: number;
  /** ps's cgroup field: "0::/path" (v2) or "N:controllers:/path,..." (v1); "" at the root. */
  cgroup: string;
}

export interface ProcessSample {
  /** When ps was started (ms, Date.now()). */
  at: number;
  /** The pids that exist; a pid that does not is missing. */
  usage: Map<number, ProcessUsage>;
  /** The panel's own cgroup field, to tell a game's own cgroup from the one it shares with the panel. */
  panelCgroup: string;
}

/** ps cannot answer: not installed, or a ps that refuses procps's options (BusyBox's). */
export class PsUnavailable extends Error {}

async function run(cmd: string, args: string[]): Promise<{ out: string; err: string }> {
  const done = await new Deno.Command(cmd, { args, stdin: "null", stdout: "piped", stderr: "piped" })
    .output();
  return { out: new TextDecoder().decode(done.stdout), err: new TextDecoder().decode(done.stderr) };
}

/** One ps line: pid, CPU seconds, RSS in KiB, then the cgroup field ("-" when at the root). */
export function parsePsUsage(line: string): ProcessUsage | null {
  const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s*(\S*)\s*$/.exec(line);
  if (!m) return null;
  return {
    pid: Number(m[1]),
    cpuSeconds: Number(m[2]),
    rssBytes: Number(m[3]) * 1024,
    cgroup: m[4] === "-" ? "" : m[4],
  };
}

/** CPU time and resident memory of `pids`, with one ps. Throws PsUnavailable when ps cannot tell. */
export async function sampleProcesses(pids: readonly number[]): Promise<ProcessSample> {
  const wanted = [...new Set(pids.filter((p) => Number.isInteger(p) && p > 0)), Deno.pid];
  const at = Date.now();
  let answer;
  try {
    answer = await run("ps", ["-o", "pid=,times=,rss=,cgroup=", "-p", wanted.join(",")]);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new PsUnavailable(
        "`ps` (procps) is not installed: the games' CPU and memory cannot be measured.",
      );
    }
    throw e;
  }
  const usage = new Map<number, ProcessUsage>();
  for (const line of answer.out.split("\n")) {
    const row = parsePsUsage(line);
    if (row) usage.set(row.pid, row);
  }
  // procps exits 1 with nothing on stderr when no pid matched; the panel's own pid always does, so an
  // empty answer with a complaint is a ps that refuses the options (BusyBox's).
  if (!usage.has(Deno.pid)) {
    throw new PsUnavailable(
      `\`ps\` here cannot report CPU time and memory (it answered "${
        answer.err.trim().split("\n")[0].slice(0, 120)
      }"). Install procps.`,
    );
  }
  const panelCgroup = usage.get(Deno.pid)!.cgroup;
  if (!pids.includes(Deno.pid)) usage.delete(Deno.pid);
  return { at, usage, panelCgroup };
}

/** A process's CPU share of one core, in percent, from its CPU time over wall time. */
export type CpuReading =
  | { state: "unknown" }
  | { state: "measured"; percent: number; error: number; settled: boolean; spanMs: number };

const CPU_WINDOW_MS = 60_000;
/** Readings come every 10 s or so; the slack lets a window hold a whole number of them. */
const CPU_WINDOW_SLACK_MS = 2_000;
const CPU_SETTLED_ERROR = 2;

/**
 * CPU % of one process over the last minute, from its cumulative CPU seconds: ps gives whole seconds (the
 * default resolution), a cgroup's files microseconds.
 */
export class CpuMeter {
  #readings: { at: number; cpuSeconds: number }[] = [];

  constructor(private readonly resolutionSeconds = 1) {}

  add(at: number, cpuSeconds: number): void {
    const last = this.#readings.at(-1);
    // Less CPU time than before: another process (a restart under the same pid). Start over.
    if (last && cpuSeconds < last.cpuSeconds) this.#readings = [];
    this.#readings.push({ at, cpuSeconds });
    const from = at - CPU_WINDOW_MS - CPU_WINDOW_SLACK_MS;
    const first = this.#readings.findIndex((r) => r.at >= from);
    if (first > 0) this.#readings = this.#readings.slice(first);
  }

  current(): CpuReading {
    const first = this.#readings[0];
    const last = this.#readings.at(-1);
    if (!first || !last || last.at <= first.at) return { state: "unknown" };
    const seconds = (last.at - first.at) / 1000;
    const error = (100 * this.resolutionSeconds) / seconds;
    return {
      state: "measured",
      percent: ((last.cpuSeconds - first.cpuSeconds) / seconds) * 100,
      error,
      settled: error <= CPU_SETTLED_ERROR,
      spanMs: last.at - first.at,
    };
  }
}

/** What a cgroup's own files say. */
export interface CgroupUsage {
  /** The cgroup's path within its hierarchy. */
  path: string;
  /** The cgroup is the game's own, not one it shares with the panel. */
  own: boolean;
  /** Memory in use, page cache included (what the limit is counted against). */
  memoryBytes: number | null;
  /** Its memory limit; null when it has none. */
  memoryLimitBytes: number | null;
  /** CPU time used by everything in it, to the microsecond. */
  cpuSeconds: number | null;
}

interface CgroupFiles {
  path: string;
  memory: string | null;
  limit: string | null;
  cpu: string | null;
  v2: boolean;
}

/** A limit this large (v1's "no limit" is 2^63 rounded down to a page) is none. */
const NO_LIMIT = 2 ** 62;

/**
 * Where a ps cgroup field's files are: the v2 entry ("0::/path") under `v2Root`, else the v1 memory and
 * cpuacct entries under /sys/fs/cgroup/{memory,cpuacct}. Null when the process is at the root of both.
 */
export function cgroupFiles(field: string, v2Root = "/sys/fs/cgroup"): CgroupFiles | null {
  // ps joins the entries with commas, and v1 names joint controllers with one too ("6:cpu,cpuacct:/x").
  const entries = [...field.matchAll(/(\d+):([^:]*):(\/.*?)(?=,\d+:|$)/g)];
  const v2 = entries.find((m) => m[1] === "0" && m[2] === "");
  if (v2) {
    const dir = v2Root + (v2[3] === "/" ? "" : v2[3]);
    return {
      path: v2[3],
      memory: `${dir}/memory.current`,
      limit: `${dir}/memory.max`,
      cpu: `${dir}/cpu.stat`,
      v2: true,
    };
  }
  const memory = entries.find((m) => m[2].split(",").includes("memory"));
  const cpu = entries.find((m) => m[2].split(",").includes("cpuacct"));
  if (!memory && !cpu) return null;
  return {
    path: (memory ?? cpu)![3],
    memory: memory ? `/sys/fs/cgroup/memory${memory[3]}/memory.usage_in_bytes` : null,
    limit: memory ? `/sys/fs/cgroup/memory${memory[3]}/memory.limit_in_bytes` : null,
    cpu: cpu ? `/sys/fs/cgroup/cpuacct${cpu[3]}/cpuacct.usage` : null,
    v2: false,
  };
}

/** Reads the files of `usage.cgroup` (see cgroupFiles); null when the process is at the root or none can be read. */
export async function readCgroup(usage: ProcessUsage, panelCgroup: string): Promise<CgroupUsage | null> {
  let files = cgroupFiles(usage.cgroup);
  if (!files) return null;
  // Hybrid hosts mount v2 at /sys/fs/cgroup/unified; pure v2 hosts at /sys/fs/cgroup. Both are asked.
  const hybrid = files.v2 ? cgroupFiles(usage.cgroup, "/sys/fs/cgroup/unified") : null;
  const names = [files.memory, files.limit, files.cpu, hybrid?.memory, hybrid?.limit, hybrid?.cpu].filter((
    f,
  ): f is string => f !== null && f !== undefined);
  const { out } = await run("grep", ["-s", "-H", "", ...names]);
  const lines = out.split("\n");
  const valueOf = (file: string | null, key?: string): number | null => {
    if (!file) return null;
    for (const line of lines) {
      if (!line.startsWith(file + ":")) continue;
      const text = line.slice(file.length + 1).trim();
      if (key === undefined) return /^\d+$/.test(text) ? Number(text) : null;
      const m = new RegExp(`^${key} (\\d+)$`).exec(text);
      if (m) return Number(m[1]);
    }
    return null;
  };
  if (hybrid && valueOf(files.memory) === null && valueOf(files.cpu, "usage_usec") === null) files = hybrid;
  const memoryBytes = valueOf(files.memory);
  const limit = valueOf(files.limit);
  const cpu = files.v2 ? valueOf(files.cpu, "usage_usec") : valueOf(files.cpu);
  if (memoryBytes === null && cpu === null) return null;
  return {
    path: files.path,
    own: usage.cgroup !== panelCgroup,
    memoryBytes,
    memoryLimitBytes: limit === null || limit >= NO_LIMIT ? null : limit,
    cpuSeconds: cpu === null ? null : files.v2 ? cpu / 1e6 : cpu / 1e9,
  };
}
