// Is a pid still the game the panel started? Answered under the panel's own permissions (no --allow-all),
// so without reading /proc from Deno:
// - existence: `ps -p` answers it along with the identity below. `exists()`, a signal-0 probe
//   (`process.kill(pid, 0)`, nothing is delivered), is for where ps is missing or unusable, for the panel's
//   own child when a stop or kill takes long, and for the 250 ms poll of a game the panel did not start;
// - identity: `ps -o etimes=,stat=` gives the process's age and state. Its start, counted in seconds since
//   boot (uptime minus age), is recorded when the game is started; a later process that reuses the pid has
//   a different start, so it is never taken for the game. A zombie (state Z) has ended.
// Without a usable `ps` (none in a minimal container; BusyBox's refuses procps's options), only existence
// can be checked; that is said once in the log.

import { kill } from "node:process";

/** Seconds by which two readings of one process's start may differ (both readings have 1 s steps). */
const START_TOLERANCE_S = 3;

export interface ProcessInfo {
  /** Seconds since boot at which the process started. */
  bootStart: number;
  zombie: boolean;
  /** The command line, as ps shows it. */
  args: string;
}

/** Why `ps` cannot be used (then only existence is checked), or null while it can. */
let psUnusable: string | null = null;
let warnMissing: ((text: string) => void) | null = null;

const WEAKER = "the panel can only check that the game's pid exists, not that it is still the game.";
const PS_MISSING = `\`ps\` (procps) is not installed: ${WEAKER}`;
const psRefused = (said: string) =>
  `\`ps\` here cannot tell when a process started (it answered "${said}"; BusyBox's ps does not take procps's options): ${WEAKER} Install procps.`;

/** Where to say, once, that `ps` is missing or unusable (at once, when an earlier look found it so). */
export function onPsUnusable(warn: (text: string) => void): void {
  warnMissing = warn;
  if (psUnusable) warn(psUnusable);
}

function givenUp(why: string): null {
  // Said once, also when several looks were under way when ps first failed.
  if (psUnusable === null) {
    psUnusable = why;
    warnMissing?.(why);
  }
  return null;
}

/** Whether a process with this pid exists at all (any owner). */
export async function exists(pid: number): Promise<boolean> {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as { code?: string }).code === "EPERM";
  }
}

interface PsAnswer {
  out: string;
  /** Seconds since boot, read just before ps ran (see parsePsLine). */
  uptime: number;
}

async function ps(args: string[]): Promise<PsAnswer | null> {
  if (psUnusable) return null;
  try {
    // Read before ps starts, not when its answer is read: a busy panel may come back to that answer
    // seconds later, and ages read then against the clock now would put every start seconds too late.
    const uptime = Deno.osUptime();
    const done = await new Deno.Command("ps", { args, stdin: "null", stdout: "piped", stderr: "piped" })
      .output();
    const out = new TextDecoder().decode(done.stdout);
    // procps exits 1 with nothing to say when no process matched: an empty answer, not a failure. A ps
    // that refuses the options (BusyBox's) says why on stderr, and would otherwise make a running game
    // look gone.
    const said = new TextDecoder().decode(done.stderr).trim();
    if (out.trim() === "" && said !== "") return givenUp(psRefused(said.split("\n")[0].slice(0, 120)));
    return { out, uptime };
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return givenUp(PS_MISSING);
    throw e;
  }
}

/**
 * One line of `ps -o pid=,etimes=,stat=,args=`. A process younger than the tick ps rounds the clock to can
 * come out a hair "before" that clock, and procps 4 prints that negative age wrapped around as an unsigned
 * number (4123168608 was seen for a process 0 s old): an age above the time since boot means just started.
 */
export function parsePsLine(line: string, uptime: number): ProcessRow | null {
  const m = /^\s*(\d+)\s+(\d+)\s+(\S+)\s*(.*)$/.exec(line);
  if (!m) return null;
  const age = Number(m[2]);
  return {
    pid: Number(m[1]),
    info: {
      bootStart: age > uptime ? uptime : uptime - age,
      zombie: m[3].startsWith("Z") || m[3].startsWith("X"),
      args: m[4],
    },
  };
}

/** What ps knows of `pid`; null when it does not exist, or when ps is unavailable. */
export async function inspect(pid: number): Promise<ProcessInfo | null> {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  const answer = await ps(["-o", "pid=,etimes=,stat=,args=", "-p", String(pid)]);
  if (answer === null) return null;
  for (const line of answer.out.split("\n")) {
    const row = parsePsLine(line, answer.uptime);
    if (row?.pid === pid) return row.info;
  }
  return null;
}

/** The start (seconds since boot) of a process just spawned, to record with it; null when unknown. */
export async function startOf(pid: number): Promise<number | null> {
  const info = await inspect(pid);
  return info && !info.zombie ? info.bootStart : null;
}

/**
 * Whether `pid` is still the process that started at `bootStart`. When the start is unknown (null: ps
 * missing or unusable, or a record from an older panel), existence is all that can be checked, which still
 * beats never signalling the game again. A start below zero is unknown too: earlier panels recorded one
 * from ps's wrapped age (parsePsLine) for a game a panel restart must still find.
 */
export async function isAlive(pid: number, bootStart: number | null): Promise<boolean> {
  const info = await inspect(pid);
  if (info === null) return psUnusable !== null && await exists(pid); // gone, or ps unusable: existence is all there is
  if (info.zombie) return false;
  return bootStart === null || bootStart < 0 || Math.abs(info.bootStart - bootStart) <= START_TOLERANCE_S;
}

export interface ProcessRow {
  pid: number;
  info: ProcessInfo;
}

/** Every process with its command line (for finding a game the panel did not start). */
export async function listProcesses(): Promise<ProcessRow[]> {
  const answer = await ps(["-e", "-o", "pid=,etimes=,stat=,args="]);
  if (answer === null) return [];
  return answer.out.split("\n").map((line) => parsePsLine(line, answer.uptime)).filter((r): r is ProcessRow =>
    r !== null && !r.info.zombie
  );
}
