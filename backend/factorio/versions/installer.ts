// Installs one game version from factorio.com, in an order that never leaves a half version visible:
// look up the checksum, check the disk, download to a hidden file (sha256 on the way), compare the sum
// BEFORE unpacking, unpack with the archive rules of untar.ts into a hidden folder, point its
// config-path.cfg at the shared config, run the game's --version and read data/base/info.json, and only
// when both name the version asked for, rename the folder into place (one atomic rename).

import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import type { InstallPhase } from "../../../shared/factorio-versions.ts";
import { ensureDir } from "../../lib/fsutil.ts";
import { download, DownloadError, type Progress } from "./download.ts";
import type { FactorioCom, GameArch } from "./factoriocom.ts";
import { ArchiveError, untarXz } from "./untar.ts";
import {
  ensureSharedConfig,
  gameBinaryIn,
  versionDir,
  versionOfGameDir,
  versionsDir,
  writeConfigPath,
} from "./store.ts";
import { InstallError } from "../../lib/errors.ts";

/** The game unpacks to about this many times the tarball's size; the margin covers the rest. */
const UNPACK_FACTOR = 5;
const SPACE_MARGIN = 64 * 1024 * 1024;
/** How long the new game's --version may take. */
const VERSION_TIMEOUT_MS = 60_000;

export interface InstallSteps {
  factorioDir: string;
  com: FactorioCom;
  version: string;
  /** This machine's architecture: arm64 takes the native ARM64 build where the version has one. */
  arch: GameArch;
  signal: AbortSignal;
  onPhase: (phase: InstallPhase) => void;
  onProgress: (p: Progress) => void;
}

/** The version printed by `binary --version` ("Version: 2.0.77 (build ...)"), or null. */
export async function gameBinaryVersion(binary: string): Promise<string | null> {
  try {
    const child = new Deno.Command(binary, {
      args: ["--version"],
      stdin: "null",
      stdout: "piped",
      stderr: "null",
    }).spawn();
    const timer = setTimeout(() => child.kill("SIGKILL"), VERSION_TIMEOUT_MS);
    const out = await child.output().finally(() => clearTimeout(timer));
    return /Version:\s*(\d+\.\d+\.\d+)/.exec(new TextDecoder().decode(out.stdout))?.[1] ?? null;
  } catch {
    return null;
  }
}

export async function installVersion(s: InstallSteps): Promise<void> {
  const { factorioDir, version } = s;
  const root = versionsDir(factorioDir);
  ensureDir(root);
  if (existsSync(versionDir(factorioDir, version))) {
    throw new InstallError(`Factorio ${version} is already installed.`);
  }

  s.onPhase("checking");
  const build = await s.com.checksum(version, s.arch);
  if (!build) {
    throw new InstallError(
      `factorio.com lists no checksum for Factorio ${version}, so it cannot be verified; nothing was installed.`,
    );
  }
  const sum = build.sha256;

  const tag = `${version}-${randomBytes(4).toString("hex")}`;
  const archive = join(root, `.download-${tag}.tar.xz`);
  const unpackDir = join(root, `.unpack-${tag}`);
  try {
    s.onPhase("downloading");
    let got;
    try {
      got = await download(s.com.downloadUrl(version, build.arch), archive, {
        signal: s.signal,
        onProgress: s.onProgress,
        spaceNeeded: (size) => (size ?? 200 * 1024 * 1024) * UNPACK_FACTOR + SPACE_MARGIN,
      });
    } catch (e) {
      if (e instanceof DownloadError) {
        throw new InstallError(
          `The download of Factorio ${version} failed: ${e.message}; nothing was installed.`,
        );
      }
      throw e;
    }
    if (got.sha256 !== sum) {
      throw new InstallError(
        `The download of Factorio ${version} does not match factorio.com's checksum (expected ${sum}, got ${got.sha256}); nothing was installed.`,
      );
    }

    s.onPhase("unpacking");
    ensureDir(unpackDir, 0o755);
    try {
      await untarXz(archive, unpackDir, { top: "factorio", signal: s.signal, minFreeBytes: SPACE_MARGIN });
    } catch (e) {
      if (e instanceof ArchiveError) {
        throw new InstallError(
          `The archive of Factorio ${version} was refused: ${e.message}; nothing was installed.`,
        );
      }
      if ((e as { code?: string }).code === "ENOSPC") {
        throw new InstallError(
          `The disk filled up while unpacking Factorio ${version}; nothing was installed.`,
        );
      }
      throw e;
    }
    rmSync(archive, { force: true });

    s.onPhase("testing");
    const gameDir = join(unpackDir, "factorio");
    const binary = gameBinaryIn(gameDir);
    if (!existsSync(binary)) {
      throw new InstallError(
        `The archive of Factorio ${version} has no bin/${build.arch}/factorio; nothing was installed.`,
      );
    }
    writeConfigPath(gameDir, factorioDir);
    ensureSharedConfig(factorioDir);
    const reported = await gameBinaryVersion(binary);
    s.signal.throwIfAborted();
    const data = versionOfGameDir(gameDir);
    if (reported !== version || data !== version) {
      // An ARM64 machine runs the x64 build of a version without an ARM64 one only under an emulator.
      const why = reported === null && build.arch !== s.arch
        ? ` Factorio ${version} has no ${s.arch} build; its ${build.arch} build runs here only under an emulator such as box64.`
        : "";
      throw new InstallError(
        `The unpacked game is not Factorio ${version} (--version says ${
          reported ?? "nothing"
        }, data/base/info.json says ${data ?? "nothing"}); nothing was installed.${why}`,
      );
    }
    Deno.renameSync(gameDir, versionDir(factorioDir, version));
  } finally {
    rmSync(archive, { force: true });
    rmSync(unpackDir, { recursive: true, force: true });
  }
}
