// One run of the game: what is recorded about it on disk (so a restarted panel finds it again), and how a
// run's end is classified.

import { readFileSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { writeJsonAtomic } from "../../lib/fsutil.ts";
import type { FileTail } from "./gamelog.ts";
import type { ServerExit } from "../../../shared/api.ts";

/** The game reports it is hosting. */
export const HOSTING = /changing state from\(CreatingGame\) to\(InGame\)/;
export const RCON_READY = /Starting RCON interface at /;
export const LOADING_MAP = /^\s*\d+\.\d+ Loading map (.+): \d+ bytes\.$/;

/** What `<data-dir>/game-process.json` keeps about the running game. */
export interface RunRecord {
  pid: number;
  /**
   * When the process started, in seconds since boot (see liveness.ts), so a reused pid is never mistaken
   * for the game; null when it could not be read.
   */
  bootStart: number | null;
  outputFile: string;
  bindip: string;
  port: number;
  savefile: string;
  startedAt: string;
  /** The RCON port this run listens on (the password is in rcon.json). */
  rconPort: number;
  hosting: boolean;
  requested: "stop" | "kill" | null;
  /** A game found running from this Factorio directory that the panel did not start (no output file). */
  adopted?: boolean;
}

export interface Run extends RunRecord {
  tail: FileTail | null;
  /** This run's recent output (redacted), for its exit report. */
  lines: string[];
  rconReady: boolean;
  hostingWaiters: (() => void)[];
  ended: Promise<void>;
  endedResolve: () => void;
  isEnded: boolean;
  /** The panel's own child: its exit status arrives here; a re-attached game is polled instead. */
  child: Deno.ChildProcess | null;
  liveness?: ReturnType<typeof setInterval>;
}

export function readRecord(path: string): RunRecord | null {
  try {
    const r = JSON.parse(readFileSync(path, "utf8"));
    if (typeof r?.pid !== "number") return null;
    // Records written before the start was kept as seconds since boot have none: existence only.
    return { ...r, bootStart: typeof r.bootStart === "number" ? r.bootStart : null };
  } catch {
    return null;
  }
}

export function writeRecord(path: string, run: RunRecord): void {
  const record: RunRecord = {
    pid: run.pid,
    bootStart: run.bootStart,
    outputFile: run.outputFile,
    bindip: run.bindip,
    port: run.port,
    savefile: run.savefile,
    startedAt: run.startedAt,
    rconPort: run.rconPort,
    hosting: run.hosting,
    requested: run.requested,
    adopted: run.adopted,
  };
  writeJsonAtomic(path, record, 0o600);
}

export function removeRecord(path: string): void {
  rmSync(path, { force: true });
}

/** Why a run ended, from what the panel asked for, the exit status (when known) and the last output. */
export function classify(
  requested: "stop" | "kill" | null,
  code: number | null,
  signal: string | null,
  lines: string[],
  hosting = true,
): ServerExit["reason"] {
  if (requested === "kill") return "killed";
  const unknown = code === null && signal === null;
  // Exit code 0 is a clean exit even when someone else asked for it (/quit, a SIGINT from outside).
  if (code === 0) return "stopped";
  if (unknown && lines.some((l) => /(^|\s)Goodbye$/.test(l)) && !lines.some((l) => /crashed/i.test(l))) {
    return "stopped";
  }
  if (requested === "stop") return "crashed";
  return hosting ? "crashed" : "start-failed";
}

/** Whether the first MiB of a file (where the game reports that it is hosting) matches `pattern`. */
export async function fileStartHas(path: string, pattern: RegExp): Promise<boolean> {
  try {
    const fh = await open(path, "r");
    try {
      const buf = new Uint8Array(1024 * 1024);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      return pattern.test(new TextDecoder().decode(buf.subarray(0, bytesRead)));
    } finally {
      await fh.close();
    }
  } catch {
    return false;
  }
}
