// The saves directory: listing, creating with the game's own `--create`, taking in uploads, deleting, and
// reading a save's header. Names from requests go through saveFileName() (factorio/paths.ts) on every
// path; nothing here joins request input onto a directory itself.

import { readdir, rm, stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import type { Logger } from "../../lib/log.ts";
import type { FactorioPaths } from "../layout.ts";
import { inside, saveFileName } from "../paths.ts";
import { isSaveZip, readSaveHeader, readSaveVersion, SaveFileError } from "./header.ts";
import { Conflict, HttpError, Invalid, NotFound, UnsupportedMediaType } from "../../lib/errors.ts";
import { ensureDir } from "../../lib/fsutil.ts";
import { LOAD_LATEST, type Save, type SaveHeader } from "../../../shared/api.ts";
import { saveUploadNameProblem } from "../../../shared/validation.ts";
import { FolderCache } from "../../lib/foldercache.ts";
import { lazyCompare } from "../../../shared/util.ts";

/** Names with numbers sort as numbers ("save2" before "save10"); one collator, built on the first sort. */
const byName = lazyCompare({ numeric: true });

export interface SavesOptions {
  paths: Pick<FactorioPaths, "saves" | "binary" | "root">;
  log: Logger;
  /** The save file the game server has loaded while it runs, or null (stopped, or "Load Latest"). */
  inUse: () => string | null;
  /** How long `factorio --create` may run before it is stopped. */
  createTimeoutMs: number;
}

/** The old API's pseudo entry: not a file, it means "start from the newest save". */
export const LOAD_LATEST_ENTRY: Save = {
  name: LOAD_LATEST,
  last_mod: "0001-01-01T00:00:00Z",
  size: 0,
  factorio_version: null,
};

/** What a listing shows: save zips at the top level; never temp files, hidden files or directories. */
export function isListedSave(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.endsWith(".zip") && !name.startsWith(".") && !lower.endsWith(".tmp.zip");
}

export interface SaveFile {
  name: string;
  path: string;
  size: number;
  mtime: Date;
}

/** The last lines of a game run's output, for error messages; a chatty or stuck game cannot fill memory. */
export class OutputTail {
  private lines: string[] = [];
  private partial = "";
  constructor(private readonly max = 60) {}
  push(text: string) {
    const parts = (this.partial + text).split(/\r?\n/);
    this.partial = parts.pop() ?? "";
    if (this.partial.length > 4096) this.partial = this.partial.slice(-4096);
    this.lines.push(...parts.map((l) => l.slice(0, 4096)));
    if (this.lines.length > this.max) this.lines.splice(0, this.lines.length - this.max);
  }
  text(): string {
    return [...this.lines, this.partial].filter((l) => l !== "").join("\n");
  }
}

export async function pump(stream: ReadableStream<Uint8Array>, tail: OutputTail): Promise<void> {
  const decoder = new TextDecoder();
  for await (const chunk of stream) tail.push(decoder.decode(chunk, { stream: true }));
}

/** How a one-off run of the game (--create, a map preview, a data dump) ended. */
export interface GameRun {
  status: Deno.CommandStatus;
  /** It did not finish within the time it was given and was stopped. */
  timedOut: boolean;
  /** Its last lines of output. */
  output: string;
}

/**
 * Runs the game once (not as the server) in the Factorio directory, stopping it after `timeoutMs`.
 * Throws Error("cannot run the game (BINARY): why") when it cannot be started at all.
 */
export async function runGameOnce(
  paths: Pick<FactorioPaths, "binary" | "root">,
  args: string[],
  timeoutMs: number,
): Promise<GameRun> {
  const tail = new OutputTail();
  const timeout = AbortSignal.timeout(timeoutMs);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(paths.binary, {
      args,
      cwd: existsSync(paths.root) ? paths.root : undefined,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal: timeout,
    }).spawn();
  } catch (e) {
    throw new Error(`cannot run the game (${paths.binary}): ${(e as Error).message}`);
  }
  const [status] = await Promise.all([child.status, pump(child.stdout, tail), pump(child.stderr, tail)]);
  return { status, timedOut: timeout.aborted, output: tail.text() };
}

/** A listing, and the same listing as the JSON the API answers, so an unchanged list is not serialized again. */
export interface SaveListing {
  saves: Save[];
  /** The JSON, encoded once: an unchanged list is neither serialized nor encoded again. */
  /**
   * The listing as JSON text. Text, not bytes: a byte body is copied into a new ArrayBuffer for every
   * response (extractBody), which cost 10-140 µs per request in a process holding many buffers, while
   * Deno encodes a text body in Rust as it sends it.
   */
  json: string;
}

/** Saves' headers read at once while listing: all 500 at a time would hold 500 files open. */
const VERSION_READS = 8;

export class Saves {
  private creating: string | null = null;
  private readonly listing: FolderCache<SaveListing>;
  /**
   * Each save's game version by name, with the file's identity (inode, size, mtime) it was read from: a
   * listing after an autosave reads the header of that one file, not of every save again.
   */
  private readonly versions = new Map<string, { file: string; version: string | null }>();

  constructor(private readonly opts: SavesOptions) {
    this.listing = new FolderCache({
      watch: [opts.paths.saves],
      stamps: [opts.paths.saves],
      build: async () => {
        const saves = await this.scan();
        return { saves, json: JSON.stringify(saves) };
      },
    });
  }

  /** Tells the listing cache that the panel changed the folder (it would notice anyway; this makes it certain). */
  changed(): void {
    this.listing.invalidate();
  }

  close(): Promise<void> {
    return this.listing.close();
  }

  /** The save a running --create is making, if any. */
  get creatingNow(): string | null {
    return this.creating;
  }

  /**
   * Refuses while a --create runs: a second game process (another create, or the server) would work on
   * the same saves and mods directories at the same time.
   */
  assertNotCreating(): void {
    if (this.creating) {
      throw new Conflict(`The save ${this.creating} is being created; wait until it is done.`);
    }
  }

  get dir(): string {
    return this.opts.paths.saves;
  }

  /** Every save, by name (numbers in names sort as numbers), then the "Load Latest" entry. */
  async list(): Promise<Save[]> {
    return (await this.listing.get()).saves;
  }

  /** list() as JSON: at once when the kept listing is current, else once it is built. */
  listJson(): string | Promise<string> {
    const kept = this.listing.peek();
    return kept ? kept.json : this.listing.get().then((l) => l.json);
  }

  private async scan(): Promise<Save[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return [LOAD_LATEST_ENTRY];
      throw e;
    }
    // All stats in flight at once: one after another, 500 saves took 500 round trips to the thread pool.
    const found = await Promise.all(
      names.filter(isListedSave).map(async (name) => {
        try {
          const s = await stat(inside(this.dir, name));
          return s.isFile()
            ? {
              save: { name, last_mod: s.mtime.toISOString(), size: s.size },
              file: `${s.ino}:${s.size}:${s.mtimeMs}`,
            }
            : null;
        } catch {
          return null; // removed between readdir and stat, or a dangling link: not a save
        }
      }),
    );
    const files = found.filter((f) => f !== null);
    const versions = await this.readVersions(files.map((f) => ({ name: f.save.name, file: f.file })));
    const saves: Save[] = files.map((f, i) => ({ ...f.save, factorio_version: versions[i] }))
      .sort((a, b) => byName(a.name, b.name));
    return [...saves, LOAD_LATEST_ENTRY];
  }

  /**
   * The game version of each save, from its header, or null when the header cannot be read (not a save,
   * or a file the game is writing: its identity changes when it is done, and it is read again then).
   */
  private async readVersions(files: { name: string; file: string }[]): Promise<(string | null)[]> {
    const out: (string | null)[] = new Array(files.length).fill(null);
    let next = 0;
    const worker = async () => {
      while (next < files.length) {
        const i = next++;
        const { name, file } = files[i];
        const known = this.versions.get(name);
        if (known?.file === file) {
          out[i] = known.version;
          continue;
        }
        try {
          out[i] = await readSaveVersion(inside(this.dir, name));
        } catch (e) {
          // A file error (removed meanwhile, no file handle left) is not kept: the next listing tries again.
          if (!(e instanceof SaveFileError)) continue;
        }
        this.versions.set(name, { file, version: out[i] });
      }
    };
    await Promise.all(Array.from({ length: Math.min(VERSION_READS, files.length) }, worker));
    // Saves that are gone are forgotten.
    if (this.versions.size > files.length) {
      const names = new Set(files.map((f) => f.name));
      for (const name of this.versions.keys()) if (!names.has(name)) this.versions.delete(name);
    }
    return out;
  }

  /** An existing save by a name from a request; NotFound for anything that is not a listed save. */
  async find(input: unknown): Promise<SaveFile> {
    const name = saveFileName(input);
    const path = inside(this.dir, name);
    const s = isListedSave(name) ? await stat(path).catch(() => null) : null;
    if (!s?.isFile()) throw new NotFound(`Error finding save ${name}: save not found`);
    return { name, path, size: s.size, mtime: s.mtime };
  }

  /** Refuses to change the save the running game has loaded: it would write over it at the next save. */
  private refuseInUse(name: string, action: string) {
    const used = this.opts.inUse();
    if (used && saveFileName(used).toLowerCase() === name.toLowerCase()) {
      throw new Conflict(
        `Cannot ${action} ${name}: the running server has it loaded. Stop the server first.`,
      );
    }
  }

  async remove(input: unknown): Promise<string> {
    const save = await this.find(input);
    this.refuseInUse(save.name, "delete");
    await rm(save.path);
    this.changed();
    this.opts.log.info("Save deleted", { save: save.name });
    return `Removed save: ${save.name}`;
  }

  async header(input: unknown): Promise<SaveHeader> {
    const save = await this.find(input);
    try {
      return await readSaveHeader(save.path);
    } catch (e) {
      if (e instanceof SaveFileError) throw new Invalid(`${save.name} is not a readable save: ${e.message}.`);
      throw e;
    }
  }

  /**
   * The name an uploaded file is stored under, checked before its content is: a .zip (or no extension),
   * a plain name, and not the save the running game has loaded.
   */
  uploadName(filename: string): string {
    const problem = saveUploadNameProblem(filename);
    if (problem) throw new UnsupportedMediaType(problem);
    const name = saveFileName(filename, { what: "Savefile" });
    this.refuseInUse(name, "replace");
    return name;
  }

  /** Refuses an uploaded file that is not a save zip (415, with the reason). */
  async checkUploadedSave(tempPath: string, name: string): Promise<void> {
    const verdict = await isSaveZip(tempPath);
    if (!verdict.ok) throw new UnsupportedMediaType(`${name} is not a Factorio save: ${verdict.reason}.`);
  }

  ensureDir(): void {
    ensureDir(this.dir);
  }

  /**
   * Creates a new map with `<factorio> --create <saves>/<name>` (and `extraArgs`, e.g. the world
   * generator's `--map-gen-settings FILE`). The game writes the file itself; success is exit code 0 and the
   * file being there. Refuses to replace an existing save.
   */
  async create(input: unknown, extraArgs: string[] = []): Promise<string> {
    const name = saveFileName(input, { what: "Savefile Name", creating: true });
    const target = inside(this.dir, name);
    this.assertNotCreating();
    if (existsSync(target)) throw new Conflict(`A save named ${name} already exists. Choose another name.`);
    return await this.making(name, () => {
      this.ensureDir();
      return this.runCreate(name, target, extraArgs);
    });
  }

  /**
   * Runs `fn`, which makes the save `name` with a game run (--create, a scenario's --scenario2map), as the
   * one save being made: another one meanwhile gets 409, as two game processes must not share the folders.
   */
  async making<T>(name: string, fn: () => Promise<T>): Promise<T> {
    this.assertNotCreating();
    this.creating = name;
    try {
      return await fn();
    } finally {
      this.creating = null;
      this.changed();
    }
  }

  private async runCreate(name: string, target: string, extraArgs: string[]): Promise<string> {
    this.opts.log.info("Creating a save", { save: name });
    let run: GameRun;
    try {
      run = await runGameOnce(this.opts.paths, ["--create", target, ...extraArgs], this.opts.createTimeoutMs);
    } catch (e) {
      throw new HttpError(500, `Error creating save ${name}: ${(e as Error).message}`);
    }
    const { status, output } = run;
    const fail = async (why: string) => {
      // A partial file from a failed run is the game's leftover, never a save the user had (we refused
      // to start over an existing one).
      await rm(target, { force: true });
      this.opts.log.warn("Creating a save failed", { save: name, why });
      return new HttpError(
        500,
        `Error creating save ${name}: ${why}${output ? `\nGame output:\n${output}` : ""}`,
      );
    };
    if (run.timedOut) {
      throw await fail(
        `the game did not finish within ${Math.round(this.opts.createTimeoutMs / 1000)} s and was stopped`,
      );
    }
    if (!status.success) {
      throw await fail(
        status.signal ? `the game was ended by ${status.signal}` : `exit status ${status.code}`,
      );
    }
    if (!existsSync(target)) throw await fail("the game exited without writing the file");
    this.opts.log.info("Save created", { save: name });
    return `Save ${name} created successfully. Command output: \n${output}`;
  }
}
