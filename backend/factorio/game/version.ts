// The installed game's version: `--version` (four parts, like the old API) and data/base/info.json. Asked
// again only when the executable or base/info.json changed (an install or update), and those files are
// looked at no more than once every few seconds, so the status route stays cheap.

import { existsSync, readFileSync, statSync } from "node:fs";
import type { Logger } from "../../lib/log.ts";
import type { FactorioPaths } from "../layout.ts";

const RESTAT_MS = 2_000;

export interface VersionInfo {
  version: string;
  base: string;
}

/** Runs `<binary> --version` and reads base/info.json. */
export async function probeVersion(
  paths: Pick<FactorioPaths, "binary" | "baseInfo">,
  log?: Logger,
): Promise<VersionInfo> {
  let version = "";
  let base = "";
  try {
    base = String(JSON.parse(readFileSync(paths.baseInfo, "utf8")).version ?? "");
  } catch {
    // no data/base/info.json: unknown
  }
  if (existsSync(paths.binary)) {
    try {
      const child = new Deno.Command(paths.binary, {
        args: ["--version"],
        stdin: "null",
        stdout: "piped",
        stderr: "null",
      })
        .spawn();
      const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
      const out = await child.output().finally(() => clearTimeout(timer));
      const m = /Version:\s*(\d+)\.(\d+)\.(\d+)/.exec(new TextDecoder().decode(out.stdout));
      if (m) version = `${m[1]}.${m[2]}.${m[3]}.0`;
    } catch (e) {
      log?.warn("Could not ask the game for its version", { error: String(e) });
    }
  }
  return { version, base };
}

export class GameVersion {
  #info: VersionInfo = { version: "", base: "" };
  #found = false;
  #key = "";
  #checkedAt = -Infinity;
  #probe: Promise<void> | null = null;
  #closed = false;

  constructor(
    private readonly paths: () => Pick<FactorioPaths, "binary" | "baseInfo">,
    private readonly log: Logger,
    private readonly onChange: () => void,
  ) {
    this.refresh();
  }

  /** The last known version; starts a new probe in the background when the files changed. */
  get current(): VersionInfo {
    this.refresh();
    return this.#info;
  }

  /** Whether the game's executable exists (as of the last look, at most a few seconds ago). */
  get found(): boolean {
    this.refresh();
    return this.#found;
  }

  /** The version, waiting for a probe under way. */
  async settled(): Promise<VersionInfo> {
    this.refresh(true);
    await this.#probe;
    return this.#info;
  }

  refresh(force = false): void {
    const now = Date.now();
    // (A clock set back counts as time gone by.)
    if (!force && now >= this.#checkedAt && now - this.#checkedAt < RESTAT_MS) return;
    this.#checkedAt = now;
    const paths = this.paths();
    const stamp = (p: string) => {
      try {
        const s = statSync(p);
        return `${s.mtimeMs}:${s.size}:${s.ino}`;
      } catch {
        return "-";
      }
    };
    const binary = stamp(paths.binary);
    this.#found = binary !== "-";
    const key = `${paths.binary}|${binary}|${stamp(paths.baseInfo)}`;
    if (key === this.#key || this.#probe) return;
    this.#probe = probeVersion(paths, this.log).then((info) => {
      if (this.#closed) return;
      const changed = info.version !== this.#info.version || info.base !== this.#info.base;
      this.#key = key;
      this.#info = info;
      if (changed) this.onChange();
    }).finally(() => (this.#probe = null));
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#probe;
  }
}
