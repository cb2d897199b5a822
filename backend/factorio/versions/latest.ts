// The newest headless version per channel, as last asked of factorio.com. Kept in
// <data-dir>/factorio-update.json, so a restart does not ask again; asked again when older than
// --factorio-update-check-hours (checked hourly, the first time a minute after start: a panel started
// and stopped at once, as by tests and scripts, never asks), or when a user asks for a check.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { EXACT_VERSION } from "../../../shared/factorio-versions.ts";
import { writeJsonAtomic } from "../../lib/fsutil.ts";
import type { Logger } from "../../lib/log.ts";
import type { FactorioCom, LatestReleases } from "./factoriocom.ts";

export class LatestVersions {
  #known: { checkedAt: number; latest: LatestReleases } | null;
  /** Told after each check: the first server's versions, and every other server's (they share one check). */
  #listeners = new Set<() => void>();
  #timer: ReturnType<typeof setInterval> | undefined;
  #first: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly com: FactorioCom,
    private readonly opts: {
      dataDir: string;
      hours: number;
      now: () => number;
      log: Logger;
      onChecked: () => void;
    },
  ) {
    this.#known = this.#read();
    this.#listeners.add(opts.onChecked);
    if (opts.hours > 0) {
      const tick = () =>
        void this.get(false).catch((e) => opts.log.info("Update check failed", { error: String(e) }));
      this.#first = setTimeout(tick, 60_000);
      this.#timer = setInterval(tick, 60 * 60_000);
    }
  }

  /** Tells `fn` after each check too; returns the function that stops it. */
  listen(fn: () => void): () => void {
    this.#listeners.add(fn);
    return () => void this.#listeners.delete(fn);
  }

  get file(): string {
    return join(this.opts.dataDir, "factorio-update.json");
  }

  /** The last answer, without asking. */
  get known(): { checkedAt: number; latest: LatestReleases } | null {
    return this.#known;
  }

  /** The newest versions: asked of factorio.com when forced or stale. */
  async get(force: boolean): Promise<LatestReleases> {
    const stale = !this.#known || this.opts.now() - this.#known.checkedAt >= this.opts.hours * 3600_000;
    if (!force && !stale && this.#known) return this.#known.latest;
    const latest = await this.com.latestReleases();
    this.#known = { checkedAt: this.opts.now(), latest };
    writeJsonAtomic(this.file, { checkedAt: new Date(this.#known.checkedAt).toISOString(), ...latest });
    for (const fn of [...this.#listeners]) fn();
    return latest;
  }

  close(): void {
    clearTimeout(this.#first);
    clearInterval(this.#timer);
  }

  #read(): { checkedAt: number; latest: LatestReleases } | null {
    try {
      const d = JSON.parse(readFileSync(this.file, "utf8"));
      const at = Date.parse(d.checkedAt);
      if (!Number.isFinite(at) || !EXACT_VERSION.test(d.stable) || !EXACT_VERSION.test(d.experimental)) {
        return null;
      }
      return { checkedAt: at, latest: { stable: d.stable, experimental: d.experimental } };
    } catch {
      return null;
    }
  }
}
