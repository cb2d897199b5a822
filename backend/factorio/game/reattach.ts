// Finding a game an earlier panel process left running (the game outlives the panel): from its record
// (game-process.json, run.ts), else by its command line (stray.ts); and watching a game that is not the
// panel's child, which sends no exit event. What is found is applied by the supervisor.

import { statSync } from "node:fs";
import { DEFAULT_BIND_IP, type ServerExit, type ServerState } from "../../../shared/api.ts";
import type { FactorioPaths } from "../layout.ts";
import type { RconSecretStore } from "./console.ts";
import { exists, inspect, isAlive, type ProcessRow } from "./liveness.ts";
import type { GameOutput } from "./output.ts";
import { classify, fileStartHas, HOSTING, RCON_READY, readRecord, type Run, type RunRecord } from "./run.ts";
import { findStrayGame, type StrayGame } from "./stray.ts";

/** How often a re-attached game (not the panel's child, so no exit event) is checked for life. */
const LIVENESS_POLL_MS = 250;
/** Every this many polls, the pid is also checked to still be the game (start time, not a zombie). */
const IDENTITY_EVERY = 8;

export type LeftRunning =
  | { found: "nothing" }
  /** A game from this directory without a record: adopted. */
  | { found: "stray"; stray: StrayGame }
  /** The recorded game ended while the panel was away; `lines` is what it printed last. */
  | { found: "ended"; record: RunRecord; lines: string[]; reason: ServerExit["reason"] }
  /** The recorded game still runs: followed from `offset` of its output file, in `state`. */
  | {
    found: "alive";
    record: RunRecord;
    lines: string[];
    offset: number;
    rconReady: boolean;
    state: ServerState;
  };

/**
 * Looks for the game an earlier panel process left running. `processes`: the machine's processes when
 * start-up already listed them. An unreadable RCON secret is recovered from the running game's command line.
 */
export async function findLeftRunning(
  recordFile: string,
  paths: FactorioPaths,
  output: GameOutput,
  secrets: RconSecretStore,
  processes?: Promise<ProcessRow[]>,
): Promise<LeftRunning> {
  const record = readRecord(recordFile);
  if (!record) {
    const stray = await findStrayGame(paths, null, processes);
    return stray ? { found: "stray", stray } : { found: "nothing" };
  }
  const lines = record.adopted ? [] : await output.lastOf(record.outputFile);
  if (!await isAlive(record.pid, record.bootStart)) {
    const reason = classify(record.requested, null, null, lines, record.hosting);
    return { found: "ended", record, lines, reason };
  }
  if (secrets.problem) {
    // rcon.json is unreadable, but the running game was started with the secret on its command line.
    const info = await inspect(record.pid);
    if (info) secrets.recoverFrom(info.args);
  }
  let offset = 0;
  try {
    offset = statSync(record.outputFile).size;
  } catch {
    // no output file yet: follow it from its start
  }
  const hosting = record.hosting || record.adopted === true || await fileStartHas(record.outputFile, HOSTING);
  const rconReady = hosting || await fileStartHas(record.outputFile, RCON_READY);
  const state = record.requested === "stop" ? "stopping" : hosting ? "running" : "starting";
  return { found: "alive", record: { ...record, hosting }, lines, offset, rconReady, state };
}

/** The record of a game found running from this directory that the panel did not start (no output file). */
export function strayRecord(stray: StrayGame, startedAt: string): RunRecord {
  const rconPort = Number(/--rcon-bind\s+\S*:(\d+)/.exec(stray.commandLine)?.[1] ?? 0);
  const bindip = /--bind\s+(\S+)/.exec(stray.commandLine)?.[1]?.replace(/:\d+$/, "") ?? DEFAULT_BIND_IP;
  return {
    pid: stray.pid,
    bootStart: stray.bootStart,
    outputFile: "",
    bindip,
    port: stray.port,
    savefile: stray.savefile,
    startedAt,
    rconPort,
    hosting: true,
    requested: null,
    adopted: true,
  };
}

/** A game that is not the panel's child sends no exit event: poll it, and call `onGone` once it is gone. */
export function watchLiveness(run: Run, onGone: () => Promise<void>): void {
  let tick = 0;
  let checking = false;
  run.liveness = setInterval(async () => {
    if (checking) return;
    checking = true;
    try {
      // While a stop or kill is pending, look closely every time: an ended game that is not the panel's
      // child can linger as a zombie until init reaps it.
      const closely = run.requested !== null || ++tick % IDENTITY_EVERY === 0;
      const gone = !await exists(run.pid) || (closely && !await isAlive(run.pid, run.bootStart));
      if (gone) await onGone();
    } finally {
      checking = false;
    }
  }, LIVENESS_POLL_MS);
}
