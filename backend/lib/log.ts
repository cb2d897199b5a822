// The panel's own log: one line per event to stdout and to <data-dir>/panel.log (rotated at 10 MiB).
// Never pass secrets (passwords, tokens, RCON password, keys) to it.

import { appendFileSync, renameSync, statSync } from "node:fs";

export type Level = "debug" | "info" | "warn" | "error";

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

const ROTATE_BYTES = 10 * 1024 * 1024;

export function createLogger(opts: { file?: string; quiet?: boolean; debug?: boolean } = {}): Logger {
  let written = 0;
  if (opts.file) {
    try {
      written = statSync(opts.file).size;
    } catch {
      written = 0;
    }
  }
  const write = (level: Level, message: string, fields?: Record<string, unknown>) => {
    if (level === "debug" && !opts.debug) return;
    const extra = fields && Object.keys(fields).length > 0 ? " " + JSON.stringify(fields) : "";
    const line = `${new Date().toISOString()} ${level.toUpperCase().padEnd(5)} ${message}${extra}\n`;
    if (!opts.quiet) (level === "error" || level === "warn" ? console.error : console.log)(line.trimEnd());
    if (!opts.file) return;
    try {
      if (written > ROTATE_BYTES) {
        renameSync(opts.file, opts.file + ".1");
        written = 0;
      }
      appendFileSync(opts.file, line, { mode: 0o600 });
      written += line.length;
    } catch {
      // A full disk must not take the panel down; stdout still has the line.
    }
  };
  return {
    debug: (m, f) => write("debug", m, f),
    info: (m, f) => write("info", m, f),
    warn: (m, f) => write("warn", m, f),
    error: (m, f) => write("error", m, f),
  };
}

/** A logger whose every line also carries `fields` (a server's: its id), written through `log`. */
export function withFields(log: Logger, fields: () => Record<string, unknown>): Logger {
  return {
    debug: (m, f) => log.debug(m, { ...fields(), ...f }),
    info: (m, f) => log.info(m, { ...fields(), ...f }),
    warn: (m, f) => log.warn(m, { ...fields(), ...f }),
    error: (m, f) => log.error(m, { ...fields(), ...f }),
  };
}
