// The panel's options: one table (OPTIONS) that parsing, validation and --help all read, so they can
// never disagree, and the checks of option values. config.ts reads the values into a Config.

import { join, resolve } from "node:path";
import { statSync } from "node:fs";
import { gameBinaryIn } from "../factorio/versions/store.ts";
import {
  ACME_CHALLENGES,
  DNS_PROVIDERS,
  domainProblem,
  emailProblem,
  LETS_ENCRYPT,
} from "../../shared/https.ts";
import type { Config } from "./config.ts";

export type Kind = "int" | "string" | "path" | "bool" | "list";

export interface Option<K extends keyof Config = keyof Config> {
  key: K;
  flag: string;
  kind: Kind;
  help: string;
  /** Shown in --help. */
  defaultText: string;
  /** Computed after every other option is known (for defaults that depend on other options). */
  defaultValue: (c: Partial<Config>) => Config[K];
  check?: (value: Config[K]) => string | undefined;
  /** The value as the panel uses it, once checked (e.g. an origin without its trailing slash). */
  normalize?: (value: Config[K]) => Config[K];
  min?: number;
  max?: number;
  /**
   * The default is worked out when the value is first read, and not checked (the system's own is valid):
   * the time zone's needs ICU, whose start costs ~20 ms before the panel's first answer.
   */
  lazyDefault?: boolean;
}

/** The project's page: a valid VAPID subject until the admin gives their own contact. */
const PUSH_SUBJECT_DEFAULT = "https://github.com/factorio-panel/factorio-panel";

/** The panel's folder: the parent of backend/. */
const REPO_ROOT = resolve(import.meta.dirname ?? ".", "../..");

function opt<K extends keyof Config>(o: Option<K>): Option<K> {
  return o;
}

// deno-lint-ignore no-explicit-any
export const OPTIONS: Option<any>[] = [
  opt({
    key: "port",
    flag: "port",
    kind: "int",
    min: 0,
    max: 65535,
    help: "HTTP(S) port of the panel (0 picks a free one)",
    defaultText: "443 when HTTPS is automatic (--https-domain, --local-ca), else 8080",
    // Read before the options below have their defaults: unset means not given.
    defaultValue: (c) => (c.httpsDomains?.length || c.localCa ? 443 : 8080),
  }),
  opt({
    key: "bind",
    flag: "bind",
    kind: "string",
    help: "address the panel listens on",
    defaultText: "0.0.0.0",
    defaultValue: () => "0.0.0.0",
    check: (v) => (isListenAddress(v) ? undefined : "is not an IP address or host name"),
  }),
  opt({
    key: "dataDir",
    flag: "data-dir",
    kind: "path",
    help: "panel data: database, keys, panel log, mod packs",
    defaultText: "./data",
    defaultValue: () => resolve("data"),
  }),
  opt({
    key: "factorioDir",
    flag: "factorio-dir",
    kind: "path",
    help: "the Factorio installation (saves/, mods/, config/, data/)",
    defaultText: "<data-dir>/factorio",
    defaultValue: (c) => join(c.dataDir!, "factorio"),
  }),
  opt({
    key: "factorioBinary",
    flag: "factorio-binary",
    kind: "path",
    help:
      "the Factorio headless executable (a game version installed by the panel, while active, takes its place)",
    defaultText: "<factorio-dir>/bin/x64/factorio, or bin/arm64/factorio (the ARM64 build)",
    defaultValue: (c) => gameBinaryIn(c.factorioDir!),
  }),
  opt({
    key: "httpsCert",
    flag: "https-cert",
    kind: "path",
    help: "TLS certificate (PEM); with --https-key the panel serves HTTPS",
    defaultText: "none",
    defaultValue: () => null,
    check: readableFile,
  }),
  opt({
    key: "httpsKey",
    flag: "https-key",
    kind: "path",
    help: "TLS private key (PEM)",
    defaultText: "none",
    defaultValue: () => null,
    check: readableFile,
  }),
  opt({
    key: "httpsDomains",
    flag: "https-domain",
    kind: "list",
    help:
      "domain names (comma-separated) the panel gets an HTTPS certificate for from an ACME CA (Let's Encrypt unless " +
      "--acme-directory-url says otherwise) and renews itself; or set them on Settings > HTTPS",
    defaultText: "none",
    defaultValue: () => [],
    check: (list) => {
      const bad = list.find((d: string) => domainProblem(d) !== null);
      return bad === undefined ? undefined : `has "${bad}": ${domainProblem(bad)}`;
    },
    normalize: (list) => list.map((d: string) => d.toLowerCase().replace(/\.$/, "")),
  }),
  opt({
    key: "acmeDirectoryUrl",
    flag: "acme-directory-url",
    kind: "string",
    help: "the ACME CA's directory (e.g. Let's Encrypt's staging one, ZeroSSL, a step-ca at home)",
    defaultText: LETS_ENCRYPT,
    defaultValue: () => LETS_ENCRYPT,
    check: httpUrl,
  }),
  opt({
    key: "acmeEmail",
    flag: "acme-email",
    kind: "string",
    help: "e-mail address given to the ACME CA for the account (expiry notices)",
    defaultText: "none",
    defaultValue: () => "",
    check: (v) => (v === "" ? undefined : emailProblem(v) ?? undefined),
  }),
  opt({
    key: "acmeCaFile",
    flag: "acme-ca-file",
    kind: "path",
    help: "extra CA certificates (PEM) to trust for the ACME server, e.g. a step-ca at home",
    defaultText: "none",
    defaultValue: () => null,
    check: readableFile,
  }),
  opt({
    key: "acmeHttpPort",
    flag: "acme-http-port",
    kind: "int",
    min: 0,
    max: 65535,
    help: "plain-HTTP port where the panel answers the CA's HTTP-01 check and redirects browsers to HTTPS, " +
      "while HTTPS is automatic (0: none)",
    defaultText: "80",
    defaultValue: () => 80,
  }),
  opt({
    key: "acmeChallenge",
    flag: "acme-challenge",
    kind: "string",
    help:
      "how the CA checks the domain is yours: http-01 (it connects to --acme-http-port) or dns-01 (a DNS record " +
      "set through --acme-dns-provider; for a panel not reachable from the internet)",
    defaultText: "http-01",
    defaultValue: () => "http-01",
    check: (
      v,
    ) => ((ACME_CHALLENGES as readonly string[]).includes(v) ? undefined : "is not http-01 or dns-01"),
  }),
  opt({
    key: "acmeDnsProvider",
    flag: "acme-dns-provider",
    kind: "string",
    help: "the DNS service that holds the domain, for dns-01: duckdns or cloudflare",
    defaultText: "none",
    defaultValue: () => "",
    check: (
      v,
    ) => (v === "" || (DNS_PROVIDERS as readonly string[]).includes(v)
      ? undefined
      : "is not duckdns or cloudflare"),
  }),
  opt({
    key: "acmeDnsTokenFile",
    flag: "acme-dns-token-file",
    kind: "path",
    help: "file holding the DNS service's API token, for dns-01 (or set the token on Settings > HTTPS)",
    defaultText: "none",
    defaultValue: () => null,
    check: readableFile,
  }),
  opt({
    key: "acmeDnsWait",
    flag: "acme-dns-wait",
    kind: "int",
    min: 0,
    max: 3600,
    help:
      "seconds to wait after setting the DNS record before the CA checks it (the DNS service's servers need the time)",
    defaultText: "30",
    defaultValue: () => 30,
  }),
  opt({
    key: "duckdnsUrl",
    flag: "duckdns-url",
    kind: "string",
    help: "DuckDNS's update API (the token is sent only here)",
    defaultText: "https://www.duckdns.org",
    defaultValue: () => "https://www.duckdns.org",
    check: httpUrl,
  }),
  opt({
    key: "cloudflareApiUrl",
    flag: "cloudflare-api-url",
    kind: "string",
    help: "Cloudflare's API (the token is sent only here)",
    defaultText: "https://api.cloudflare.com/client/v4",
    defaultValue: () => "https://api.cloudflare.com/client/v4",
    check: httpUrl,
  }),
  opt({
    key: "localCa",
    flag: "local-ca",
    kind: "bool",
    help:
      "serve HTTPS with a certificate from the panel's own certificate authority, for a LAN without a domain " +
      "(each device trusts it once: Settings > HTTPS)",
    defaultText: "false",
    defaultValue: () => false,
  }),
  opt({
    key: "staticDir",
    flag: "static-dir",
    kind: "path",
    help: "the built web app",
    defaultText: "<panel>/pwa/dist",
    defaultValue: () => join(REPO_ROOT, "pwa", "dist"),
  }),
  opt({
    key: "allowedOrigins",
    flag: "allowed-origins",
    kind: "list",
    help:
      "extra origins allowed to change state, comma-separated (e.g. https://panel.example.org behind a proxy)",
    defaultText: "none",
    defaultValue: () => [],
    check: (list) => {
      const bad = list.find((o) => originOf(o) === null);
      return bad === undefined
        ? undefined
        : `has "${bad}", which is not an origin like https://host:port (no path, query or user name: a browser's Origin never has them)`;
    },
    // Browsers send the origin in its canonical form: lower-case host, no default port, no slash.
    normalize: (list) => list.map((o) => originOf(o)!),
  }),
  opt({
    key: "trustProxy",
    flag: "trust-proxy",
    kind: "bool",
    help: "trust X-Forwarded-For/-Proto from a reverse proxy",
    defaultText: "false",
    defaultValue: () => false,
  }),
  opt({
    key: "sessionDays",
    flag: "session-days",
    kind: "int",
    min: 1,
    max: 365,
    help: "days a sign-in lasts",
    defaultText: "30",
    defaultValue: () => 30,
  }),
  opt({
    key: "activityDays",
    flag: "activity-days",
    kind: "int",
    min: 1,
    max: 3650,
    help: "days the activity log keeps who did what (at most 100,000 records, the oldest go first)",
    defaultText: "90",
    defaultValue: () => 90,
  }),
  opt({
    key: "require2faAdmins",
    flag: "require-2fa-admins",
    kind: "bool",
    help: "admins must set up two-factor sign-in before anything else (their API tokens too)",
    defaultText: "false",
    defaultValue: () => false,
  }),
  opt({
    key: "maxUploadMb",
    flag: "max-upload-mb",
    kind: "int",
    min: 1,
    max: 1024 * 1024,
    help: "largest save or mod upload, in MiB",
    defaultText: "4096",
    defaultValue: () => 4096,
  }),
  opt({
    key: "saveCreateTimeout",
    flag: "save-create-timeout",
    kind: "int",
    min: 1,
    max: 86400,
    help: "seconds the game's --create may take to make a new save before it is stopped",
    defaultText: "600",
    defaultValue: () => 600,
  }),
  opt({
    key: "backupsDir",
    flag: "backups-dir",
    kind: "path",
    help: "where backups are kept (another disk is a good idea)",
    defaultText: "<data-dir>/backups",
    defaultValue: (c) => join(c.dataDir!, "backups"),
  }),
  opt({
    key: "backupSaveTimeout",
    flag: "backup-save-timeout",
    kind: "int",
    min: 1,
    max: 3600,
    help: "seconds a running game may take to save for a backup before the backup fails",
    defaultText: "120",
    defaultValue: () => 120,
  }),
  opt({
    key: "timeZone",
    flag: "time-zone",
    kind: "string",
    help: "time zone of schedules (IANA name, e.g. Europe/Berlin)",
    defaultText: "the system's",
    defaultValue: () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC",
    lazyDefault: true,
    check: (v) => {
      try {
        new Intl.DateTimeFormat("en", { timeZone: v });
        return undefined;
      } catch {
        return "is not a time zone name (e.g. Europe/Berlin, UTC)";
      }
    },
  }),
  opt({
    key: "modPortalUrl",
    flag: "mod-portal-url",
    kind: "string",
    help: "the Factorio mod portal (mod list, details, downloads); the portal token is sent only here",
    defaultText: "https://mods.factorio.com",
    defaultValue: () => "https://mods.factorio.com",
    check: httpUrl,
  }),
  opt({
    key: "authUrl",
    flag: "auth-url",
    kind: "string",
    help: "the Factorio auth server (mod portal login)",
    defaultText: "https://auth.factorio.com",
    defaultValue: () => "https://auth.factorio.com",
    check: httpUrl,
  }),
  opt({
    key: "modPortalCacheMinutes",
    flag: "mod-portal-cache-minutes",
    kind: "int",
    min: 1,
    max: 7 * 24 * 60,
    help: "how long the mod portal's list of all mods is kept before it is fetched again",
    defaultText: "60",
    defaultValue: () => 60,
  }),
  opt({
    key: "rconPort",
    flag: "rcon-port",
    kind: "int",
    min: 0,
    max: 65535,
    help: "port of the game's RCON console on 127.0.0.1 (0 picks a free one and keeps it)",
    defaultText: "0",
    defaultValue: () => 0,
  }),
  opt({
    key: "autoRestart",
    flag: "auto-restart",
    kind: "bool",
    help: "start the game again after it crashes",
    defaultText: "false",
    defaultValue: () => false,
  }),
  opt({
    key: "autoRestartMax",
    flag: "auto-restart-max",
    kind: "int",
    min: 1,
    max: 100,
    help: "crashes in a row after which the automatic restart gives up",
    defaultText: "5",
    defaultValue: () => 5,
  }),
  opt({
    key: "autoRestartDelay",
    flag: "auto-restart-delay",
    kind: "int",
    min: 1,
    max: 3600,
    help: "seconds before the first automatic restart (doubling after each crash in a row, up to 10 minutes)",
    defaultText: "10",
    defaultValue: () => 10,
  }),
  opt({
    key: "stopGameOnExit",
    flag: "stop-game-on-exit",
    kind: "bool",
    help:
      "save and stop the game when the panel exits (for containers, where the game cannot outlive the panel)",
    defaultText: "false",
    defaultValue: () => false,
  }),
  opt({
    key: "importFsm",
    flag: "import-fsm",
    kind: "path",
    help:
      "import users, mod packs and the portal login of the old panel (factorio-server-manager) from DIR (its conf.json), then start",
    defaultText: "none",
    defaultValue: () => null,
  }),
  opt({
    key: "dryRun",
    flag: "dry-run",
    kind: "bool",
    help: "with --import-fsm or --import: print what would be imported, change nothing, and exit",
    defaultText: "false",
    defaultValue: () => false,
  }),
  opt({
    key: "exportFile",
    flag: "export",
    kind: "path",
    help:
      "write the panel's users, settings, schedules, alert channels and mod packs to FILE (a zip), then exit",
    defaultText: "none",
    defaultValue: () => null,
  }),
  opt({
    key: "exportSecrets",
    flag: "export-secrets",
    kind: "bool",
    help:
      "with --export: include password hashes, second factors, channel URLs and tokens, the mod portal login (file is owner-only)",
    defaultText: "false",
    defaultValue: () => false,
  }),
  opt({
    key: "exportSaves",
    flag: "export-saves",
    kind: "bool",
    help: "with --export: include the game's saves",
    defaultText: "false",
    defaultValue: () => false,
  }),
  opt({
    key: "exportBackups",
    flag: "export-backups",
    kind: "bool",
    help: "with --export: include the backups",
    defaultText: "false",
    defaultValue: () => false,
  }),
  opt({
    key: "exportServer",
    flag: "export-server",
    kind: "int",
    help:
      "with --export: write only server N (its saves, mods, settings, schedules, player history; its backups with --export-backups), to import into another panel as a new server",
    defaultText: "none (the whole panel)",
    defaultValue: () => 0,
    min: 0,
  }),
  opt({
    key: "importFile",
    flag: "import",
    kind: "path",
    help: "import an archive made by --export (into a new panel), then start",
    defaultText: "none",
    defaultValue: () => null,
  }),
  opt({
    key: "importMerge",
    flag: "import-merge",
    kind: "bool",
    help: "with --import: add to a panel that already has users (what exists is kept as it is)",
    defaultText: "false",
    defaultValue: () => false,
  }),
  opt({
    key: "pushSubject",
    flag: "push-subject",
    kind: "string",
    help:
      "contact sent to push services with every notification (VAPID subject): mailto:you@example.org or an https:// URL",
    defaultText: PUSH_SUBJECT_DEFAULT,
    defaultValue: () => PUSH_SUBJECT_DEFAULT,
    check: (
      v,
    ) => (/^mailto:[^\s@]+@[^\s@]+$/.test(v) || /^https:\/\/[^\s/]+/.test(v)
      ? undefined
      : "is not a mailto: address or an https:// URL"),
  }),
  opt({
    key: "pushCaFile",
    flag: "push-ca-file",
    kind: "path",
    help:
      "extra CA certificates (PEM) to trust for push services, e.g. a self-hosted one behind a private CA",
    defaultText: "none",
    defaultValue: () => null,
    check: readableFile,
  }),
  opt({
    key: "pushPrivateHosts",
    flag: "push-private-hosts",
    kind: "list",
    help:
      "push service hosts (names or addresses, comma-separated) that may be on this machine or a private network, " +
      "e.g. a self-hosted one; any other push endpoint must be public",
    defaultText: "none",
    defaultValue: () => [],
    check: (
      list,
    ) => (list.every((h: string) => /^[A-Za-z0-9.:-]+$/.test(h))
      ? undefined
      : "must be host names or IP addresses, comma-separated"),
    normalize: (list) => list.map((h: string) => h.toLowerCase()),
  }),
  opt({
    key: "factorioVersion",
    flag: "factorio-version",
    kind: "string",
    help: "install this game version on first start when no game is found: stable, latest or an exact x.y.z",
    defaultText: "none",
    defaultValue: () => "",
    check: (
      v,
    ) => (v === "" || /^(stable|latest|\d+\.\d+\.\d+)$/.test(v)
      ? undefined
      : "is not stable, latest or a version like 2.0.77"),
  }),
  opt({
    key: "factorioComUrl",
    flag: "factorio-com-url",
    kind: "string",
    help:
      "factorio.com: the version API, the archive page, the checksum list and the downloads are reached under it",
    defaultText: "https://factorio.com",
    defaultValue: () => "https://factorio.com",
    check: httpUrl,
  }),
  opt({
    key: "factorioArch",
    flag: "factorio-arch",
    kind: "string",
    help: "the game build the installer takes: arm64 (Factorio 2.1 and later; older versions get x64) or x64",
    defaultText: "this machine's",
    defaultValue: () => (Deno.build.arch === "aarch64" ? "arm64" : "x64"),
    check: (v) => (v === "x64" || v === "arm64" ? undefined : "is not x64 or arm64"),
  }),
  opt({
    key: "factorioKeepVersions",
    flag: "factorio-keep-versions",
    kind: "int",
    min: 1,
    max: 100,
    help: "game versions kept installed (the active one and the one before it first; older ones are deleted)",
    defaultText: "2",
    defaultValue: () => 2,
  }),
  opt({
    key: "factorioUpdateCheckHours",
    flag: "factorio-update-check-hours",
    kind: "int",
    min: 0,
    max: 24 * 365,
    help: "hours between checks for a new game version on factorio.com (0 turns the check off)",
    defaultText: "24",
    defaultValue: () => 24,
  }),
  opt({
    key: "updateWarnings",
    flag: "update-warnings",
    kind: "list",
    help: "seconds before an update restart at which players in game are warned, comma-separated",
    defaultText: "300,60,10",
    defaultValue: () => ["300", "60", "10"],
    check: (
      list,
    ) => (list.every((n: string) => /^\d{1,4}$/.test(n) && Number(n) <= 3600)
      ? undefined
      : "must be whole seconds from 0 to 3600, like 300,60,10"),
  }),
  opt({
    key: "alertMergeSeconds",
    flag: "alert-merge-seconds",
    kind: "int",
    min: 1,
    max: 86400,
    help:
      'repeats of an alert within this many seconds are merged into one message ("crashed 3 times in 5 minutes")',
    defaultText: "300",
    defaultValue: () => 300,
  }),
  opt({
    key: "alertStillDownMinutes",
    flag: "alert-still-down-minutes",
    kind: "int",
    min: 0,
    max: 1440,
    help: "alert again when the game is still down this many minutes after a crash (0: never)",
    defaultText: "10",
    defaultValue: () => 10,
  }),
  opt({
    key: "alertDiskLowPercent",
    flag: "alert-disk-low-percent",
    kind: "int",
    min: 0,
    max: 100,
    help: "alert when less than this share (percent) of the saves' or data dir's volume is free (0: never)",
    defaultText: "10",
    defaultValue: () => 10,
  }),
  opt({
    key: "healthSampleSeconds",
    flag: "health-sample-seconds",
    kind: "int",
    min: 1,
    max: 3600,
    help: "seconds between samples of the game's health (CPU, memory, disk, players, UPS)",
    defaultText: "10",
    defaultValue: () => 10,
  }),
  opt({
    key: "alertUpsBelow",
    flag: "alert-ups-below",
    kind: "int",
    min: 0,
    max: 1000,
    help: "alert when the game runs below this many updates per second (60 is full speed; 0: never)",
    defaultText: "50",
    defaultValue: () => 50,
  }),
  opt({
    key: "alertUpsSamples",
    flag: "alert-ups-samples",
    kind: "int",
    min: 1,
    max: 1000,
    help: "how many samples in a row must be below --alert-ups-below before the alert",
    defaultText: "3",
    defaultValue: () => 3,
  }),
  opt({
    key: "alertUpsCooldownMinutes",
    flag: "alert-ups-cooldown-minutes",
    kind: "int",
    min: 0,
    max: 1440,
    help: "after a low-UPS alert and its recovery, minutes before another low-UPS alert",
    defaultText: "30",
    defaultValue: () => 30,
  }),
  opt({
    key: "alertHungSeconds",
    flag: "alert-hung-seconds",
    kind: "int",
    min: 0,
    max: 3600,
    help:
      "alert when the game's process runs but its console has not answered for this many seconds (0: never)",
    defaultText: "60",
    defaultValue: () => 60,
  }),
  opt({
    key: "alertMemoryMb",
    flag: "alert-memory-mb",
    kind: "int",
    min: 0,
    max: 16 * 1024 * 1024,
    help: "alert when the game's resident memory is above this many MiB (0: never)",
    defaultText: "0",
    defaultValue: () => 0,
  }),
  opt({
    key: "metricsFrom",
    flag: "metrics-from",
    kind: "list",
    help:
      "addresses that may read /metrics without an API token, comma-separated (e.g. 127.0.0.1 for a local Prometheus)",
    defaultText: "none",
    defaultValue: () => [],
    check: (
      list,
    ) => (list.every((a: string) => /^[0-9A-Fa-f.:]+$/.test(a))
      ? undefined
      : "must be IP addresses, comma-separated"),
  }),
  opt({
    key: "playerCountDays",
    flag: "player-count-days",
    kind: "int",
    min: 1,
    max: 3650,
    help: "days the counts of players online are kept (for the chart on Controls)",
    defaultText: "30",
    defaultValue: () => 30,
  }),
];

function readableFile(value: unknown): string | undefined {
  if (value === null) return undefined;
  try {
    return statSync(String(value)).isFile() ? undefined : "is not a file";
  } catch {
    return "does not exist or cannot be read";
  }
}

export function isListenAddress(v: string): boolean {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(v)) return v.split(".").every((p) => Number(p) <= 255);
  if (v.includes(":")) return /^[0-9a-fA-F:.]+$/.test(v);
  return /^[a-zA-Z0-9]([a-zA-Z0-9-]{0,62})(\.[a-zA-Z0-9]([a-zA-Z0-9-]{0,62}))*$/.test(v);
}

function httpUrl(v: string): string | undefined {
  try {
    const u = new URL(v);
    if ((u.protocol === "http:" || u.protocol === "https:") && !u.search && !u.hash && !u.username) {
      return undefined;
    }
  } catch {
    // falls through
  }
  return "is not an http(s) URL without query, like https://mods.factorio.com";
}

/** The origin a browser would send for `v`, or null when no browser's Origin could ever equal it. */
function originOf(v: string): string | null {
  try {
    const u = new URL(v.trim());
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    if (u.username || u.password || u.search || u.hash || (u.pathname !== "/" && u.pathname !== "")) {
      return null;
    }
    return u.origin;
  } catch {
    return null;
  }
}
