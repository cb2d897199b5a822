// The panel's certificate: where it comes from (an ACME CA, the files of --https-cert/--https-key, or the
// panel's own CA), getting it, keeping it (owner-only files under <data-dir>/https/), renewing it, and
// telling the rest of the panel. Every new certificate is emitted on the bus as "https.certificate" with its
// PEMs (listener.ts serves it); a failure to get or renew one as "https.failed" (alerts/panel.ts alerts).
//
// <data-dir>/https/
//   settings.json        ACME settings made on Settings > HTTPS (domains, e-mail, challenge, DNS service)
//   dns-token            the DNS service's API token (0600), never answered by the API
//   acme/                account.key (0600), account.json (its URL), cert.pem, key.pem (0600), issued.json
//   local-ca/            ca.pem, ca.key (0600), cert.pem (this machine's, then the CA), key.pem (0600)
//
// The modules that make or read certificates (acme-client, @peculiar/x509, node:crypto) are loaded when they
// are first needed: an ordinary start without HTTPS loads none of them (backend/nodecompat_test.ts).

import { join } from "node:path";
import type { Config } from "../boot/config.ts";
import type { EventBus } from "../lib/events.ts";
import type { Logger } from "../lib/log.ts";
import { ensureDir, writeFileAtomic, writeJsonAtomic, writeSecretFile } from "../lib/fsutil.ts";
import { Conflict, HttpError, Invalid, StartupError } from "../lib/errors.ts";
import {
  ACME_CHALLENGES,
  type AcmeChallenge,
  CA_DOWNLOAD_PATH,
  type CertificateFacts,
  DNS_PROVIDER_LABELS,
  DNS_PROVIDERS,
  type DnsProvider,
  emailProblem,
  type HttpsMode,
  httpsSettingsProblem,
  type HttpsState,
} from "../../shared/https.ts";
import { renewalTime } from "./lifetime.ts";
import { ChallengeResponder } from "./responder.ts";
import { UNSAFE_TEXT } from "../../shared/validation.ts";

const certsModule = () => import("./certs.ts");
const acmeModule = () => import("./acme.ts");
// @peculiar/x509 needs the Reflect polyfill before it loads. In the bundle it sits in a chunk shared with
// @simplewebauthn/server, which runs before localca.ts's own first import: so the polyfill is loaded first.
const localCaModule = () => import("reflect-metadata").then(() => import("./localca.ts"));
const dnsModule = () => import("./dns.ts");

/** The certificate the panel serves: chain and key (PEM) and its validity (ms). */
export interface ServedCertificate {
  cert: string;
  key: string;
  notBefore: number;
  notAfter: number;
}

/** What went wrong getting or renewing a certificate (bus event "https.failed"). */
export interface CertificateFailure {
  /** The reason, as the CA, the DNS service or the files said it. */
  reason: string;
  names: string[];
  /** The end of the certificate still served, or null when there is none. */
  notAfter: number | null;
  /** When the panel tries again, or null when it does not by itself. */
  nextTry: number | null;
}

/** Waits after a failed attempt, in a row (a CA counts failed checks: Let's Encrypt allows 5 an hour per name). */
const RETRY_MS = [2, 10, 30, 60, 180, 360, 720].map((m) => m * 60_000);
/** The longest timer: setTimeout overflows past 24.8 days, and the local CA's addresses are looked at hourly. */
const CHECK_MS = 3_600_000;
/** How often the --https-cert/--https-key files are stat'ed besides their folder's watch. */
const FILE_POLL_MS = 10_000;
/** certbot writes the certificate and the key one after another: read them once it has settled. */
const FILE_SETTLE_MS = 500;

interface PageSettings {
  domains: string[];
  email: string;
  challenge: AcmeChallenge;
  dns_provider: DnsProvider | null;
}

interface Loaded {
  served: ServedCertificate;
  facts: CertificateFacts;
}

export interface ManagerDeps {
  config: Config;
  bus: EventBus;
  log: Logger;
  now?: () => number;
}

export class CertificateManager {
  readonly #config: Config;
  readonly #bus: EventBus;
  readonly #log: Logger;
  readonly #now: () => number;
  readonly #dir: string;
  #mode: HttpsMode;
  #page: PageSettings | null;
  #current: Loaded | null = null;
  #ca: { cert: string; facts: CertificateFacts } | null = null;
  #lastError: { message: string; at: string } | null = null;
  #failures = 0;
  #retryAt: number | null = null;
  #working: Promise<void> | null = null;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #responder: ChallengeResponder | null = null;
  #httpsPort: number;
  #watcher: Deno.FsWatcher | null = null;
  #poll: ReturnType<typeof setInterval> | undefined;
  #settle: ReturnType<typeof setTimeout> | undefined;
  #fileStamp = "";
  #closed = false;
  #started: Promise<void> | null = null;

  constructor(deps: ManagerDeps) {
    this.#config = deps.config;
    this.#bus = deps.bus;
    this.#log = deps.log;
    this.#now = deps.now ?? Date.now;
    this.#dir = join(deps.config.dataDir, "https");
    this.#httpsPort = deps.config.port;
    this.#page = this.#readPageSettings();
    const c = deps.config;
    this.#mode = c.httpsCert
      ? "files"
      : c.localCa
      ? "local-ca"
      : c.httpsDomains.length > 0 || this.#page
      ? "acme"
      : "off";
  }

  /** The option that fixed the mode on the command line, or null when the page may set it. */
  get #fixedBy(): HttpsState["fixed_by"] {
    const c = this.#config;
    return c.httpsCert
      ? "--https-cert"
      : c.localCa
      ? "--local-ca"
      : c.httpsDomains.length > 0
      ? "--https-domain"
      : null;
  }

  /** The ACME settings in force: the command line's when it names domains, else the page's, else the defaults. */
  get #acme(): PageSettings {
    const c = this.#config;
    if (c.httpsDomains.length > 0 || !this.#page) {
      return {
        domains: c.httpsDomains,
        email: c.acmeEmail,
        challenge: c.acmeChallenge as AcmeChallenge,
        dns_provider: (c.acmeDnsProvider || null) as DnsProvider | null,
      };
    }
    return this.#page;
  }

  get mode(): HttpsMode {
    return this.#mode;
  }

  /**
   * The names the panel is served as over HTTPS (the host check accepts them): the ACME domains in force,
   * else the names of the certificate served (--https-cert's files, the local CA's).
   */
  hostNames(): string[] {
    if (this.#mode === "acme") return this.#acme.domains;
    return this.#current?.facts.names ?? [];
  }

  /** The certificate to serve, or null (plain HTTP until one comes). */
  current(): ServedCertificate | null {
    return this.#current?.served ?? null;
  }

  /** The local CA's certificate (PEM) while --local-ca is on: what GET /ca.crt answers. */
  caCertificate(): string | null {
    return this.#mode === "local-ca" ? this.#ca?.cert ?? null : null;
  }

  /** The port HTTPS is served on: where the plain-HTTP listener redirects to (the listener says, once it listens). */
  setHttpsPort(port: number): void {
    this.#httpsPort = port;
  }

  /**
   * HSTS for HTTPS answers once a certificate from a public CA is served: browsers then never try plain HTTP
   * for the name again. Not for the local CA or files: a device that stops trusting those must still get in.
   */
  hsts(): string | null {
    return this.#mode === "acme" && this.#current ? "max-age=31536000" : null;
  }

  /**
   * Loads what is kept, starts the plain-HTTP listener, the file watch and the renewal timer, and gets a
   * certificate when none usable is kept. Resolves once the panel has one to serve or the first try failed
   * (the failure is in state() and was emitted); rejects only when --https-cert/--https-key cannot be served.
   */
  start(): Promise<void> {
    return this.#started ??= this.#start().catch((e) => {
      this.#lastError = { message: (e as Error).message, at: new Date(this.#now()).toISOString() };
      throw e;
    });
  }

  async #start(): Promise<void> {
    if (this.#mode === "off") return;
    ensureDir(this.#dir, 0o700);
    if (this.#mode === "files") {
      const loaded = await this.#readFiles();
      if (typeof loaded === "string") {
        throw new StartupError(`Cannot serve --https-cert/--https-key: ${loaded}`);
      }
      this.#current = loaded;
      this.#watchFiles();
      return;
    }
    this.#startResponder();
    if (this.#mode === "local-ca") this.#current = await this.#readKept(join(this.#dir, "local-ca"));
    else this.#current = await this.#readKeptAcme();
    if (this.#mode === "local-ca") await this.#loadCa();
    if (this.#due()) await this.#renew("start").catch(() => {});
    this.#schedule();
  }

  /** What GET /api/https answers: never a key, a token or an account credential. */
  state(): HttpsState {
    const a = this.#acme;
    const c = this.#config;
    const renewing = this.#mode === "acme" || this.#mode === "local-ca";
    const next = renewing && this.#current
      ? this.#retryAt ?? renewalTime(this.#current.served.notBefore, this.#current.served.notAfter)
      : this.#retryAt;
    return {
      mode: this.#mode,
      fixed_by: this.#fixedBy,
      certificate: this.#current?.facts ?? null,
      next_renewal: renewing && next !== null ? new Date(next).toISOString() : null,
      busy: this.#working !== null,
      https_port: this.#httpsPort,
      last_error: this.#lastError,
      acme: {
        directory_url: c.acmeDirectoryUrl,
        domains: a.domains,
        email: a.email,
        challenge: a.challenge,
        dns_provider: a.dns_provider,
        has_dns_token: this.#dnsToken() !== null,
        http_port: c.acmeHttpPort,
        http_listening: this.#responder?.listening ?? false,
      },
      local_ca: this.#mode === "local-ca" && this.#ca
        ? {
          subject: this.#ca.facts.subject,
          not_after: this.#ca.facts.not_after,
          fingerprint_sha256: this.#ca.facts.fingerprint_sha256,
          download_path: CA_DOWNLOAD_PATH,
          names: this.#current?.facts.names ?? [],
        }
        : null,
    };
  }

  /**
   * POST /api/https: gets a certificate for the settings in `body` and, once it has one, keeps the settings
   * and serves it. A refusal by the CA or the DNS service answers 424 with its reason and keeps nothing.
   */
  async configure(body: Record<string, unknown>): Promise<HttpsState> {
    const fixed = this.#fixedBy;
    if (fixed) {
      throw new Conflict(
        `HTTPS is set on the command line (${fixed}): change it there and restart the panel.`,
      );
    }
    const settings = this.#parseSettings(body);
    const token = body.dns_token;
    if (
      token !== undefined &&
      (typeof token !== "string" || token.trim() === "" || token.length > 4096 || UNSAFE_TEXT.test(token) ||
        /\s/.test(token.trim()))
    ) {
      throw new Invalid("The DNS API token must be the token as the DNS service shows it (no spaces).");
    }
    const newToken = typeof token === "string" ? token.trim() : null;
    if (settings.challenge === "dns-01" && !newToken && this.#dnsToken() === null) {
      throw new Invalid(
        `The DNS-01 check needs the ${DNS_PROVIDER_LABELS[settings.dns_provider!]} API token.`,
      );
    }
    await this.#exclusive(async () => {
      if (settings.challenge === "http-01") this.#startResponder();
      const pair = await this.#obtain(settings, newToken ?? undefined);
      this.#stillOpen();
      // Only now: a refused attempt keeps the settings that work.
      ensureDir(this.#dir, 0o700);
      if (newToken) writeSecretFile(join(this.#dir, "dns-token"), newToken + "\n");
      writeJsonAtomic(join(this.#dir, "settings.json"), settings, 0o600);
      this.#page = settings;
      this.#mode = "acme";
      this.#failures = 0;
      this.#retryAt = null;
      this.#lastError = null;
      await this.#keepAcme(pair, settings.domains);
      this.#startResponder();
    }).catch((e) => {
      throw this.#answerOf(e);
    });
    this.#schedule();
    return this.state();
  }

  /** POST /api/https/renew: a new certificate now (ACME, the local CA); 424 with the reason when refused. */
  async renewNow(): Promise<HttpsState> {
    if (this.#mode === "off") {
      throw new Conflict("The panel has no certificate to renew: set up HTTPS first.");
    }
    if (this.#mode === "files") {
      throw new Conflict(
        "The certificate comes from the files of --https-cert and --https-key: whoever writes them renews it (the panel reads them again when they change).",
      );
    }
    await this.#renew("now").catch((e) => {
      throw this.#answerOf(e);
    });
    return this.state();
  }

  /** Stops the listener, the watch and the timers. A certificate being obtained finishes unheard. */
  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    clearInterval(this.#poll);
    clearTimeout(this.#settle);
    try {
      this.#watcher?.close();
    } catch {
      // already closed
    }
    await this.#responder?.stop();
  }

  // ---- getting certificates ----

  /** An attempt that ends after close() writes nothing (the data dir may be going away). */
  #stillOpen(): void {
    if (this.#closed) throw new CertificateError("The panel is shutting down");
  }

  /** Whether the certificate served must be renewed now (or there is none). */
  #due(): boolean {
    if (!this.#current) return true;
    const { notBefore, notAfter } = this.#current.served;
    if (this.#now() >= renewalTime(notBefore, notAfter)) return true;
    if (this.#mode === "acme") return false;
    // The local CA's certificate names this machine's addresses: a new one when they changed.
    return this.#localNamesChanged !== null && this.#localNamesChanged();
  }

  #localNamesChanged: (() => boolean) | null = null;

  /** Runs `work` unless a certificate is being obtained already (409). */
  #exclusive(work: () => Promise<void>): Promise<void> {
    if (this.#working) {
      return Promise.reject(
        new Conflict("A certificate is being obtained right now: wait for it to finish."),
      );
    }
    const run = work().finally(() => (this.#working = null));
    this.#working = run;
    return run;
  }

  /** A new certificate for the mode in force; `why` is "start", "timer" or "now" (the admin asked). */
  #renew(why: "start" | "timer" | "now"): Promise<void> {
    if (why !== "now" && this.#working) return this.#working;
    return this.#exclusive(async () => {
      try {
        if (this.#mode === "local-ca") await this.#renewLocal();
        else {
          const settings = this.#acme;
          await this.#keepAcme(await this.#obtain(settings), settings.domains);
        }
        this.#failures = 0;
        this.#retryAt = null;
        this.#lastError = null;
      } catch (e) {
        const reason = (e as Error).message;
        this.#failures++;
        const left = this.#current ? this.#current.served.notAfter - this.#now() : Infinity;
        const wait = Math.max(
          10_000,
          Math.min(RETRY_MS[Math.min(this.#failures, RETRY_MS.length) - 1], left / 4),
        );
        this.#retryAt = this.#now() + wait;
        this.#lastError = { message: reason, at: new Date(this.#now()).toISOString() };
        this.#log.error("Could not get an HTTPS certificate", {
          reason,
          next_try: new Date(this.#retryAt).toISOString(),
        });
        // The admin who asked sees the reason in the answer; the panel's own attempts are alerted.
        if (why !== "now" && !this.#closed) {
          const failure: CertificateFailure = {
            reason,
            names: this.#mode === "acme" ? this.#acme.domains : this.#current?.facts.names ?? [],
            notAfter: this.#current?.served.notAfter ?? null,
            nextTry: this.#retryAt,
          };
          this.#bus.emit("https.failed", failure);
        }
        throw e;
      } finally {
        this.#schedule();
      }
    });
  }

  /** Gets a certificate from the ACME CA for `s` (the page's new token, or the kept one). */
  async #obtain(s: PageSettings, newToken?: string): Promise<{ cert: string; key: string }> {
    const c = this.#config;
    const problem = httpsSettingsProblem(s);
    if (problem) throw new CertificateError(problem);
    let solver: import("./acme.ts").ChallengeSolver;
    if (s.challenge === "http-01") {
      const responder = this.#responder;
      if (!responder?.listening) {
        throw new CertificateError(
          c.acmeHttpPort === 0
            ? "The HTTP-01 check needs the plain-HTTP listener, which --acme-http-port 0 turns off: use DNS-01, or give a port."
            : `The HTTP-01 check needs port ${c.acmeHttpPort}, where the panel cannot listen: ${
              this.#responderProblem ?? "not started"
            }.`,
        );
      }
      solver = { type: "http-01", set: (t, k) => responder.set(t, k), remove: (t) => responder.remove(t) };
    } else {
      const token = newToken ?? this.#dnsToken();
      if (!token) {
        throw new CertificateError(
          `The DNS-01 check needs the ${
            DNS_PROVIDER_LABELS[s.dns_provider!]
          } API token: set it on Settings > HTTPS or with --acme-dns-token-file.`,
        );
      }
      const { dnsService } = await dnsModule();
      solver = {
        type: "dns-01",
        service: dnsService(s.dns_provider!, token, {
          duckdns: c.duckdnsUrl,
          cloudflare: c.cloudflareApiUrl,
        }),
        waitMs: c.acmeDnsWait * 1000,
      };
    }
    let caPem: string | null = null;
    if (c.acmeCaFile) {
      try {
        caPem = Deno.readTextFileSync(c.acmeCaFile);
      } catch (e) {
        throw new CertificateError(`Cannot read --acme-ca-file ${c.acmeCaFile}: ${(e as Error).message}`);
      }
    }
    const { obtainCertificate, AcmeError } = await acmeModule();
    const { DnsError } = await dnsModule();
    const started = this.#now();
    try {
      const pair = await obtainCertificate(
        {
          directoryUrl: c.acmeDirectoryUrl,
          caPem,
          email: s.email,
          dir: join(this.#dir, "acme"),
          log: this.#log,
        },
        s.domains,
        solver,
      );
      this.#log.info("Got an HTTPS certificate", {
        names: s.domains.join(","),
        challenge: s.challenge,
        ms: this.#now() - started,
      });
      return pair;
    } catch (e) {
      if (e instanceof AcmeError || e instanceof DnsError) throw new CertificateError(e.message);
      throw e;
    }
  }

  /** Keeps an ACME certificate (owner-only key) and serves it. */
  async #keepAcme(pair: { cert: string; key: string }, names: string[]): Promise<void> {
    this.#stillOpen();
    const dir = join(this.#dir, "acme");
    ensureDir(dir, 0o700);
    const loaded = await this.#parse(pair.cert, pair.key);
    if (typeof loaded === "string") {
      throw new CertificateError(`The CA's certificate cannot be served: ${loaded}`);
    }
    // The key first: a certificate beside an old key would not load, an old certificate beside a new key neither.
    writeSecretFile(join(dir, "key.pem"), pair.key);
    writeFileAtomic(join(dir, "cert.pem"), pair.cert);
    writeJsonAtomic(join(dir, "issued.json"), { directory_url: this.#config.acmeDirectoryUrl, names });
    this.#serve(loaded);
  }

  /** The kept ACME certificate, when it is for the names and the CA in force and still valid. */
  async #readKeptAcme(): Promise<Loaded | null> {
    const dir = join(this.#dir, "acme");
    let issued: { directory_url?: string; names?: string[] } = {};
    try {
      issued = JSON.parse(Deno.readTextFileSync(join(dir, "issued.json")));
    } catch {
      return null;
    }
    const wanted = [...this.#acme.domains].sort().join(",");
    if (
      issued.directory_url !== this.#config.acmeDirectoryUrl ||
      [...issued.names ?? []].sort().join(",") !== wanted
    ) return null;
    const kept = await this.#readKept(dir);
    return kept && kept.served.notAfter > this.#now() ? kept : null;
  }

  /** cert.pem and key.pem of `dir`, when both are there and belong together. */
  async #readKept(dir: string): Promise<Loaded | null> {
    let cert: string, key: string;
    try {
      cert = Deno.readTextFileSync(join(dir, "cert.pem"));
      key = Deno.readTextFileSync(join(dir, "key.pem"));
    } catch {
      return null;
    }
    const loaded = await this.#parse(cert, key);
    if (typeof loaded === "string") {
      this.#log.warn("A kept certificate cannot be used; the panel gets a new one", { dir, why: loaded });
      return null;
    }
    return loaded;
  }

  /** Reads a pair: its facts, or why it cannot be served. */
  async #parse(cert: string, key: string): Promise<Loaded | string> {
    const { readCertificate, keyProblem } = await certsModule();
    let parsed;
    try {
      parsed = readCertificate(cert);
    } catch (e) {
      return `the certificate ${(e as Error).message}`;
    }
    const problem = keyProblem(cert, key);
    if (problem) return problem;
    return {
      served: { cert, key, notBefore: parsed.notBefore, notAfter: parsed.notAfter },
      facts: parsed.facts,
    };
  }

  /** Serves `loaded` from now on: the listener hears of it. */
  #serve(loaded: Loaded): void {
    this.#current = loaded;
    if (this.#closed) return;
    this.#bus.emit("https.certificate", { ...loaded.served });
  }

  // ---- the local CA ----

  async #loadCa(): Promise<void> {
    const dir = join(this.#dir, "local-ca");
    ensureDir(dir, 0o700);
    const { createCa, machineNames } = await localCaModule();
    let cert: string | null = null;
    try {
      cert = Deno.readTextFileSync(join(dir, "ca.pem"));
      Deno.statSync(join(dir, "ca.key"));
    } catch {
      cert = null;
    }
    if (!cert) {
      const made = await createCa(hostName(), this.#now());
      writeSecretFile(join(dir, "ca.key"), made.key);
      writeFileAtomic(join(dir, "ca.pem"), made.cert);
      cert = made.cert;
      this.#log.info("Made the panel's local certificate authority", { file: join(dir, "ca.pem") });
      // A leaf of an earlier CA is of no use to devices that trust this one.
      this.#current = null;
    }
    const { readCertificate } = await certsModule();
    this.#ca = { cert, facts: readCertificate(cert).facts };
    // The leaf names this machine's addresses: a new one when they are not all in it.
    this.#localNamesChanged = () => {
      const have = new Set(this.#current?.facts.names.map((n) => n.toLowerCase()) ?? []);
      return machineNames().some((n) => !have.has(n.toLowerCase()));
    };
    if (
      this.#current && !this.#current.served.cert.includes(cert.trim().split("\n").slice(1, -1).join("\n"))
    ) this.#current = null;
  }

  async #renewLocal(): Promise<void> {
    if (!this.#ca) await this.#loadCa();
    const dir = join(this.#dir, "local-ca");
    const { issueLeaf, machineNames } = await localCaModule();
    const key = Deno.readTextFileSync(join(dir, "ca.key"));
    const names = machineNames();
    const pair = await issueLeaf({ cert: this.#ca!.cert, key }, names, this.#now());
    this.#stillOpen();
    const loaded = await this.#parse(pair.cert, pair.key);
    if (typeof loaded === "string") {
      throw new CertificateError(`The local CA's certificate cannot be served: ${loaded}`);
    }
    writeSecretFile(join(dir, "key.pem"), pair.key);
    writeFileAtomic(join(dir, "cert.pem"), pair.cert);
    this.#log.info("Made a certificate for this machine with the local CA", { names: names.join(",") });
    this.#serve(loaded);
  }

  // ---- files of --https-cert/--https-key ----

  async #readFiles(): Promise<Loaded | string> {
    const c = this.#config;
    let cert: string, key: string;
    try {
      cert = Deno.readTextFileSync(c.httpsCert!);
      key = Deno.readTextFileSync(c.httpsKey!);
    } catch (e) {
      return `cannot read the files: ${(e as Error).message}`;
    }
    return await this.#parse(cert, key);
  }

  /** inode, size and times of both files (through their links: certbot's live/ names are links). */
  #stampFiles(): string {
    const c = this.#config;
    return [c.httpsCert!, c.httpsKey!].map((f) => {
      try {
        const s = Deno.statSync(f);
        return `${s.ino}:${s.size}:${s.mtime?.getTime()}:${s.ctime?.getTime()}`;
      } catch {
        return "-";
      }
    }).join("|");
  }

  /**
   * Reads --https-cert/--https-key again when they change (certbot, `tailscale cert`, a proxy's export): a
   * watch of their folders, and their stamps every 10 s for what a watch misses (a network filesystem, a
   * link replaced in a folder the watch does not cover). A pair that does not load (half written, the key
   * not yet there) is tried again at the next change or look; the panel keeps serving the one it has.
   */
  #watchFiles(): void {
    const c = this.#config;
    this.#fileStamp = this.#stampFiles();
    const folders = [...new Set([c.httpsCert!, c.httpsKey!].map((f) => f.replace(/\/[^/]*$/, "") || "/"))];
    try {
      this.#watcher = Deno.watchFs(folders, { recursive: false });
      (async () => {
        for await (const _ of this.#watcher!) this.#filesMayHaveChanged();
      })().catch(() => {});
    } catch (e) {
      this.#log.warn("Cannot watch the certificate files; they are looked at every 10 s", {
        error: String(e),
      });
    }
    this.#poll = setInterval(() => {
      if (this.#stampFiles() !== this.#fileStamp) this.#filesMayHaveChanged();
    }, FILE_POLL_MS);
  }

  #filesMayHaveChanged(): void {
    clearTimeout(this.#settle);
    this.#settle = setTimeout(() => void this.#reloadFiles(), FILE_SETTLE_MS);
  }

  async #reloadFiles(): Promise<void> {
    if (this.#closed) return;
    const stamp = this.#stampFiles();
    if (stamp === this.#fileStamp) return;
    const loaded = await this.#readFiles();
    if (typeof loaded === "string") {
      this.#lastError = {
        message: `The new --https-cert/--https-key files cannot be served yet: ${loaded}`,
        at: new Date(this.#now()).toISOString(),
      };
      this.#log.warn("The certificate files changed but cannot be served; keeping the current certificate", {
        why: loaded,
      });
      return;
    }
    this.#fileStamp = stamp;
    if (
      loaded.served.cert === this.#current?.served.cert && loaded.served.key === this.#current?.served.key
    ) return;
    this.#lastError = null;
    this.#log.info("Read the certificate files again", {
      names: loaded.facts.names.join(","),
      not_after: loaded.facts.not_after,
    });
    this.#serve(loaded);
  }

  // ---- the plain-HTTP listener, the timer, the settings ----

  #responderProblem: string | null = null;

  /** Why the plain-HTTP listener on --acme-http-port is not listening, or null (it is, or is not wanted). */
  plainHttpProblem(): string | null {
    return this.#responder?.listening ? null : this.#responderProblem;
  }

  /** Starts the plain-HTTP listener (HTTP-01, the redirect) once; a port it cannot have is noted, not fatal. */
  #startResponder(): void {
    const port = this.#config.acmeHttpPort;
    if (port === 0 || this.#responder?.listening || this.#closed) return;
    this.#responder ??= new ChallengeResponder({
      port,
      hostname: this.#config.bind,
      httpsPort: () => this.#httpsPort,
      caCertificate: () => this.caCertificate(),
      log: this.#log,
    });
    try {
      this.#responder.start();
      this.#responderProblem = null;
    } catch (e) {
      this.#responderProblem = e instanceof Deno.errors.PermissionDenied
        ? `a port below 1024 needs the right to bind it (see the README, HTTPS for phones)`
        : e instanceof Deno.errors.AddrInUse
        ? "another program uses it"
        : (e as Error).message;
      this.#log.warn("Cannot listen for plain HTTP (HTTP-01 check, redirect to HTTPS)", {
        port,
        why: this.#responderProblem,
      });
    }
  }

  /** The next look at the certificate: its renewal time or the retry, at most an hour away. */
  #schedule(): void {
    clearTimeout(this.#timer);
    if (this.#closed || (this.#mode !== "acme" && this.#mode !== "local-ca")) return;
    const cur = this.#current?.served;
    const at = this.#retryAt ?? (cur ? renewalTime(cur.notBefore, cur.notAfter) : this.#now());
    this.#timer = setTimeout(() => {
      const retrying = this.#retryAt !== null && this.#now() >= this.#retryAt;
      if (retrying || this.#due()) this.#renew("timer").catch(() => {});
      else this.#schedule();
    }, Math.min(Math.max(at - this.#now(), 0), CHECK_MS));
  }

  #readPageSettings(): PageSettings | null {
    try {
      const s = JSON.parse(Deno.readTextFileSync(join(this.#dir, "settings.json")));
      return Array.isArray(s.domains) && s.domains.length > 0 ? s : null;
    } catch {
      return null;
    }
  }

  /** The DNS service's token: from --acme-dns-token-file, else the one set on the page. */
  #dnsToken(): string | null {
    const file = this.#config.acmeDnsTokenFile ?? join(this.#dir, "dns-token");
    try {
      return Deno.readTextFileSync(file).trim() || null;
    } catch {
      return null;
    }
  }

  #parseSettings(body: Record<string, unknown>): PageSettings {
    const raw = body.domains;
    const list = typeof raw === "string" ? raw.split(/[\s,]+/) : Array.isArray(raw) ? raw : null;
    if (!list || !list.every((d) => typeof d === "string")) {
      throw new Invalid("domains must be a list of domain names.");
    }
    const domains = [
      ...new Set((list as string[]).map((d) => d.trim().toLowerCase().replace(/\.$/, "")).filter(Boolean)),
    ];
    if (domains.length > 100) throw new Invalid("At most 100 names fit one certificate.");
    const email = body.email === undefined || body.email === null ? "" : body.email;
    if (typeof email !== "string" || (email.trim() !== "" && emailProblem(email.trim()))) {
      throw new Invalid(`The e-mail address ${emailProblem(String(email))}.`);
    }
    const challenge = body.challenge ?? "http-01";
    if (!(ACME_CHALLENGES as readonly unknown[]).includes(challenge)) {
      throw new Invalid("challenge must be http-01 or dns-01.");
    }
    const provider = body.dns_provider ?? null;
    if (provider !== null && !(DNS_PROVIDERS as readonly unknown[]).includes(provider)) {
      throw new Invalid("dns_provider must be duckdns or cloudflare.");
    }
    const settings: PageSettings = {
      domains,
      email: email.trim(),
      challenge: challenge as AcmeChallenge,
      dns_provider: challenge === "dns-01" ? provider as DnsProvider | null : null,
    };
    const problem = httpsSettingsProblem(settings);
    if (problem) throw new Invalid(problem);
    return settings;
  }

  /** The answer to a failed attempt: 424 with the reason when the CA or the DNS service refused. */
  #answerOf(e: unknown): unknown {
    if (e instanceof CertificateError) return new HttpError(424, `No certificate: ${e.message}`);
    return e;
  }
}

/** Why a certificate could not be had, for the admin: the CA's, the DNS service's or the panel's reason. */
export class CertificateError extends Error {}

function hostName(): string {
  try {
    return Deno.hostname().toLowerCase();
  } catch {
    return "";
  }
}
