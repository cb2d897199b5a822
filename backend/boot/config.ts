// Configuration: command-line flags, then PANEL_* environment variables, then an optional JSON file given
// with --config, then defaults. Which options exist, and how their values are checked: options.ts.

import { isAbsolute, resolve } from "node:path";
import { type Option, OPTIONS } from "./options.ts";

export interface Config {
  port: number;
  bind: string;
  dataDir: string;
  factorioDir: string;
  factorioBinary: string;
  httpsCert: string | null;
  httpsKey: string | null;
  /** HTTPS by ACME (backend/https/): the names to get a certificate for; empty: not from the command line. */
  httpsDomains: string[];
  acmeDirectoryUrl: string;
  acmeEmail: string;
  acmeCaFile: string | null;
  /** The plain-HTTP listener: HTTP-01 answers and the redirect to HTTPS (0: none). */
  acmeHttpPort: number;
  acmeChallenge: string;
  acmeDnsProvider: string;
  acmeDnsTokenFile: string | null;
  acmeDnsWait: number;
  duckdnsUrl: string;
  cloudflareApiUrl: string;
  /** HTTPS with a certificate from the panel's own certificate authority (a LAN without a domain). */
  localCa: boolean;
  staticDir: string;
  allowedOrigins: string[];
  trustProxy: boolean;
  sessionDays: number;
  /** Days the activity log keeps its records. */
  activityDays: number;
  /** Admins must set up a second factor before they can do anything else. */
  require2faAdmins: boolean;
  maxUploadMb: number;
  modPortalUrl: string;
  authUrl: string;
  modPortalCacheMinutes: number;
  rconPort: number;
  autoRestart: boolean;
  autoRestartMax: number;
  autoRestartDelay: number;
  stopGameOnExit: boolean;
  importFsm: string | null;
  dryRun: boolean;
  /** Export (backend/transfer/): write the panel's state to this archive and exit. */
  exportFile: string | null;
  exportSecrets: boolean;
  exportSaves: boolean;
  exportBackups: boolean;
  /** --export-server N: only that server (0: the whole panel). */
  exportServer: number;
  /** Import an export archive, then start. */
  importFile: string | null;
  importMerge: boolean;
  pushSubject: string;
  pushCaFile: string | null;
  /** Push service hosts allowed although they are on this machine or a private network. */
  pushPrivateHosts: string[];
  saveCreateTimeout: number;
  factorioVersion: string;
  factorioComUrl: string;
  /** Which build of the game the installer takes: the native ARM64 one (2.1 and later) or x64. */
  factorioArch: "x64" | "arm64";
  factorioKeepVersions: number;
  factorioUpdateCheckHours: number;
  /** Seconds (as written) before an update restart at which players are warned. */
  updateWarnings: string[];
  backupsDir: string;
  backupSaveTimeout: number;
  timeZone: string;
  alertMergeSeconds: number;
  alertStillDownMinutes: number;
  alertDiskLowPercent: number;
  playerCountDays: number;
  /** Server health (issue 51): seconds between samples, alert thresholds, who may scrape /metrics. */
  healthSampleSeconds: number;
  alertUpsBelow: number;
  alertUpsSamples: number;
  alertUpsCooldownMinutes: number;
  alertHungSeconds: number;
  alertMemoryMb: number;
  metricsFrom: string[];
}

export class ConfigError extends Error {}

/**
 * Options the panel no longer has, with why. Taken and ignored, with a warning, wherever they are given:
 * a unit file or --config file written for an older panel must not stop it from starting.
 */
const RETIRED: Record<string, string> = {
  "max-connections":
    "has no effect any more (Deno's web server takes the connections; see the README's Deployment section)",
};

export type ConfigResult =
  | { kind: "help"; text: string }
  /** `warnings`: one line each, to print (a retired option that was given). */
  | { kind: "config"; config: Config; warnings: string[] };

function envName(o: { flag: string }): string {
  return "PANEL_" + o.flag.toUpperCase().replaceAll("-", "_");
}

function label(o: Option): string {
  return `--${o.flag} (${envName(o)})`;
}

export function helpText(): string {
  const rows = OPTIONS.map((o) => {
    const arg = o.kind === "bool" ? "" : o.kind === "int" ? " N" : o.kind === "list" ? " LIST" : " VALUE";
    return `  --${o.flag}${arg}\n      ${o.help}\n      env ${envName(o)}, default ${o.defaultText}`;
  });
  return [
    "Factorio Panel: a web console for a Factorio dedicated server.",
    "",
    "Usage: npm start -- [options]",
    "",
    "Options (flags win over PANEL_* environment variables, which win over the --config file):",
    "  --config FILE\n      JSON file with any of the options below, keyed by flag name\n      env PANEL_CONFIG, default none",
    ...rows,
    "  --help\n      print this text",
    "",
    "PANEL_ADMIN_PASSWORD sets the password of the first user (admin) instead of a generated one.",
  ].join("\n");
}

/** Parses args/env/config file into a Config, or throws ConfigError with one line naming the option. */
export function loadConfig(args: string[], env: Record<string, string | undefined>): ConfigResult {
  const fromFlags = new Map<string, string>();
  let configFile: string | undefined = env.PANEL_CONFIG;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--help" || arg === "-h") return { kind: "help", text: helpText() };
    if (!arg.startsWith("--")) throw new ConfigError(`Unexpected argument "${arg}" (see --help)`);
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    let value: string | undefined = eq === -1 ? undefined : arg.slice(eq + 1);
    const option = OPTIONS.find((o) => o.flag === name);
    if (name !== "config" && !option && !(name in RETIRED)) {
      throw new ConfigError(`Unknown option --${name} (see --help)`);
    }
    if (value === undefined) {
      if (option?.kind === "bool" && (args[i + 1] === undefined || args[i + 1].startsWith("--"))) {
        value = "true";
      } else if (args[i + 1] === undefined) throw new ConfigError(`Option --${name} needs a value`);
      else value = args[++i];
    }
    if (name === "config") configFile = value;
    else fromFlags.set(name, value);
  }

  // A relative path is taken from where the user typed the command: npm runs its scripts in the panel's
  // folder but says where it was called in INIT_CWD (`npm --prefix ~/panel start -- --export x.zip`).
  const base = env.INIT_CWD && isAbsolute(env.INIT_CWD) ? env.INIT_CWD : Deno.cwd();
  if (configFile && !isAbsolute(configFile)) configFile = resolve(base, configFile);
  let fromFile: Record<string, unknown> = {};
  if (configFile) fromFile = readConfigFile(configFile);
  const warnings = Object.keys(RETIRED)
    .filter((flag) => fromFlags.has(flag) || flag in fromFile || env[envName({ flag })] !== undefined)
    .map((flag) => `--${flag} ${RETIRED[flag]}; remove it`);

  const config: Partial<Config> = {};
  const record = config as Record<string, unknown>;
  for (const o of OPTIONS) {
    let raw: unknown = undefined;
    let source = label(o);
    if (fromFlags.has(o.flag)) {
      raw = fromFlags.get(o.flag);
      source = `--${o.flag}`;
    } else if (env[envName(o)] !== undefined && env[envName(o)] !== "") {
      raw = env[envName(o)];
      source = envName(o);
    } else if (o.flag in fromFile) {
      raw = fromFile[o.flag];
      source = `"${o.flag}" in ${configFile}`;
    }
    record[o.key] = raw === undefined ? undefined : convert(o, raw, source, base);
  }
  // Defaults second, in table order, so a default may depend on an option listed before it.
  const lazy = new Set<string>();
  for (const o of OPTIONS) {
    if (record[o.key] !== undefined) continue;
    if (o.lazyDefault) {
      lazy.add(o.key);
      lazyProperty(record, o.key, () => o.defaultValue(config));
    } else record[o.key] = o.defaultValue(config);
  }
  for (const o of OPTIONS) {
    if (lazy.has(o.key)) continue;
    const value = record[o.key];
    if (value === null || !o.check) continue;
    const problem = (o.check as (v: unknown) => string | undefined)(value);
    if (problem) throw new ConfigError(`Invalid value for ${label(o)}: ${JSON.stringify(value)} ${problem}`);
    if (o.normalize) record[o.key] = (o.normalize as (v: unknown) => unknown)(value);
  }
  if ((config.httpsCert === null) !== (config.httpsKey === null)) {
    throw new ConfigError("Options --https-cert and --https-key must be given together");
  }
  const httpsWays = [
    config.httpsCert && "--https-cert",
    config.httpsDomains!.length > 0 && "--https-domain",
    config.localCa && "--local-ca",
  ]
    .filter(Boolean);
  if (httpsWays.length > 1) {
    throw new ConfigError(`Options ${httpsWays.join(" and ")} are different ways to HTTPS: give one`);
  }
  const wildcard = config.httpsDomains!.find((d) => d.startsWith("*."));
  if (wildcard && config.acmeChallenge !== "dns-01") {
    throw new ConfigError(
      `A wildcard name (${wildcard}) needs --acme-challenge dns-01: the CA checks it through DNS only`,
    );
  }
  return { kind: "config", config: config as Config, warnings };
}

/** `record[key]` is `compute()` from its first read on; a value assigned before replaces it. */
function lazyProperty(record: Record<string, unknown>, key: string, compute: () => unknown): void {
  const settle = (value: unknown) => {
    Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
    return value;
  };
  Object.defineProperty(record, key, {
    get: () => settle(compute()),
    set: settle,
    enumerable: true,
    configurable: true,
  });
}

function readConfigFile(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (e) {
    throw new ConfigError(`Cannot read the --config file ${path}: ${(e as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`The --config file ${path} is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new ConfigError(`The --config file ${path} must hold a JSON object`);
  }
  for (const key of Object.keys(data)) {
    if (!OPTIONS.some((o) => o.flag === key) && !(key in RETIRED)) {
      throw new ConfigError(`Unknown option "${key}" in the --config file ${path} (see --help)`);
    }
  }
  return data as Record<string, unknown>;
}

function convert(o: Option, raw: unknown, source: string, base: string): unknown {
  const bad = (why: string) => new ConfigError(`Invalid value for ${source}: ${JSON.stringify(raw)} ${why}`);
  switch (o.kind) {
    case "int": {
      const n = typeof raw === "number" ? raw : /^\s*-?\d+\s*$/.test(String(raw)) ? Number(raw) : NaN;
      if (!Number.isSafeInteger(n) || n < (o.min ?? -Infinity) || n > (o.max ?? Infinity)) {
        throw bad(`is not a whole number from ${o.min} to ${o.max}`);
      }
      return n;
    }
    case "bool": {
      if (typeof raw === "boolean") return raw;
      const s = String(raw).toLowerCase();
      if (["true", "1", "yes", "on"].includes(s)) return true;
      if (["false", "0", "no", "off"].includes(s)) return false;
      throw bad("is not true or false");
    }
    case "list": {
      if (Array.isArray(raw)) return raw.map(String);
      return String(raw).split(",").map((s) => s.trim()).filter((s) => s !== "");
    }
    case "path": {
      if (typeof raw !== "string" || raw.trim() === "") throw bad("is not a path");
      return isAbsolute(raw) ? raw : resolve(base, raw);
    }
    case "string":
      if (typeof raw !== "string" && typeof raw !== "number") throw bad("is not text");
      return String(raw);
  }
}
