// The game's output: the file it writes (<data-dir>/game-output.log, the last run's kept as
// game-output.previous.log, rotated past 32 MiB during a long run), what the console shows of it (every
// line redacted, the last 200 kept for the replay and published on the bus as "server.log") and what a
// run keeps of it for its exit report.

import { existsSync, statSync } from "node:fs";
import { copyFile, truncate } from "node:fs/promises";
import { join } from "node:path";
import type { EventBus } from "../../lib/events.ts";
import type { Logger } from "../../lib/log.ts";
import { FileTail, lastLines } from "./gamelog.ts";
import type { Run } from "./run.ts";

/** Output lines kept for the console's replay and for crash reports. */
export const RECENT_LINES = 200;
/** game-output.log is rotated (kept as game-output.previous.log) past this size during a long run. */
export const OUTPUT_ROTATE_BYTES = 32 * 1024 * 1024;
const ROTATE_CHECK_MS = 60_000;

export class GameOutput {
  /** Where the game writes its output. */
  readonly file: string;
  readonly #previousFile: string;
  #recent: string[] = [];

  constructor(
    dataDir: string,
    private readonly bus: EventBus,
    private readonly log: Logger,
    /** Replaces the RCON password wherever it appears (the game logs its own command line). */
    readonly redact: (line: string) => string,
  ) {
    this.file = join(dataDir, "game-output.log");
    this.#previousFile = join(dataDir, "game-output.previous.log");
  }

  /** Before a new run: the last run's output is kept as game-output.previous.log. */
  keepPrevious(): void {
    if (!existsSync(this.file)) return;
    try {
      Deno.renameSync(this.file, this.#previousFile);
    } catch {
      // keep going: the new run truncates it
    }
  }

  /**
   * Follows a run's output file from `offset`: each batch of new lines, redacted, is added to the run's
   * own lines (its exit report) and handed to `onLines`. The file is rotated while the run lasts.
   */
  follow(run: Run, offset: number, onLines: (lines: string[]) => void): FileTail {
    const tail = new FileTail(run.outputFile, offset, (raw) => {
      const lines = raw.map((l) => this.redact(l));
      for (const line of lines) {
        run.lines.push(line);
        if (run.lines.length > RECENT_LINES) run.lines.shift();
      }
      onLines(lines);
    });
    tail.start();
    const rotate = setInterval(() => void this.#rotate(run, tail), ROTATE_CHECK_MS);
    run.ended.then(() => clearInterval(rotate));
    return tail;
  }

  /** Keeps game-output.log bounded over a long run: the game appends (O_APPEND), so truncating is safe. */
  async #rotate(run: Run, tail: FileTail): Promise<void> {
    if (run.isEnded) return;
    try {
      if (statSync(run.outputFile).size < OUTPUT_ROTATE_BYTES) return;
      await tail.poll();
      await copyFile(run.outputFile, this.#previousFile);
      await truncate(run.outputFile, 0);
      this.log.info("Rotated the game's output file", { file: run.outputFile });
    } catch (e) {
      this.log.warn("Could not rotate the game's output file", { error: String(e) });
    }
  }

  /** The last lines of a run's output file (redacted), for the console of a panel that found it again. */
  async lastOf(outputFile: string): Promise<string[]> {
    return (await lastLines(outputFile, RECENT_LINES)).map((l) => this.redact(l));
  }

  /** A line for the console: kept for the replay and published. */
  push(line: string): void {
    this.#recent.push(line);
    if (this.#recent.length > RECENT_LINES) this.#recent.shift();
    this.bus.emit("server.log", { line });
  }

  /** A word from the panel itself in the console (and the panel's log). */
  note(text: string): void {
    this.log.info(text);
    this.push(`Factorio Panel: ${text}`);
  }

  /** The replay starts from these lines (a game found again after a panel restart). */
  replaceRecent(lines: string[]): void {
    this.#recent = lines;
  }

  recent(): string[] {
    return [...this.#recent];
  }
}
