// Builds headless tarballs the way factorio.com ships them: a .tar.xz with one top folder `factorio/`
// holding bin/x64/factorio (bin/arm64/factorio in the ARM64 build), config-path.cfg and data/ (no config/, saves/ or mods/: the game makes those).
// The game inside is the simulator (tests/fake-factorio/install.ts) at the exact version asked for.
// Made with the system tar and xz, so the archive is a real GNU tar, like the real one.
//
// Kinds of archive for the failure modes of the fake site:
//   normal        the simulator at the version
//   crash         the game reports its version but crashes while loading a map (an update that fails to start)
//   wrong-inside  the game inside reports another version than the one asked for
//   dotdot        an extra entry `factorio/../escaped.txt`
//   absolute      an extra entry with an absolute path
//   link          a symlink `factorio/data/escape` -> `../../../..` (leads outside the folder)

import { createHash } from "node:crypto";
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installFakeFactorio, lineOf } from "../fake-factorio/install.ts";

export type TarballKind = "normal" | "crash" | "wrong-inside" | "dotdot" | "absolute" | "link";

export interface Tarball {
  path: string;
  size: number;
  sha256: string;
}

export interface BuildOptions {
  /** Incompressible bytes added under data/core (to make the archive as large as a real one). */
  paddingBytes?: number;
  /** The build: x64 (bin/x64, the default) or arm64 (bin/arm64, Factorio 2.1 and later). */
  arch?: "x64" | "arm64";
}

/** A build number per version that looks like the game's and never repeats between versions. */
function buildOf(version: string): number {
  const [a, b, c] = version.split(".").map(Number);
  return 60000 + a * 10000 + b * 1000 + c;
}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Uint8Array);
  return hash.digest("hex");
}

async function run(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<void> {
  const out = await new Deno.Command(cmd, {
    args,
    cwd: opts.cwd,
    env: opts.env,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`${cmd} ${args.join(" ")} failed: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/** Builds (or reuses from `cacheDir`) the tarball of `version` of the given kind. */
export async function buildTarball(
  cacheDir: string,
  version: string,
  kind: TarballKind = "normal",
  opts: BuildOptions = {},
): Promise<Tarball> {
  mkdirSync(cacheDir, { recursive: true });
  const pad = opts.paddingBytes ?? 0;
  const arch = opts.arch ?? "x64";
  const target = join(
    cacheDir,
    `factorio-headless_linux_${version}.${kind}.${pad}${arch === "x64" ? "" : `.${arch}`}.tar.xz`,
  );
  if (!existsSync(target)) {
    const stage = mkdtempSync(join(tmpdir(), "fake-tarball-"));
    try {
      const top = join(stage, "factorio");
      const inside = kind === "wrong-inside" ? bumped(version) : version;
      const env: Record<string, string> = kind === "crash" ? { FAKE_FACTORIO_CRASH_AFTER_MS: "100" } : {};
      installFakeFactorio(top, lineOf(inside), { fullVersion: inside, build: buildOf(inside), env, arch });
      for (const d of ["config", "saves", "mods"]) rmSync(join(top, d), { recursive: true, force: true });
      writePadding(join(top, "data", "core", "graphics"), pad);
      const members = ["factorio"];
      if (kind === "dotdot") {
        writeFileSync(join(stage, "escaped.txt"), "written outside the game folder\n");
        members.push("factorio/../escaped.txt");
      }
      if (kind === "absolute") {
        const abs = join(stage, "absolute.txt");
        writeFileSync(abs, "an absolute path\n");
        members.push(abs);
      }
      if (kind === "link") symlinkSync("../../../..", join(top, "data", "escape"));
      const tmp = `${target}.${crypto.randomUUID()}.part`;
      // -P keeps `..` and absolute names as given (GNU tar strips them otherwise), like a hostile archive would.
      await run("tar", ["-c", "-J", "-P", "-f", tmp, "--owner=0", "--group=0", ...members], {
        cwd: stage,
        env: { XZ_OPT: "-0 -T1" },
      });
      renameSync(tmp, target);
    } finally {
      rmSync(stage, { recursive: true, force: true });
    }
  }
  const size = Deno.statSync(target).size;
  // The sum is asked for on every checksum list: computed once per file.
  let sha256 = sums.get(target);
  if (!sha256) sums.set(target, sha256 = await sha256File(target));
  return { path: target, size, sha256 };
}

const sums = new Map<string, string>();

function bumped(version: string): string {
  const p = version.split(".").map(Number);
  p[2] += 1;
  return p.join(".");
}

function writePadding(dir: string, bytes: number): void {
  if (bytes <= 0) return;
  mkdirSync(dir, { recursive: true });
  const piece = 4 * 1024 * 1024;
  for (let i = 0, left = bytes; left > 0; i++, left -= piece) {
    const chunk = new Uint8Array(Math.min(piece, left));
    for (let off = 0; off < chunk.length; off += 65536) {
      crypto.getRandomValues(chunk.subarray(off, off + 65536));
    }
    writeFileSync(join(dir, `atlas-${i}.bin`), chunk);
  }
}
