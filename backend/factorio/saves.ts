// The saves directory: listing, creating with the game's own `--create`, taking in uploads, deleting, and
// reading a save's header. Names from requests go through saveFileName() (factorio/paths.ts) on every
// path; nothing here joins request input onto a directory itself.

import { readdir, rm, stat } from "node:fs/promises";
import { existsSync } from "node:fs";
import type { Logger } from "../log.ts";
import type { FactorioPaths } from "./layout.ts";
import { inside, saveFileName } from "./paths.ts";
import { isSaveZip, readSaveHeader, SaveFileError } from "./savefile.ts";
import { Conflict, HttpError, Invalid, NotFound, UnsupportedMediaType } from "../errors.ts";
import { ensureDir } from "../fsutil.ts";
import { LOAD_LATEST, type Save, type SaveHeader } from "../../shared/api.ts";
import { saveUploadNameProblem } from "../../shared/validation.ts";

export interface SavesOptions {
  paths: Pick<FactorioPaths, "saves" | "binary" | "root">;
  log: Logger;
  /** The save file the game server has loaded while it runs, or null (stopped, or "Load Latest"). */
  inUse: () => string | null;
  /** How long `factorio --create` may run before it is stopped. */
  createTimeoutMs: number;
}

/** The old API's pseudo entry: not a file, it means "start from the newest save". */
export const LOAD_LATEST_ENTRY: Save = { name: LOAD_LATEST, last_mod: "0001-01-01T00:00:00Z", size: 0 };

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

/** Keeps the last lines of a process's output, so a chatty or stuck game cannot fill memory. */
/** The last lines of a game run's output, for error messages. */
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

export class Saves {
  private creating: string | null = null;

  constructor(private readonly opts: SavesOptions) {}

  /** The save a running --create is making, if any. */
  get creatingNow(): string | null {
    return this.creating;
  }

  /**
   * Refuses while a --create runs: a second game process (another create, or the server) would work on
   * the same saves and mods directories at the same time.
   */
  assertNotCreating(): void {
    if (this.creating) throw new Conflict(`The save ${this.creating} is being created; wait until it is done.`);
  }

  get dir(): string {
    return this.opts.paths.saves;
  }

  /** Every save, by name (numbers in names sort as numbers), then the "Load Latest" entry. */
  async list(): Promise<Save[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return [LOAD_LATEST_ENTRY];
      throw e;
    }
    const saves: Save[] = [];
    for (const name of names.filter(isListedSave)) {
      try {
        const s = await stat(inside(this.dir, name));
        if (s.isFile()) saves.push({ name, last_mod: s.mtime.toISOString(), size: s.size });
      } catch {
        // removed between readdir and stat, or a dangling link: not a save
      }
    }
    saves.sort((a, b) => a.name.localeCompare(b.name, "en", { numeric: true }));
    return [...saves, LOAD_LATEST_ENTRY];
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
      throw new Conflict(`Cannot ${action} ${name}: the running server has it loaded. Stop the server first.`);
    }
  }

  async remove(input: unknown): Promise<string> {
    const save = await this.find(input);
    this.refuseInUse(save.name, "delete");
    await rm(save.path);
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
    this.creating = name;
    try {
      this.ensureDir();
      return await this.runCreate(name, target, extraArgs);
    } finally {
      this.creating = null;
    }
  }

  private async runCreate(name: string, target: string, extraArgs: string[]): Promise<string> {
    const { binary, root } = this.opts.paths;
    const tail = new OutputTail();
    const timeout = AbortSignal.timeout(this.opts.createTimeoutMs);
    this.opts.log.info("Creating a save", { save: name });
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(binary, {
        args: ["--create", target, ...extraArgs],
        cwd: existsSync(root) ? root : undefined,
        stdin: "null",
        stdout: "piped",
        stderr: "piped",
        signal: timeout,
      }).spawn();
    } catch (e) {
      throw new HttpError(500, `Error creating save ${name}: cannot run the game (${binary}): ${(e as Error).message}`);
    }
    const [status] = await Promise.all([child.status, pump(child.stdout, tail), pump(child.stderr, tail)]);
    const output = tail.text();
    const fail = async (why: string) => {
      // A partial file from a failed run is the game's leftover, never a save the user had (we refused
      // to start over an existing one).
      await rm(target, { force: true });
      this.opts.log.warn("Creating a save failed", { save: name, why });
      return new HttpError(500, `Error creating save ${name}: ${why}${output ? `\nGame output:\n${output}` : ""}`);
    };
    if (timeout.aborted) throw await fail(`the game did not finish within ${Math.round(this.opts.createTimeoutMs / 1000)} s and was stopped`);
    if (!status.success) {
      throw await fail(status.signal ? `the game was ended by ${status.signal}` : `exit status ${status.code}`);
    }
    if (!existsSync(target)) throw await fail("the game exited without writing the file");
    this.opts.log.info("Save created", { save: name });
    return `Save ${name} created successfully. Command output: \n${output}`;
  }
}
