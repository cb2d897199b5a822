// The simulated game while it hosts a map: players, the admin/white/ban lists (kept in their files as the
// real game keeps them in sync), the console commands RCON can run, saving, and quitting on a signal.

import { existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { writeFileAtomic } from "../../backend/lib/fsutil.ts";
import type { Output } from "./output.ts";
import { type HeaderMod, type SaveState, writeSave } from "./savefile.ts";

export interface ServerSettings {
  max_players?: number;
  auto_pause?: boolean;
  [key: string]: unknown;
}

export interface GameOptions {
  out: Output;
  version: string;
  build: number;
  mods: HeaderMod[];
  savePath: string;
  state: SaveState;
  settings: ServerSettings;
  adminList: string;
  whitelist: string | null;
  useWhitelist: boolean;
  banList: string;
  saveMs: number;
  savesDir: string;
  /** Size of the loaded map: saves keep it. */
  mapBytes?: number;
}

interface Ban {
  username: string;
  reason?: string;
}

function readNames(path: string | null): string[] {
  if (!path || !existsSync(path)) return [];
  try {
    const data = JSON.parse(readFileSync(path, "utf8"));
    return Array.isArray(data) ? data.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

function readBans(path: string): Ban[] {
  if (!existsSync(path)) return [];
  try {
    const data = JSON.parse(readFileSync(path, "utf8"));
    if (!Array.isArray(data)) return [];
    return data.flatMap((x): Ban[] => {
      if (typeof x === "string") return [{ username: x }];
      if (x && typeof x.username === "string") return [{ username: x.username, reason: x.reason }];
      return [];
    });
  } catch {
    return [];
  }
}

/** Splits on spaces; "double quoted" parts stay one word (player names with spaces). */
export function quotedWords(text: string): string[] {
  return [...text.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]).filter((w) => w !== "");
}

function same(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * The map's age as /time words it: hours are the largest unit ("110 hours, 28 minutes and 57 seconds" from a
 * 2.0.28 server, quoted in a public Prometheus exporter's parser; another RCON client's parser expects the same
 * shape: "H hours, M minutes and S seconds", units left out when zero, "1 hour" in the singular). Whole seconds,
 * rounded down. No source shows 1.1 or 2.1 wording it otherwise.
 */
export function formatGameTime(totalSeconds: number): string {
  const s = Math.floor(totalSeconds);
  const units: [number, string][] = [
    [Math.floor(s / 3600), "hour"],
    [Math.floor((s % 3600) / 60), "minute"],
    [s % 60, "second"],
  ];
  const words = units.filter(([n]) => n > 0).map(([n, u]) => `${n} ${u}${n === 1 ? "" : "s"}`);
  if (words.length === 0) return "0 seconds";
  if (words.length === 1) return words[0];
  return `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

/**
 * What the game answers the first Lua command (/c, /sc, ...) of a save whose achievements are still possible:
 * the command is not run, and the same command sent again is (then achievements are off for the save, and it
 * is saved so). Wording as quoted by clients that handle it against real servers (2.0.13, 2.0.77); clusterio
 * (packages/host/src/server.ts, disableAchievements) sends its probe twice for the same reason. Up to 2.0 the
 * warning is the RCON answer; a project driving 2.1.12 found the RCON answer empty and the warning in the
 * console log only, so 2.1 here answers nothing and prints the line.
 */
export const LUA_WARNING =
  "Using Lua console commands will disable achievements. Please repeat the command to proceed.";

const HELP = [
  "Available commands:",
  "  /admins - Prints a list of game admins.",
  "  /ban <player> <reason> - Bans the specified player.",
  "  /bans - Prints a list of banned players.",
  "  /command <command> - Executes a Lua command (if allowed).",
  "  /demote <player> - Demotes the player from admin.",
  "  /help [command] - Prints help for the given command or a list of available commands.",
  "  /kick <player> <reason> - Kicks the specified player.",
  "  /players [online/o] [count/c] - Prints a list of players in the game.",
  "  /promote <player> - Promotes the player to admin.",
  "  /save [<name>] - Saves the game.",
  "  /seed - Prints the starting map seed.",
  "  /server-save - Saves the game on the server in a multiplayer game.",
  "  /time - Prints info about how old the map is.",
  "  /unban <player> - Unbans the specified player.",
  "  /version - Prints the current game version.",
  "  /whitelist <add/remove/get/clear> [player] - Administration of the server whitelist.",
].join("\n");

export class HostedGame {
  readonly players = new Map<string, { online: boolean }>();
  #admins: string[];
  #whitelist: string[];
  #bans: Ban[];
  /** Ticks played when the clock last stopped or changed speed (fractional: folding it in loses nothing). */
  #tickBase: number;
  #runningSince: number | null = null;
  /** Updates per second while the game runs: 60, or what /fake-ups set (0 stands for a paused game). */
  #ups = 60;
  /** While a /fake-hang lasts: its end, which commands wait for; the clock stands still meanwhile. */
  #hang: Promise<void> | null = null;
  /** While /fake-cpu is on: a thread kept busy (a heavy map), so the game's CPU time grows as a test asks. */
  #busy: Worker | null = null;
  /** The Lua command the achievements warning was given for: the same text again runs it. */
  #luaWarned: string | null = null;
  #quitting = false;

  constructor(private readonly o: GameOptions) {
    this.#admins = readNames(o.adminList);
    this.#whitelist = readNames(o.whitelist);
    this.#bans = readBans(o.banList);
    this.#tickBase = o.state.tick;
    for (const p of o.state.players) this.players.set(p, { online: false });
    this.#updateClock();
  }

  get savePath(): string {
    return this.o.savePath;
  }

  /**
   * Game ticks played (game.tick), at #ups per second while the game runs. It stands still while the game is
   * paused: with auto_pause (the default) while nobody is online (2.0 also stays paused until the first
   * player is fully connected: changelog 2.0.0), at /fake-ups 0, and during a /fake-hang.
   */
  tick(): number {
    if (this.#runningSince === null) return Math.floor(this.#tickBase);
    return Math.floor(this.#tickBase + ((performance.now() - this.#runningSince) / 1000) * this.#ups);
  }

  #updateClock(): void {
    const paused = (this.o.settings.auto_pause !== false && this.#online().length === 0) || this.#ups === 0 ||
      this.#hang !== null;
    if (this.#runningSince !== null) {
      // Folded in at the old speed before anything changes.
      this.#tickBase += ((performance.now() - this.#runningSince) / 1000) * this.#ups;
      this.#runningSince = null;
    }
    if (!paused) this.#runningSince = performance.now();
  }

  #online(): string[] {
    return [...this.players].filter(([, p]) => p.online).map(([n]) => n);
  }

  #isAdmin(name: string): boolean {
    return this.#admins.some((a) => same(a, name));
  }

  #state(): SaveState {
    // What the map was made with (settings, scenario) stays with it, as in a real save.
    return { ...this.o.state, tick: this.tick(), players: [...this.players.keys()], seed: this.o.state.seed };
  }

  #writeList(path: string | null, list: unknown[]): void {
    if (!path) return;
    writeFileAtomic(path, JSON.stringify(list, null, 2) + "\n");
  }

  async save(path: string): Promise<void> {
    await new Promise((r) => setTimeout(r, this.o.saveMs));
    await writeSave(path, {
      version: this.o.version,
      build: this.o.build,
      mods: this.o.mods,
      state: this.#state(),
      mapBytes: this.o.mapBytes,
    });
  }

  /** Runs one console command as the server (RCON's identity) and returns the reply text. */
  async execute(input: string): Promise<string> {
    // A hung game answers nothing until it comes back.
    while (this.#hang) await this.#hang;
    const text = input.trim();
    if (text === "") return "";
    if (!text.startsWith("/")) {
      this.o.out.event("CHAT", `<server>: ${text}`);
      return "";
    }
    const [word, ...rest] = text.slice(1).split(/\s+/);
    const arg = text.slice(1 + word.length).trim();
    const out = this.o.out;
    switch (word) {
      case "players":
      case "p": {
        const onlineOnly = rest.some((r) => r === "online" || r === "o");
        const countOnly = rest.some((r) => r === "count" || r === "c");
        const names = onlineOnly ? this.#online() : [...this.players.keys()];
        const title = `${onlineOnly ? "Online players" : "Players"} (${names.length})`;
        if (countOnly) return title;
        return [`${title}:`, ...names.map((n) => `  ${n}${this.players.get(n)!.online ? " (online)" : ""}`)]
          .join("\n");
      }
      case "admins": {
        return [
          `Admins (${this.#admins.length}):`,
          ...this.#admins.map((n) => `  ${n}${this.players.get(n)?.online ? " (online)" : ""}`),
        ].join("\n");
      }
      case "time":
        return formatGameTime(this.tick() / 60);
      case "version":
        return this.o.version;
      case "seed":
        return String(this.o.state.seed);
      case "help":
      case "h":
        return HELP;
      case "save": {
        if (arg.toLowerCase().startsWith("_autosave")) return "You can't save over an autosave.";
        if (/[/\\]|\.\./.test(arg)) return `Invalid save name "${arg}".`;
        const target = arg === ""
          ? this.o.savePath
          : join(this.o.savesDir, arg.endsWith(".zip") ? arg : `${arg}.zip`);
        return await this.#saveCommand(target);
      }
      case "server-save":
        return await this.#saveCommand(this.o.savePath);
      case "c":
      case "command":
      case "sc":
      case "silent-command":
      case "measured-command":
        return this.#lua(word, text, arg);
      case "promote": {
        if (!arg) return "Missing player name.";
        if (this.#isAdmin(arg)) return `${arg} is already an admin.`;
        this.#admins.push(arg);
        this.#writeList(this.o.adminList, this.#admins);
        out.event("PROMOTE", `${arg} was promoted to admin by <server>.`);
        return `${arg} was promoted to admin by <server>.`;
      }
      case "demote": {
        if (!arg) return "Missing player name.";
        if (!this.#isAdmin(arg)) return `${arg} is not an admin.`;
        this.#admins = this.#admins.filter((a) => !same(a, arg));
        this.#writeList(this.o.adminList, this.#admins);
        out.event("DEMOTE", `${arg} was demoted from admin by <server>.`);
        return `${arg} was demoted from admin by <server>.`;
      }
      case "whitelist":
        return this.#whitelistCommand(rest[0] ?? "", rest[1] ?? "");
      case "ban": {
        const [name, ...why] = rest;
        if (!name) return "Missing player name.";
        const reason = why.join(" ") || "unspecified";
        const notOnMap = this.players.has(name) ? "" : " (not on map)";
        this.#bans = this.#bans.filter((b) => !same(b.username, name));
        this.#bans.push({ username: name, reason });
        this.#writeList(this.o.banList, this.#bans.map((b) => (b.reason ? b : b.username)));
        const line = `${name}${notOnMap} was banned by <server>. Reason: ${reason}.`;
        out.event("BAN", line);
        if (this.players.get(name)?.online) this.#leave(name);
        return line;
      }
      case "unban": {
        if (!arg) return "Missing player name.";
        if (!this.#bans.some((b) => same(b.username, arg))) return `${arg} is not banned.`;
        this.#bans = this.#bans.filter((b) => !same(b.username, arg));
        this.#writeList(this.o.banList, this.#bans.map((b) => (b.reason ? b : b.username)));
        out.event("UNBANNED", `${arg} was unbanned by <server>.`);
        return `${arg} was unbanned by <server>.`;
      }
      case "bans":
        return [
          `Banned players (${this.#bans.length}):`,
          ...this.#bans.map((b) => `  ${b.username}${b.reason ? `: ${b.reason}` : ""}`),
        ].join("\n");
      case "kick": {
        const [name, ...why] = rest;
        if (!name) return "Missing player name.";
        if (!this.players.get(name)?.online) return `Player ${name} is not online.`;
        const line = `${name} was kicked by <server>. Reason: ${why.join(" ") || "unspecified"}.`;
        out.event("KICK", line);
        this.#leave(name);
        return line;
      }
      // The simulator's own commands, for tests and the demo.
      // Names with spaces (servers that do not verify identities allow them) are given in double quotes.
      case "fake-join":
        return quotedWords(arg).map((n) => this.#join(n)).filter((r) => r !== "").join("\n");
      case "fake-leave":
        for (const n of quotedWords(arg)) if (this.players.get(n)?.online) this.#leave(n);
        return "";
      case "fake-chat": {
        // The text is kept as typed; only the name may be quoted.
        const m = /^(?:"([^"]+)"|(\S+))\s+(\S.*)$/s.exec(arg);
        if (!m) return "Usage: /fake-chat <player> <text>";
        out.event("CHAT", `${m[1] ?? m[2]}: ${m[3]}`);
        return "";
      }
      case "fake-flood": {
        // Benchmarks: COUNT chat lines, each carrying the time it was printed (ms since the epoch).
        const count = Math.min(Number.parseInt(rest[0] ?? "1000", 10) || 0, 1_000_000);
        const perSecond = Number.parseInt(rest[1] ?? "0", 10) || 0;
        void this.#flood(count, perSecond);
        return "";
      }
      case "fake-save-delay": {
        // How long the next saves take (ms); a long delay stands for a game that hangs while saving.
        const ms = Number.parseInt(rest[0] ?? "", 10);
        if (!Number.isFinite(ms) || ms < 0) return "Usage: /fake-save-delay MS";
        this.o.saveMs = ms;
        return `Saves take ${ms} ms.`;
      }
      case "fake-ups": {
        // The game's speed: 60 UPS when it keeps up, fewer on an overloaded server, 0 a paused game (which
        // still answers). auto_pause stops it whatever this says.
        const ups = Number(rest[0]);
        if (rest.length !== 1 || !Number.isFinite(ups) || ups < 0 || ups > 1000) {
          return "Usage: /fake-ups UPS (0 to 1000; 0 pauses)";
        }
        this.#updateClock();
        this.#ups = ups;
        this.#updateClock();
        return `The game runs at ${ups} UPS.`;
      }
      case "fake-cpu": {
        // A heavy map: one thread of the game busy (about one core), for the panel's CPU figure.
        if (rest[0] === "on") {
          const code = URL.createObjectURL(new Blob(["for (;;) {}"], { type: "application/javascript" }));
          this.#busy ??= new Worker(code, { type: "module" });
          return "One thread of the game is busy.";
        }
        if (rest[0] === "off") {
          this.#busy?.terminate();
          this.#busy = null;
          return "The game is idle.";
        }
        return "Usage: /fake-cpu on|off";
      }
      case "fake-hang": {
        // A game stuck in its main loop for MS milliseconds: no RCON answer (this one included) and no ticks.
        const ms = Number.parseInt(rest[0] ?? "", 10);
        if (!Number.isFinite(ms) || ms <= 0) return "Usage: /fake-hang MS";
        let end!: () => void;
        const over = new Promise<void>((r) => (end = r));
        this.#hang = over;
        this.#updateClock();
        setTimeout(() => {
          this.#hang = null;
          this.#updateClock();
          end();
        }, ms);
        await over;
        return "";
      }
      case "fake-crash":
        this.crash(Number.parseInt(rest[0] ?? "1", 10) || 1);
        return "";
      default:
        return `Unknown command "${word}".`;
    }
  }

  /**
   * A Lua command. No Lua runs here: what monitoring sends is understood (`rcon.print(game.tick)`, and
   * `game.ticks_played`, printed with the newline rcon.print adds), anything else prints nothing. /c and
   * /command are logged as "[COMMAND] <server> (command): ..."; /silent-command is the one that does not
   * print the command to the console (changelog 0.14.?: "Same as /c, but doesn't print the command ran").
   */
  #lua(word: string, text: string, lua: string): string {
    if (!this.o.state.commands_used) {
      if (this.#luaWarned !== text) {
        this.#luaWarned = text;
        const [major, minor] = this.o.version.split(".").map(Number);
        if (major < 2 || (major === 2 && minor === 0)) return LUA_WARNING;
        this.o.out.event("WARNING", LUA_WARNING);
        return "";
      }
      this.o.state.commands_used = true;
    }
    if (word !== "sc" && word !== "silent-command") this.o.out.event("COMMAND", `<server> (command): ${lua}`);
    const m = /^rcon\.print\(\s*game\.(tick|ticks_played)\s*\)\s*;?$/.exec(lua);
    return m ? `${this.tick()}\n` : "";
  }

  async #flood(count: number, perSecond: number): Promise<void> {
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      if (perSecond > 0) {
        const due = started + (i * 1000) / perSecond;
        const wait = due - performance.now();
        if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      } else if (i % 500 === 499) {
        await new Promise((r) => setTimeout(r, 0)); // let RCON and signals in
      }
      this.o.out.event("CHAT", `bench: ${i} ${Date.now()}`);
    }
  }

  async #saveCommand(target: string): Promise<string> {
    // The game says which save it writes, then when the file is complete. 1.1 names the whole path
    // ("Saving game as /opt/factorio/saves/NAME.zip", AppManager.cpp:440, then AppManagerStates.cpp:2007:
    // "Saving finished"); 2.x names the save without its folder and extension.
    const old = this.o.version.startsWith("1.");
    if (old) this.o.out.engine(`Info AppManager.cpp:440: Saving game as ${target}`);
    else {this.o.out.engine(
        `Info AppManager.cpp:287: Saving to ${basename(target).replace(/\.zip$/i, "")} (blocking).`,
      );}
    await this.save(target);
    this.o.out.engine(`Info AppManagerStates.cpp:${old ? 2007 : 1843}: Saving finished`);
    return `Saving map as ${target}`;
  }

  #whitelistCommand(action: string, name: string): string {
    switch (action) {
      case "add":
        if (!name) return "Missing player name.";
        if (this.#whitelist.some((w) => same(w, name))) return `${name} is already in the whitelist.`;
        this.#whitelist.push(name);
        this.#writeList(this.o.whitelist, this.#whitelist);
        return `Added ${name} to the whitelist.`;
      case "remove":
        if (!name) return "Missing player name.";
        if (!this.#whitelist.some((w) => same(w, name))) return `${name} is not in the whitelist.`;
        this.#whitelist = this.#whitelist.filter((w) => !same(w, name));
        this.#writeList(this.o.whitelist, this.#whitelist);
        return `Removed ${name} from the whitelist.`;
      case "get":
        return this.#whitelist.length === 0
          ? "The whitelist is empty."
          : `Whitelisted players (${this.#whitelist.length}):\n${
            this.#whitelist.map((w) => `  ${w}`).join("\n")
          }`;
      case "clear":
        this.#whitelist = [];
        this.#writeList(this.o.whitelist, this.#whitelist);
        return "The whitelist was cleared.";
      default:
        return "Usage: /whitelist <add/remove/get/clear> [player]";
    }
  }

  #join(name: string): string {
    const out = this.o.out;
    if (this.players.get(name)?.online) return `${name} is already online.`;
    const refuse = (why: string) => {
      out.engine(`Info ServerMultiplayerManager.cpp:1058: Refusing connection for ${name}: ${why}`);
      return `${name} could not join: ${why}`;
    };
    if (this.#bans.some((b) => same(b.username, name))) return refuse("banned");
    if (this.o.useWhitelist && this.#whitelist.length > 0 && !this.#whitelist.some((w) => same(w, name))) {
      return refuse("not whitelisted");
    }
    const max = this.o.settings.max_players ?? 0;
    if (max > 0 && this.#online().length >= max && !this.#isAdmin(name)) return refuse("the server is full");
    this.players.set(name, { online: true });
    out.engine(
      `Info ServerMultiplayerManager.cpp:1098: Player ${name} joined the game (peer ${this.players.size})`,
    );
    out.event("JOIN", `${name} joined the game`);
    this.#updateClock();
    return "";
  }

  #leave(name: string): void {
    this.players.set(name, { online: false });
    this.o.out.event("LEAVE", `${name} left the game`);
    this.#updateClock();
  }

  /** Saves and exits 0, with the lines the game prints on SIGINT/SIGTERM. */
  async quit(signal: "SIGINT" | "SIGTERM"): Promise<never> {
    if (this.#quitting) return await new Promise<never>(() => {});
    this.#quitting = true;
    const out = this.o.out;
    out.engine(`Received ${signal}, shutting down`);
    out.engine("Quitting: signal.");
    out.engine(`Info MainLoop.cpp:437: Saving map as ${this.o.savePath}`);
    await this.save(this.o.savePath);
    out.engine("Info MainLoop.cpp:448: Saving progress: 100.000000%");
    out.engine("Goodbye");
    out.close();
    Deno.exit(0);
  }

  /** Dies like a crashing game: a crash report, no save, a non-zero exit. */
  crash(code: number): never {
    const out = this.o.out;
    out.engine("Error Util.cpp:83: Received SIGSEGV");
    out.raw("Factorio crashed. Generating symbolized stacktrace, please wait ...");
    out.raw("#0 0x0000000000c0ffee in FakeFactorio::simulateCrash() at src/Simulator.cpp:42");
    out.raw("Stack trace logging done");
    out.engine(`Error CrashHandler.cpp:560: Map tick at moment of crash: ${this.tick()}`);
    out.engine(
      "Error Util.cpp:83: Unexpected error occurred. If you're running the latest version of the game you can help us solve the problem by posting the contents of the log file on the Factorio forums.",
    );
    out.close();
    Deno.exit(code);
  }
}
