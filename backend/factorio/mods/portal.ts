// The Factorio mod portal and auth server, reached only through the base URLs in the config (tests point
// them at tests/fake-portal/).
//
// The token: stored owner-only in the data dir, never returned by the API, never logged, and sent only to
// the configured portal host, as the query of a download path the portal itself listed. The portal
// redirects downloads to its CDN; that hop is followed without the token.
//
// Being a good client (the portal's usage guidelines ask for it): the full mod list is fetched once and
// kept for --mod-portal-cache-minutes; mod details for a few minutes; 429 and 5xx answers are retried
// with exponential backoff (or after the Retry-After the portal sends, if short), and after a 429 that
// outlasts the retries no request goes out until the portal's wait is over.

import { createHash, randomBytes } from "node:crypto";
import { open, rm } from "node:fs/promises";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { DownloadProgress, PortalListEntry, PortalModInfo, PortalRelease } from "../../../shared/api.ts";
import { MSG, PANEL_MSG } from "../../../shared/messages.ts";
import {
  Conflict,
  Forbidden,
  HttpError,
  Invalid,
  NotFound,
  PayloadTooLarge,
  TooManyRequests,
  Upstream,
} from "../../lib/errors.ts";
import { writeSecretFile } from "../../lib/fsutil.ts";
import type { Logger } from "../../lib/log.ts";
import { BoundedMap, formatBytes, idleTimeout, retryAfterMs, sleep } from "../../../shared/util.ts";

export interface PortalOptions {
  portalUrl: string;
  authUrl: string;
  /** How long the full mod list is kept. */
  listCacheMs: number;
  dataDir: string;
  maxDownloadBytes: number;
  log: Logger;
  now: () => number;
}

export interface Credentials {
  username: string;
  token: string;
}

/** A release as the portal lists it (versions as the portal writes them, no compatibility yet). */
export type RawRelease = Omit<PortalRelease, "compatibility">;

export type RawPortalMod = Omit<PortalModInfo, "releases"> & { releases: RawRelease[] };

const DETAILS_TTL_MS = 5 * 60_000;
const TIMEOUT_MS = 30_000;
const RETRIES = 3;
/** Longest Retry-After the panel waits out inside one request; longer ones are passed on to the user. */
const MAX_INLINE_WAIT_S = 10;
const MAX_REDIRECTS = 5;
const DOWNLOAD_PATH = /^\/download\/[^/?#\\]+\/[^/?#\\]+$/;

function retryAfterSeconds(header: string | null): number | null {
  const ms = retryAfterMs(header);
  return ms === null ? null : ms / 1000;
}

/**
 * An error's text without the query of any URL in it: fetch puts the URL it failed on into its errors,
 * and a download URL carries the token.
 */
export function reason(e: unknown): string {
  return String((e as Error)?.message ?? e).replace(/(https?:\/\/[^\s?#)]*)\?[^\s#)]*/g, "$1");
}

function str(v: unknown, fallback = ""): string {
  return typeof v === "string" ? v : fallback;
}

function parseRelease(r: unknown): RawRelease | null {
  if (typeof r !== "object" || r === null) return null;
  const o = r as Record<string, unknown>;
  const info = (typeof o.info_json === "object" && o.info_json !== null ? o.info_json : {}) as Record<
    string,
    unknown
  >;
  if (typeof o.version !== "string" || typeof o.download_url !== "string") return null;
  const deps = Array.isArray(info.dependencies)
    ? info.dependencies.filter((d): d is string => typeof d === "string")
    : undefined;
  return {
    version: o.version,
    download_url: o.download_url,
    file_name: str(o.file_name),
    released_at: str(o.released_at),
    sha1: str(o.sha1),
    info_json: {
      factorio_version: str(info.factorio_version, "0.12"),
      ...(deps ? { dependencies: deps } : {}),
    },
  };
}

export class ModPortal {
  #list: { at: number; results: PortalListEntry[] } | null = null;
  #listLoading: Promise<PortalListEntry[]> | null = null;
  /** Bounded: any name a client asks about would otherwise stay for the panel's lifetime. */
  #details = new BoundedMap<string, { at: number; mod: RawPortalMod }>(512);
  #blockedUntil = 0;
  #downloads = new Map<string, DownloadProgress>();
  /** A download with no data for this long is given up (tests shorten it). */
  idleTimeoutMs = TIMEOUT_MS;
  readonly #base: URL;
  readonly #auth: URL;

  constructor(private readonly opts: PortalOptions) {
    this.#base = new URL(opts.portalUrl.replace(/\/*$/, "/"));
    this.#auth = new URL(opts.authUrl.replace(/\/*$/, "/"));
  }

  get credentialsPath(): string {
    return join(this.opts.dataDir, "mod-portal.json");
  }

  /** The stored login, or null. A damaged file counts as logged out. */
  credentials(): Credentials | null {
    try {
      const data = JSON.parse(readFileSync(this.credentialsPath, "utf8"));
      if (
        typeof data?.username === "string" && data.username && typeof data?.token === "string" && data.token
      ) {
        return { username: data.username, token: data.token };
      }
    } catch {
      // missing or damaged: logged out
    }
    return null;
  }

  loggedIn(): boolean {
    return this.credentials() !== null;
  }

  /** Stores a token pasted from factorio.com/profile (checked by the portal on the first download). */
  saveToken(username: string, token: string): void {
    if (!/^[\x21-\x7e]{1,200}$/.test(token)) throw new Invalid(PANEL_MSG.portalTokenInvalid);
    writeSecretFile(this.credentialsPath, JSON.stringify({ username, token }) + "\n");
  }

  logout(): void {
    rmSync(this.credentialsPath, { force: true });
  }

  /**
   * Logs in to the auth server (api_version 6: errors come with HTTP 200 and an "error" field). Not
   * retried: the auth server counts failed attempts and rate-limits clients that cause many.
   */
  async login(username: string, password: string): Promise<void> {
    const form = new URLSearchParams({
      username,
      password,
      api_version: "6",
      require_game_ownership: "true",
    });
    let res: Response;
    try {
      res = await fetch(new URL("api-login", this.#auth), {
        method: "POST",
        body: form,
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (e) {
      throw new Upstream(`The Factorio auth server cannot be reached (${reason(e)}).`);
    }
    const text = await res.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      // not JSON: handled below
    }
    const o = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
    if (res.status === 429) {
      throw new TooManyRequests(
        PANEL_MSG.authRateLimited,
        retryAfterSeconds(res.headers.get("retry-after")) ?? 60,
      );
    }
    const token = typeof o.token === "string"
      ? o.token
      : Array.isArray(body) && typeof body[0] === "string"
      ? body[0]
      : null;
    if (res.ok && token && o.error === undefined) {
      // The auth server answers with the account's username (also when an e-mail address was typed);
      // downloads need that name.
      this.saveToken(typeof o.username === "string" && o.username ? o.username : username, token);
      this.opts.log.info("Logged in to the mod portal", { username: o.username ?? username });
      return;
    }
    if (o.error === "login-failed" || res.status === 401 || res.status === 403) {
      throw new Invalid(MSG.portalLoginFailed);
    }
    if (o.error === "email-authentication-required") throw new Invalid(PANEL_MSG.portalEmailCode);
    if (typeof o.error === "string") {
      throw new Invalid(`The Factorio auth server refused the login: ${str(o.message, o.error)}`);
    }
    throw new Upstream(`The Factorio auth server gave an unexpected answer (HTTP ${res.status}).`);
  }

  /** GET on the portal with backoff on 429/5xx/network errors. */
  async #get(url: URL, init: RequestInit = {}): Promise<Response> {
    // A caller's own signal (a download's inactivity timer) replaces the total timeout of small requests.
    for (let attempt = 0;; attempt++) {
      const waitMs = this.#blockedUntil - this.opts.now();
      if (waitMs > 0) throw new TooManyRequests(PANEL_MSG.portalRateLimited(waitMs / 1000), waitMs / 1000);
      let res: Response;
      try {
        res = await fetch(url, { ...init, signal: init.signal ?? AbortSignal.timeout(TIMEOUT_MS) });
      } catch (e) {
        if (attempt < RETRIES) {
          await sleep(500 * 2 ** attempt);
          continue;
        }
        const timedOut = (e as Error).name === "TimeoutError";
        throw new Upstream(`The mod portal cannot be reached (${reason(e)}).`, timedOut ? 504 : 503);
      }
      if (res.status !== 429 && res.status < 500) return res;
      await res.body?.cancel();
      const after = retryAfterSeconds(res.headers.get("retry-after"));
      if (attempt < RETRIES && (after === null || after <= MAX_INLINE_WAIT_S)) {
        this.opts.log.warn("The mod portal asked to slow down; retrying", {
          status: res.status,
          attempt: attempt + 1,
        });
        await sleep(after !== null ? after * 1000 : 500 * 2 ** attempt);
        continue;
      }
      if (res.status === 429) {
        const seconds = after ?? 60;
        this.#blockedUntil = this.opts.now() + seconds * 1000;
        throw new TooManyRequests(PANEL_MSG.portalRateLimited(seconds), seconds);
      }
      throw new Upstream(`The mod portal answered with an error (HTTP ${res.status}). Try again later.`);
    }
  }

  async #json(url: URL): Promise<{ status: number; data: unknown }> {
    const res = await this.#get(url, { headers: { Accept: "application/json" } });
    const text = await res.text();
    try {
      return { status: res.status, data: JSON.parse(text) };
    } catch {
      throw new Upstream(`The mod portal gave an answer that is not JSON (HTTP ${res.status}).`);
    }
  }

  /** Names and titles of every mod on the portal, from the cache while it is fresh. */
  list(): Promise<PortalListEntry[]> {
    if (this.#list && this.opts.now() - this.#list.at < this.opts.listCacheMs) {
      return Promise.resolve(this.#list.results);
    }
    // Requests that arrive while the list loads share the one fetch.
    this.#listLoading ??= (async () => {
      try {
        const url = new URL("api/mods", this.#base);
        url.searchParams.set("page_size", "max");
        url.searchParams.set("hide_deprecated", "true");
        const { status, data } = await this.#json(url);
        const results = (data as { results?: unknown })?.results;
        if (status !== 200 || !Array.isArray(results)) {
          throw new Upstream(`The mod portal did not send its mod list (HTTP ${status}).`);
        }
        const list: PortalListEntry[] = [];
        for (const r of results) {
          if (typeof r?.name !== "string") continue;
          list.push({ name: r.name, title: str(r.title, r.name) });
        }
        this.#list = { at: this.opts.now(), results: list };
        return list;
      } finally {
        this.#listLoading = null;
      }
    })();
    return this.#listLoading;
  }

  /** A mod's details with every release (the "full" endpoint, which has the dependencies). */
  async details(name: string): Promise<RawPortalMod> {
    const hit = this.#details.get(name);
    if (hit && this.opts.now() - hit.at < DETAILS_TTL_MS) return hit.mod;
    const { status, data } = await this.#json(
      new URL(`api/mods/${encodeURIComponent(name)}/full`, this.#base),
    );
    if (status === 404) throw new NotFound(`The mod portal has no mod named ${name}.`);
    const o = (typeof data === "object" && data !== null ? data : {}) as Record<string, unknown>;
    if (status !== 200 || !Array.isArray(o.releases)) {
      throw new Upstream(`The mod portal did not send the details of ${name} (HTTP ${status}).`);
    }
    const mod: RawPortalMod = {
      name: str(o.name, name),
      title: str(o.title, name),
      owner: str(o.owner),
      summary: str(o.summary),
      downloads_count: typeof o.downloads_count === "number" ? o.downloads_count : 0,
      releases: o.releases.map(parseRelease).filter((r): r is RawRelease => r !== null),
    };
    this.#details.set(name, { at: this.opts.now(), mod });
    return mod;
  }

  /**
   * The portal URL of a download path such as "/download/belt-balancer/5fc1...". Anything else (another
   * host, "//host", "@host", a query, "..") is refused, so the token can never go elsewhere.
   */
  downloadUrl(path: unknown): URL {
    if (
      typeof path !== "string" || !DOWNLOAD_PATH.test(path) ||
      path.split("/").some((p) => p === "." || p === "..")
    ) {
      throw new Invalid(PANEL_MSG.downloadUrlRefused);
    }
    const url = new URL(this.#base.href.replace(/\/$/, "") + path);
    if (url.origin !== this.#base.origin) throw new Invalid(PANEL_MSG.downloadUrlRefused);
    return url;
  }

  /** Downloads in flight, for the progress bar. */
  progress(): DownloadProgress[] {
    return [...this.#downloads.values()].map((d) => ({ ...d }));
  }

  /**
   * Downloads a release into a hidden temp file in `dir` and checks its sha1 against the portal's.
   * Returns the temp path; the caller checks the zip and moves it into place (or deletes it).
   */
  async download(name: string, release: RawRelease, dir: string): Promise<string> {
    const creds = this.credentials();
    if (!creds) throw new Conflict(PANEL_MSG.portalLoginRequired);
    const url = this.downloadUrl(release.download_url);
    url.searchParams.set("username", creds.username);
    url.searchParams.set("token", creds.token);
    // Timed out on inactivity, not on total time: a large mod on a slow line takes as long as it takes.
    const idle = idleTimeout(this.idleTimeoutMs);
    try {
      return await this.#download(name, release, dir, url, idle);
    } finally {
      idle.clear();
    }
  }

  async #download(
    name: string,
    release: RawRelease,
    dir: string,
    url: URL,
    idle: ReturnType<typeof idleTimeout>,
  ): Promise<string> {
    let res = await this.#get(url, { redirect: "manual", signal: idle.signal });
    let at = new URL(url.origin + url.pathname);
    for (let hop = 0; res.status >= 300 && res.status < 400; hop++) {
      const location = res.headers.get("location");
      await res.body?.cancel();
      if (!location || hop >= MAX_REDIRECTS) {
        throw new Upstream("The mod portal sent a broken redirect for the download.");
      }
      at = new URL(location, at);
      if (at.protocol !== "https:" && at.protocol !== "http:") {
        throw new Upstream("The mod portal redirected the download somewhere odd.");
      }
      // The CDN gets a plain request: no token, no credentials.
      try {
        idle.touch();
        res = await fetch(at, { redirect: "manual", signal: idle.signal });
      } catch (e) {
        throw new Upstream(`The download of ${name} failed (${reason(e)}).`);
      }
    }
    if (res.status === 401 || res.status === 403) {
      await res.body?.cancel();
      throw new Forbidden(PANEL_MSG.portalTokenRefused(res.status));
    }
    if (!res.ok || !res.body) {
      await res.body?.cancel();
      throw new Upstream(`The download of ${name} ${release.version} failed (HTTP ${res.status}).`);
    }
    const total = Number(res.headers.get("content-length")) || 0;
    if (total > this.opts.maxDownloadBytes) {
      await res.body.cancel();
      throw new PayloadTooLarge(
        `${name} ${release.version} is larger than the limit (${formatBytes(this.opts.maxDownloadBytes)}).`,
      );
    }
    const id = randomBytes(6).toString("hex");
    const temp = join(dir, `.download.${id}.tmp`);
    const progress: DownloadProgress = { name, version: release.version, received: 0, total };
    this.#downloads.set(id, progress);
    const hash = createHash("sha1");
    let file;
    try {
      file = await open(temp, "wx", 0o644);
      idle.touch();
      for await (const chunk of res.body) {
        idle.touch();
        progress.received += chunk.length;
        if (progress.received > this.opts.maxDownloadBytes) {
          throw new PayloadTooLarge(
            `${name} ${release.version} is larger than the limit (${
              formatBytes(this.opts.maxDownloadBytes)
            }).`,
          );
        }
        hash.update(chunk);
        let off = 0;
        while (off < chunk.length) off += (await file.write(chunk, off, chunk.length - off)).bytesWritten;
      }
      await file.sync();
      await file.close();
      file = undefined;
      const sha1 = hash.digest("hex");
      if (release.sha1 && sha1 !== release.sha1.toLowerCase()) {
        throw new Upstream(PANEL_MSG.checksumMismatch(name, release.version));
      }
      return temp;
    } catch (e) {
      await file?.close().catch(() => {});
      await rm(temp, { force: true });
      if (e instanceof HttpError) throw e;
      if (idle.signal.aborted) {
        throw new Upstream(
          `The download of ${name} ${release.version} stalled: no data for ${
            this.idleTimeoutMs / 1000
          } s after ${formatBytes(progress.received)}.`,
          504,
        );
      }
      throw new Upstream(`The download of ${name} ${release.version} broke off (${reason(e)}).`);
    } finally {
      this.#downloads.delete(id);
    }
  }
}
