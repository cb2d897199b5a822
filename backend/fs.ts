// The file calls the panel makes, with node:fs's names and behaviour, done with Deno's own API.
//
// Why: under Deno, importing node:fs (or any `node:` module but node:sqlite) brings in the Node
// compatibility layer: about 45 ms more at start and 10 MiB more memory for as long as the panel runs
// (bench/startup.mjs; docs/architecture.md, "Start-up"). Only what the panel uses is here, typed so that
// an option it does not handle cannot be passed. Errors are Deno's, which carry the same `code`
// ("ENOENT", "EEXIST", ...) that the callers test.

/** What the panel reads of a stat: node:fs's Stats, in part. */
export interface Stats {
  size: number;
  /** Modification time in milliseconds (0 where the system does not tell). */
  mtimeMs: number;
  mtime: Date;
  ctimeMs: number;
  ino: number;
  mode: number;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

export interface Dirent {
  name: string;
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
}

function toStats(i: Deno.FileInfo): Stats {
  const mtimeMs = i.mtime?.getTime() ?? 0;
  return {
    size: i.size,
    mtimeMs,
    mtime: new Date(mtimeMs),
    ctimeMs: i.ctime?.getTime() ?? 0,
    ino: i.ino ?? 0,
    mode: i.mode ?? 0,
    isFile: () => i.isFile,
    isDirectory: () => i.isDirectory,
    isSymbolicLink: () => i.isSymlink,
  };
}

function toDirent(e: Deno.DirEntry): Dirent {
  return { name: e.name, isFile: () => e.isFile, isDirectory: () => e.isDirectory, isSymbolicLink: () => e.isSymlink };
}

function isNotFound(e: unknown): boolean {
  return e instanceof Deno.errors.NotFound;
}

interface RmOptions {
  recursive?: boolean;
  /** No error when the path does not exist. */
  force?: boolean;
}

// ---- synchronous ----

/** Whether the path exists (following links); false on any error, as node:fs says. */
export function existsSync(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

export function readFileSync(path: string): Uint8Array;
export function readFileSync(path: string, encoding: "utf8"): string;
export function readFileSync(path: string, encoding?: "utf8"): Uint8Array | string {
  return encoding === "utf8" ? Deno.readTextFileSync(path) : Deno.readFileSync(path);
}

/** Writes (creating or truncating) the file; `mode` applies when it is created. */
export function writeFileSync(path: string, data: string | Uint8Array, opts: { mode?: number } = {}): void {
  if (typeof data === "string") Deno.writeTextFileSync(path, data, { mode: opts.mode });
  else Deno.writeFileSync(path, data, { mode: opts.mode });
}

export function appendFileSync(path: string, data: string, opts: { mode?: number } = {}): void {
  Deno.writeTextFileSync(path, data, { append: true, mode: opts.mode });
}

export function rmSync(path: string, opts: RmOptions = {}): void {
  try {
    Deno.removeSync(path, { recursive: opts.recursive ?? false });
  } catch (e) {
    if (!(opts.force && isNotFound(e))) throw e;
  }
}

export function renameSync(from: string, to: string): void {
  Deno.renameSync(from, to);
}

export function statSync(path: string): Stats;
export function statSync(path: string, opts: { throwIfNoEntry: false }): Stats | undefined;
export function statSync(path: string, opts?: { throwIfNoEntry: false }): Stats | undefined {
  try {
    return toStats(Deno.statSync(path));
  } catch (e) {
    if (opts && isNotFound(e)) return undefined;
    throw e;
  }
}

export function readdirSync(path: string): string[];
export function readdirSync(path: string, opts: { withFileTypes: true }): Dirent[];
export function readdirSync(path: string, opts?: { withFileTypes: true }): string[] | Dirent[] {
  const entries = [...Deno.readDirSync(path)];
  return opts ? entries.map(toDirent) : entries.map((e) => e.name);
}

/** Removes an empty folder (and fails on a file, or on a folder with something in it). */
export function rmdirSync(path: string): void {
  if (!Deno.lstatSync(path).isDirectory) throw new Deno.errors.NotADirectory(`not a directory: ${path}`);
  Deno.removeSync(path);
}

export function mkdirSync(path: string, opts: { recursive?: boolean; mode?: number } = {}): void {
  Deno.mkdirSync(path, opts);
}

export function copyFileSync(from: string, to: string): void {
  Deno.copyFileSync(from, to);
}

export function chmodSync(path: string, mode: number): void {
  Deno.chmodSync(path, mode);
}

// ---- asynchronous (node:fs/promises) ----

export async function stat(path: string): Promise<Stats> {
  return toStats(await Deno.stat(path));
}

export async function readdir(path: string): Promise<string[]>;
export async function readdir(path: string, opts: { withFileTypes: true }): Promise<Dirent[]>;
export async function readdir(path: string, opts?: { withFileTypes: true }): Promise<string[] | Dirent[]> {
  const entries: Deno.DirEntry[] = [];
  for await (const e of Deno.readDir(path)) entries.push(e);
  return opts ? entries.map(toDirent) : entries.map((e) => e.name);
}

export async function rm(path: string, opts: RmOptions = {}): Promise<void> {
  try {
    await Deno.remove(path, { recursive: opts.recursive ?? false });
  } catch (e) {
    if (!(opts.force && isNotFound(e))) throw e;
  }
}

export function rename(from: string, to: string): Promise<void> {
  return Deno.rename(from, to);
}

export function copyFile(from: string, to: string): Promise<void> {
  return Deno.copyFile(from, to);
}

export function mkdir(path: string, opts: { recursive?: boolean; mode?: number } = {}): Promise<void> {
  return Deno.mkdir(path, opts);
}

export function truncate(path: string, length = 0): Promise<void> {
  return Deno.truncate(path, length);
}

/**
 * An open file, read and written like node:fs/promises' FileHandle. A read at a position seeks first;
 * the handle's calls run one after another, so two reads at different positions cannot interleave.
 */
export class FileHandle {
  #queue: Promise<unknown> = Promise.resolve();

  constructor(readonly file: Deno.FsFile) {}

  #serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#queue.then(work, work);
    this.#queue = next.catch(() => {});
    return next;
  }

  /** Reads up to `length` bytes into `buffer` at `offset`, from `position` (null: where the last read ended). */
  read(buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<{ bytesRead: number }> {
    return this.#serial(async () => {
      if (position !== null) await this.file.seek(position, Deno.SeekMode.Start);
      if (length === 0) return { bytesRead: 0 };
      const n = await this.file.read(buffer.subarray(offset, offset + length));
      return { bytesRead: n ?? 0 };
    });
  }

  /** Writes up to `length` bytes of `buffer` from `offset`, where the last write ended. */
  write(buffer: Uint8Array, offset = 0, length = buffer.length - offset): Promise<{ bytesWritten: number }> {
    return this.#serial(async () => ({ bytesWritten: await this.file.write(buffer.subarray(offset, offset + length)) }));
  }

  stat(): Promise<Stats> {
    return this.#serial(async () => toStats(await this.file.stat()));
  }

  sync(): Promise<void> {
    return this.#serial(() => this.file.sync());
  }

  close(): Promise<void> {
    return this.#serial(async () => this.file.close());
  }
}

/** Opens a file: "r" to read, "wx" to create a new one to write (failing when it exists). */
export async function open(path: string, flags: "r" | "wx", mode?: number): Promise<FileHandle> {
  const options: Deno.OpenOptions = flags === "r" ? { read: true } : { write: true, createNew: true, mode };
  return new FileHandle(await Deno.open(path, options));
}

/**
 * Space on the volume holding `path` (which must exist): the bytes the panel may still use, and the
 * volume's size. Deno has no statfs, so this asks `df` (POSIX output, 1 KiB units: coreutils and
 * busybox both have it), as the panel asks `ps` and `tar`; where there is no df, node:fs's statfs.
 */
export async function diskSpace(path: string): Promise<{ free: number; size: number }> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command("df", { args: ["-P", "-k", "--", path], stdin: "null", stdout: "piped", stderr: "piped" }).output();
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
    // No df on this system: node:fs's statfs, which brings in the Node layer, but only here.
    const { statfsSync } = await import("node:fs");
    const s = statfsSync(path);
    return { free: s.bavail * s.bsize, size: s.blocks * s.bsize };
  }
  const text = new TextDecoder().decode(out.stdout);
  // "Filesystem 1024-blocks Used Available Capacity Mounted on", then one line; a name may hold spaces,
  // so the numbers are found by their shape: size, used, available, then the capacity with its "%".
  const m = out.success ? /\s(\d+)\s+(\d+)\s+(\d+)\s+\d+%\s/.exec(text.split("\n").slice(1).join(" ")) : null;
  if (!m) throw new Error(`df could not tell the free space of ${path}: ${new TextDecoder().decode(out.stderr).trim() || text.trim()}`);
  return { free: Number(m[3]) * 1024, size: Number(m[1]) * 1024 };
}
