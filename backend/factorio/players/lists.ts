// The game's player lists: server-adminlist.json, server-whitelist.json and server-banlist.json. They are
// the game's files and the game edits them too (in-game /ban, /promote, /whitelist ...), so the panel
// never keeps its own copy: every read goes to the files, every change is a read-modify-write of the
// file as it is now. While the game runs, a change is sent to it over RCON first (the game holds the
// lists in memory and writes them back), then the file is brought in line.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { FactorioPaths } from "../layout.ts";
import type { GameControl } from "../game/control.ts";
import type { EventBus } from "../../lib/events.ts";
import type { Logger } from "../../lib/log.ts";
import { writeJsonAtomic } from "../../lib/fsutil.ts";
import { Conflict, GameFailed, Invalid, NotFound } from "../../lib/errors.ts";
import type { BanEntry, PlayerLists } from "../../../shared/api.ts";
import {
  banReasonError,
  LIST_TITLES,
  type PlayerList,
  playerNameError,
  sameName,
} from "../../../shared/players.ts";
import { PANEL_MSG } from "../../../shared/messages.ts";

const MAX_LIST_BYTES = 4 * 1024 * 1024;

interface ListFile {
  /** The entries as stored: names, or objects such as {username, reason, address} in the ban list. */
  entries: unknown[];
}

function entryName(entry: unknown): string | null {
  if (typeof entry === "string") return entry;
  if (
    typeof entry === "object" && entry !== null &&
    typeof (entry as { username?: unknown }).username === "string"
  ) {
    return (entry as { username: string }).username;
  }
  return null;
}

function entryReason(entry: unknown): string {
  const reason = typeof entry === "object" && entry !== null
    ? (entry as { reason?: unknown }).reason
    : undefined;
  return typeof reason === "string" ? reason : "";
}

export interface PlayersOptions {
  paths: FactorioPaths;
  /** Where the panel keeps its own player options (the "use whitelist" switch). */
  dataDir: string;
  game: GameControl;
  bus: EventBus;
  log: Logger;
}

export class Players {
  readonly #o: PlayersOptions;
  readonly #optionsFile: string;
  /** List changes run one at a time: each is read-modify-write around an RCON call. */
  #queue: Promise<unknown> = Promise.resolve();
  /** The lists when the game started, to report what the game changed while it ran. */
  #atStart: PlayerLists | null = null;

  constructor(o: PlayersOptions) {
    this.#o = o;
    this.#optionsFile = join(o.dataDir, "players.json");
    o.bus.on("server.status", ({ status, exit }) => {
      if (status.status === "starting") this.#atStart = this.#safeLists();
      // The game writes in-game list edits to the files; re-read them now that it is gone.
      if (exit) this.#reportGameEdits();
    });
  }

  #path(list: PlayerList): string {
    const { paths } = this.#o;
    return list === "admins" ? paths.adminList : list === "whitelist" ? paths.whitelist : paths.banlist;
  }

  #read(list: PlayerList): ListFile {
    const path = this.#path(list);
    if (!existsSync(path)) return { entries: [] };
    const bytes = readFileSync(path);
    if (bytes.length > MAX_LIST_BYTES) throw new Conflict(`${path} is too large to be a player list.`);
    const text = new TextDecoder().decode(bytes).replace(/^\uFEFF/, "");
    if (text.trim() === "") return { entries: [] };
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      throw new Conflict(`${path} is not valid JSON (${(e as Error).message}). Fix or delete it.`);
    }
    if (!Array.isArray(value)) throw new Conflict(`${path} must hold a JSON list of player names.`);
    return { entries: value };
  }

  #names(list: PlayerList): string[] {
    return this.#read(list).entries.map(entryName).filter((n): n is string => n !== null);
  }

  #write(list: PlayerList, entries: unknown[]): void {
    writeJsonAtomic(this.#path(list), entries);
  }

  useWhitelist(): boolean {
    try {
      return JSON.parse(readFileSync(this.#optionsFile, "utf8")).use_whitelist === true;
    } catch {
      // Never set here. A factorio-docker volume (config/rconpw) enforces a whitelist that has names in it;
      // keep doing what it did. Anywhere else the panel's own default: off.
      return existsSync(join(this.#o.paths.configDir, "rconpw")) && this.#names("whitelist").length > 0;
    }
  }

  #live(): boolean {
    const state = this.#o.game.status().status;
    if (state === "running") return true;
    if (state === "stopped") return false;
    throw new Conflict(PANEL_MSG.playersBusy);
  }

  lists(): PlayerLists {
    const bans: BanEntry[] = [];
    for (const e of this.#read("bans").entries) {
      const username = entryName(e);
      if (username !== null) bans.push({ username, reason: entryReason(e) });
    }
    return {
      admins: this.#names("admins"),
      whitelist: this.#names("whitelist"),
      use_whitelist: this.useWhitelist(),
      bans,
      live: this.#o.game.status().status === "running",
    };
  }

  #safeLists(): PlayerLists | null {
    try {
      return this.lists();
    } catch {
      return null;
    }
  }

  admins(): string[] {
    return this.#names("admins");
  }

  /** Throws Invalid naming the first bad name. */
  checkNames(names: string[]): void {
    for (const name of names) {
      const error = playerNameError(name);
      if (error) throw new Invalid(`admins: ${error}.`);
    }
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn);
    this.#queue = run.catch(() => {});
    return run;
  }

  /** Adds a player to a list; `reason` is for the ban list. */
  add(list: PlayerList, username: unknown, reason?: unknown): Promise<PlayerLists> {
    const nameError = playerNameError(username);
    if (nameError) throw new Invalid(nameError);
    const reasonError = list === "bans" ? banReasonError(reason) : undefined;
    if (reasonError) throw new Invalid(reasonError);
    const name = username as string;
    const why = typeof reason === "string" ? reason.trim() : "";
    return this.#serial(async () => {
      if (this.#names(list).some((n) => sameName(n, name))) {
        throw new Conflict(`${name} is already on the ${LIST_TITLES[list]}.`);
      }
      if (this.#live()) await this.#rcon(addCommand(list, name, why));
      this.#apply(list, (entries) => {
        if (entries.some((e) => sameName(entryName(e) ?? "", name))) return null; // the game wrote it already
        return [...entries, list === "bans" ? { username: name, reason: why } : name];
      });
      return this.lists();
    });
  }

  /** Removes a player from a list (every spelling of the name: the game compares names without case). */
  remove(list: PlayerList, username: unknown): Promise<PlayerLists> {
    return this.#serial(async () => {
      const names = this.#names(list);
      const name = typeof username === "string" ? username : "";
      const present = names.some((n) => n === name);
      // A name already in the file may be removed even if the panel would not accept it as new, unless it
      // has to go into an RCON command.
      const nameError = playerNameError(username);
      if (nameError && !(present && !this.#live())) throw new Invalid(nameError);
      if (!names.some((n) => sameName(n, name))) {
        throw new NotFound(`${name} is not on the ${LIST_TITLES[list]}.`);
      }
      if (this.#live()) await this.#rcon(removeCommand(list, name));
      this.#apply(list, (entries) => {
        const kept = entries.filter((e) => !sameName(entryName(e) ?? "", name));
        return kept.length === entries.length ? null : kept;
      });
      return this.lists();
    });
  }

  /** Makes the admin list equal `names` (the spec's settings form edits it as a whole). */
  setAdmins(names: string[]): Promise<unknown> {
    this.checkNames(names);
    return (async () => {
      const current = this.#names("admins");
      for (const n of current) if (!names.some((x) => sameName(x, n))) await this.remove("admins", n);
      for (const n of names) {
        if (!this.#names("admins").some((x) => sameName(x, n))) await this.add("admins", n);
      }
    })();
  }

  setUseWhitelist(on: unknown): PlayerLists {
    if (typeof on !== "boolean") throw new Invalid(PANEL_MSG.useWhitelistInvalid);
    writeJsonAtomic(this.#optionsFile, { use_whitelist: on });
    return this.lists();
  }

  /** Names of the players online now, from the game's `/players online`. */
  async online(): Promise<string[]> {
    if (this.#o.game.status().status !== "running") return [];
    return parseOnlinePlayers(await this.#o.game.rcon("/players online"));
  }

  async kick(username: unknown, reason?: unknown): Promise<string> {
    const nameError = playerNameError(username);
    if (nameError) throw new Invalid(nameError);
    const reasonError = banReasonError(reason);
    if (reasonError) throw new Invalid(reasonError.replace("ban reason", "kick reason"));
    if (this.#o.game.status().status !== "running") throw new Conflict(PANEL_MSG.playersNotRunning);
    const why = typeof reason === "string" ? reason.trim() : "";
    const reply = await this.#rcon(`/kick ${username}${why ? " " + why : ""}`);
    // The game answers a kick of someone who already left with "Player NAME is not online."
    if (/\bnot online\b/i.test(reply)) throw new Conflict(reply);
    return reply;
  }

  /**
   * What the game gets at every start: its whitelist and ban list files (the admin list is passed by the
   * game server itself), and whether to enforce the whitelist. The files are created empty when missing,
   * so the game always has a file to write in-game changes to.
   */
  launchArgs(): string[] {
    for (const list of ["admins", "whitelist", "bans"] as const) {
      if (!existsSync(this.#path(list))) this.#write(list, []);
    }
    return [
      "--server-whitelist",
      this.#o.paths.whitelist,
      "--use-server-whitelist",
      this.useWhitelist() ? "true" : "false",
      "--server-banlist",
      this.#o.paths.banlist,
    ];
  }

  async #rcon(command: string): Promise<string> {
    const reply = await this.#o.game.rcon(command);
    const what = command.split(" ").slice(0, 3).join(" ");
    // Never report a change the game did not make: a refusal leaves the file as it was.
    if (gameRefused(reply)) {
      this.#o.log.warn("The game refused a player list change", { command: what, reply });
      throw new GameFailed(`The game refused the change: ${reply.trim()}`, 422);
    }
    this.#o.log.info("Player list change sent to the game", { command: what });
    return reply;
  }

  /** Read-modify-write of a list file; `change` returns null when there is nothing to write. */
  #apply(list: PlayerList, change: (entries: unknown[]) => unknown[] | null): void {
    const next = change(this.#read(list).entries);
    if (next) this.#write(list, next);
  }

  #reportGameEdits(): void {
    const before = this.#atStart;
    this.#atStart = null;
    const after = this.#safeLists();
    if (!before || !after) return;
    const changes: string[] = [];
    const diff = (title: string, a: string[], b: string[]) => {
      const added = b.filter((n) => !a.some((x) => sameName(x, n)));
      const removed = a.filter((n) => !b.some((x) => sameName(x, n)));
      if (added.length || removed.length) {
        changes.push(`${title}: ${[...added.map((n) => "+" + n), ...removed.map((n) => "-" + n)].join(" ")}`);
      }
    };
    diff("admins", before.admins, after.admins);
    diff("whitelist", before.whitelist, after.whitelist);
    diff("bans", before.bans.map((b) => b.username), after.bans.map((b) => b.username));
    if (changes.length) {
      this.#o.log.info("Player lists after the game stopped", { changes: changes.join("; ") });
    }
  }
}

/**
 * Whether the game's console answer says it did not do what was asked (an unknown or disabled command, a
 * player it does not know, a refusal). "Already on the list" and "not on the list" are not refusals: the
 * game's list then is what the panel wanted.
 */
export function gameRefused(reply: string): boolean {
  return /unknown command|doesn't exist|does not exist|cannot|can't|not allowed|no permission|invalid|error|failed/i
    .test(reply);
}

function addCommand(list: PlayerList, name: string, reason: string): string {
  if (list === "admins") return `/promote ${name}`;
  if (list === "whitelist") return `/whitelist add ${name}`;
  return `/ban ${name}${reason ? " " + reason : ""}`;
}

function removeCommand(list: PlayerList, name: string): string {
  if (list === "admins") return `/demote ${name}`;
  if (list === "whitelist") return `/whitelist remove ${name}`;
  return `/unban ${name}`;
}

/**
 * The game answers `/players online` with a header line ("Online players (2):") and one indented line
 * per player ("  alice (online)"). Names are taken whole, as the player history takes them from the
 * console log (players/logline.ts): servers that do not verify identities let players pick names with
 * spaces and any letters, which the rules for names added to a list (playerNameError) would drop.
 */
export function parseOnlinePlayers(reply: string): string[] {
  const names: string[] = [];
  for (const line of reply.split(/\r?\n/)) {
    const m = /^\s+(.+?)(?: \(online\))?\s*$/.exec(line);
    if (m) names.push(m[1]);
  }
  return names;
}
