// How the simulated game writes its output: engine lines prefixed with the seconds since start (right
// aligned in 8 columns, as in factorio-current.log) go to stdout and to factorio-current.log; console
// events ("2024-10-21 12:03:00 [JOIN] alice joined the game") go to stdout and to the --console-log file.
// Everything is written synchronously, line by line, so the order on stdout is the order of events and a
// reader sees each line as soon as it is printed.

import { closeSync, existsSync, openSync, renameSync, writeSync } from "node:fs";

const encoder = new TextEncoder();

function writeAll(fd: number, text: string): void {
  const bytes = encoder.encode(text);
  let off = 0;
  while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
}

/** Local time as the game prints it in console lines: "YYYY-MM-DD HH:MM:SS". */
export function consoleDate(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${
    p(d.getMinutes())
  }:${p(d.getSeconds())}`;
}

export class Output {
  readonly t0 = performance.now();
  #logFd: number | null = null;
  #consoleLog: string | null = null;
  /** The console log, opened at its first line and kept open, as the game does (not reopened per line). */
  #consoleFile: Deno.FsFile | null = null;

  /** Starts factorio-current.log in `writeData`, keeping the previous run's as factorio-previous.log. */
  openGameLog(writeData: string): void {
    const current = `${writeData}/factorio-current.log`;
    try {
      if (existsSync(current)) renameSync(current, `${writeData}/factorio-previous.log`);
      this.#logFd = openSync(current, "w");
    } catch {
      this.#logFd = null; // the real game carries on without a log file it cannot write
    }
  }

  setConsoleLog(path: string | null): void {
    this.#consoleLog = path;
    this.#consoleFile?.close();
    this.#consoleFile = null;
  }

  seconds(): string {
    return ((performance.now() - this.t0) / 1000).toFixed(3).padStart(8);
  }

  /** A line with neither timestamp nor log file (the --version answer). */
  plain(text: string): void {
    this.#stdout(text + "\n");
  }

  /** An engine line: stdout and factorio-current.log. */
  engine(text: string): void {
    const line = `${this.seconds()} ${text}\n`;
    this.#stdout(line);
    this.#log(line);
  }

  /** Untimed lines that still belong in the log (crash reports). */
  raw(text: string): void {
    this.#stdout(text + "\n");
    this.#log(text + "\n");
  }

  /** A console event: stdout and the console log. */
  event(tag: string, text: string): void {
    const line = `${consoleDate()} [${tag}] ${text}\n`;
    this.#stdout(line);
    if (this.#consoleLog) {
      try {
        // Deno.openSync honours the umask like the game's own file writes (node:fs's append in Deno does
        // not: it leaves 0666).
        this.#consoleFile ??= Deno.openSync(this.#consoleLog, { append: true, create: true });
        const bytes = new TextEncoder().encode(line);
        let off = 0;
        while (off < bytes.length) off += this.#consoleFile.writeSync(bytes.subarray(off));
      } catch {
        // a console log that cannot be written is not fatal for the game
      }
    }
  }

  close(): void {
    this.#consoleFile?.close();
    this.#consoleFile = null;
    if (this.#logFd !== null) closeSync(this.#logFd);
    this.#logFd = null;
  }

  #stdout(text: string): void {
    try {
      writeAll(1, text);
    } catch {
      // stdout gone (reader closed): keep running, like the game does
    }
  }

  #log(text: string): void {
    if (this.#logFd === null) return;
    try {
      writeAll(this.#logFd, text);
    } catch {
      // disk full: the game keeps going
    }
  }
}
