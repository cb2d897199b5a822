// What factorio.com says about headless releases, reached under one base URL (--factorio-com-url):
// the latest version per channel (JSON), every version (the archive page: HTML, there is no JSON list),
// the sha256 list (one "<sum>  <file>" line per build, two file name styles over the years), and the
// tarball's address. No request carries a credential: the headless build needs no account.

import { type AvailableVersion, type Channel, EXACT_VERSION } from "../../../shared/factorio-versions.ts";
import { compareVersionStrings } from "../../../shared/versions.ts";
import { Upstream } from "../../lib/errors.ts";

/** How long the small requests (lists, sums) may take. */
const LIST_TIMEOUT_MS = 30_000;

export interface LatestReleases {
  stable: string;
  experimental: string;
}

/** Parses the archive page: each version is a link to /download/archive/<x.y.z> with a class naming its channel. */
export function parseArchivePage(html: string): AvailableVersion[] {
  const seen = new Map<string, Channel>();
  for (const tag of html.match(/<a\s[^>]*>/gi) ?? []) {
    const href = /href\s*=\s*["']([^"']*)["']/i.exec(tag)?.[1] ?? "";
    const m = /\/download\/archive\/(\d+\.\d+\.\d+)\/?$/.exec(href);
    if (!m || !EXACT_VERSION.test(m[1])) continue;
    const cls = /class\s*=\s*["']([^"']*)["']/i.exec(tag)?.[1] ?? "";
    const channel: Channel = /version-button-experimental/.test(cls) ? "experimental" : "stable";
    if (!seen.has(m[1])) seen.set(m[1], channel);
  }
  return [...seen].map(([version, channel]) => ({ version, channel })).sort((a, b) =>
    compareVersionStrings(b.version, a.version)
  );
}

/** A build of the headless server: x64, or the native ARM64 one that Factorio ships from 2.1 on. */
export type GameArch = "x64" | "arm64";

/**
 * The headless tarball's sha256 for `version` and `arch` from the sums list, or null. The x64 build's file
 * has two name styles over the years; the ARM64 build's is the linux-arm64 archive.
 */
export function findChecksum(sums: string, version: string, arch: GameArch = "x64"): string | null {
  const names = new Set(
    arch === "arm64"
      ? [`factorio-headless_linux-arm64_${version}.tar.xz`]
      : [`factorio-headless_linux_${version}.tar.xz`, `factorio_headless_x64_${version}.tar.xz`],
  );
  for (const line of sums.split(/\r?\n/)) {
    const m = /^([0-9a-fA-F]{64})\s+\*?(\S+)\s*$/.exec(line.trim());
    if (m && names.has(m[2])) return m[1].toLowerCase();
  }
  return null;
}

export class FactorioCom {
  constructor(readonly baseUrl: string) {}

  #url(path: string): string {
    return this.baseUrl.replace(/\/+$/, "") + path;
  }

  async #text(path: string, what: string): Promise<string> {
    let res: Response;
    try {
      res = await fetch(this.#url(path), {
        signal: AbortSignal.timeout(LIST_TIMEOUT_MS),
        redirect: "follow",
      });
    } catch (e) {
      throw new Upstream(`factorio.com could not be reached for ${what}: ${(e as Error).message}`);
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new Upstream(`factorio.com answered ${res.status} for ${what}.`, 502);
    }
    return await res.text();
  }

  async latestReleases(): Promise<LatestReleases> {
    const text = await this.#text("/api/latest-releases", "the latest versions");
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      throw new Upstream("factorio.com's latest versions are not JSON.", 502);
    }
    const pick = (c: string) => {
      const v = (data as Record<string, Record<string, unknown>>)?.[c]?.headless;
      return typeof v === "string" && EXACT_VERSION.test(v) ? v : "";
    };
    const stable = pick("stable");
    const experimental = pick("experimental") || stable;
    if (!stable) throw new Upstream("factorio.com's latest versions name no headless build.", 502);
    return { stable, experimental };
  }

  /** Every version: the archive page, plus the latest ones (a release may reach the API before the page). */
  async available(): Promise<AvailableVersion[]> {
    const [page, latest] = await Promise.all([
      this.#text("/download/archive/", "the version list"),
      this.latestReleases(),
    ]);
    const list = parseArchivePage(page);
    for (
      const [version, channel] of [[latest.stable, "stable"], [latest.experimental, "experimental"]] as const
    ) {
      if (!list.some((v) => v.version === version)) list.push({ version, channel });
    }
    return list.sort((a, b) => compareVersionStrings(b.version, a.version));
  }

  /**
   * The build to install on a host of `arch` and its sha256: the ARM64 build where the list has one, else
   * the x64 build (which an ARM64 host runs only under an emulator). Null when neither is listed.
   */
  async checksum(
    version: string,
    arch: GameArch = "x64",
  ): Promise<{ arch: GameArch; sha256: string } | null> {
    const sums = await this.#text("/download/sha256sums/", "the checksum list");
    const native = arch === "arm64" ? findChecksum(sums, version, "arm64") : null;
    if (native) return { arch: "arm64", sha256: native };
    const x64 = findChecksum(sums, version);
    return x64 ? { arch: "x64", sha256: x64 } : null;
  }

  downloadUrl(version: string, arch: GameArch = "x64"): string {
    return this.#url(`/get-download/${version}/headless/${arch === "arm64" ? "linux-arm64" : "linux64"}`);
  }
}
