// The game server process: start, save & stop, kill, the status machine, crash detection, automatic
// restart, the console over RCON, and re-attaching to a game that kept running while the panel restarted.
//
// The game runs detached (its own session, so a Ctrl-C or a restart of the panel does not reach it), with
// stdout and stderr going to a file in the panel's data dir that the panel follows. Its pid, start time
// and launch settings are kept in <data-dir>/game-process.json, so a new panel process finds it again.
// Every state change is published on the bus ("server.status"), every output line too ("server.log");
// the /ws rooms, the status route and the notifier all read from there.
//
// The RCON port and password are generated once and kept owner-only in <data-dir>/rcon.json. The game
// itself prints its command line (with the password) to its log: every line the panel passes on is
// redacted first.

import { existsSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { basename, join } from "node:path";
import { randomBytes } from "node:crypto";
import type { Config } from "../config.ts";
import type { EventBus } from "../events.ts";
import type { Logger } from "../log.ts";
import type { GameControl, LaunchArgsProvider } from "./game.ts";
import { ensureServerSettingsFile, factorioPaths, type FactorioPaths } from "./layout.ts";
import { inside, safeName } from "./paths.ts";
import { FileTail, lastLines } from "./gamelog.ts";
import { RconClient, RconError, MAX_COMMAND_BYTES } from "./rcon.ts";
import { Conflict, HttpError, Invalid, NotFound, Upstream } from "../errors.ts";
import { ensureDir, writeFileAtomic, writeJsonAtomic, writeSecretFile } from "../fsutil.ts";
import {
  DEFAULT_BIND_IP,
  DEFAULT_GAME_PORT,
  LOAD_LATEST,
  type ServerExit,
  type ServerState,
  type ServerStatus,
  type StartRequest,
} from "../../shared/api.ts";
import { MSG, PANEL_MSG } from "../../shared/messages.ts";
import { firstError, portNumber, validateStart } from "../../shared/validation.ts";
import type { Hub } from "../ws/hub.ts";

/** Output lines kept for the console's replay and for crash reports. */
export const RECENT_LINES = 200;
/** Lines of output a crash report (ServerExit.last_lines) carries. */
export const EXIT_LINES = 20;
/** How long start/stop answers wait for the game before answering that it is still busy. */
export const ANSWER_WAIT_MS = 45_000;
/** How often a re-attached game (not the panel's child, so no exit event) is checked for life. */
const LIVENESS_POLL_MS = 250;
const REDACTED = "********";

const HOSTING = /changing state from\(CreatingGame\) to\(InGame\)/;
const RCON_READY = /Starting RCON interface at /;
const LOADING_MAP = /^\s*\d+\.\d+ Loading map (.+): \d+ bytes\.$/;

interface RunRecord {
  pid: number;
  /** Start time of the process (/proc/<pid>/stat field 22), so a reused pid is never mistaken for the game. */
  startTicks: string;
  outputFile: string;
  bindip: string;
  port: number;
  savefile: string;
  startedAt: string;
  /** The RCON port this run listens on (the password is in rcon.json). */
  rconPort: number;
  hosting: boolean;
  requested: "stop" | "kill" | null;
}

interface Run extends RunRecord {
  tail: FileTail;
  /** This run's recent output (redacted), for its exit report. */
  lines: string[];
  rconReady: boolean;
  hostingWaiters: (() => void)[];
  ended: Promise<void>;
  endedResolve: () => void;
  liveness?: ReturnType<typeof setInterval>;
}

interface RconSecret {
  port: number;
  password: string;
}

/** Resolves with `p`, or with "timeout" after `ms`; the timer never outlives the race. */
async function within<T>(p: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([p, new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

function procStat(pid: number): { startTicks: string; zombie: boolean } | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return { startTicks: fields[19], zombie: fields[0] === "Z" || fields[0] === "X" };
  } catch {
    return null;
  }
}

/**
 * Whether `pid` is still the process that was started. The start time guards against a reused pid; when it
 * could not be read at spawn (""), only existence can be checked, which is still better than never
 * signalling the game again.
 */
export function alive(pid: number, startTicks: string): boolean {
  const s = procStat(pid);
  return s !== null && !s.zombie && (startTicks === "" || s.startTicks === startTicks);
}

/** The start time of a process just spawned: /proc can lag behind the spawn for a moment on a busy machine. */
async function startTicksOf(pid: number): Promise<string> {
  for (let i = 0; i < 50; i++) {
    const stat = procStat(pid);
    if (stat) return stat.startTicks;
    await new Promise((r) => setTimeout(r, 10));
  }
  return "";
}

function portIsFree(port: number): boolean {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return true;
  } catch {
    return false;
  }
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** The address players use: the bind address, or this machine's first outside IPv4 for 0.0.0.0. */
function publicAddress(bindip: string): string {
  if (bindip !== "0.0.0.0") return bindip;
  try {
    const nic = Deno.networkInterfaces().find((n) => n.family === "IPv4" && !n.address.startsWith("127."));
    return nic?.address ?? bindip;
  } catch {
    return bindip;
  }
}

/** Parses and checks a start request with the words of the start form (shared/validation.ts). */
export function parseStartRequest(body: Record<string, unknown>): StartRequest {
  const problem = firstError(validateStart(body));
  if (problem) throw new Invalid(problem);
  return { bindip: String(body.bindip).trim(), port: portNumber(body.port), savefile: String(body.savefile).trim() };
}

export interface GameServerDeps {
  config: Config;
  bus: EventBus;
  log: Logger;
  now: () => number;
}

export class GameServer implements GameControl {
  readonly paths: FactorioPaths;
  #state: ServerState = "stopped";
  #since: number;
  #run: Run | null = null;
  #last: { bindip: string; port: number; savefile: string } = {
    bindip: DEFAULT_BIND_IP,
    port: DEFAULT_GAME_PORT,
    savefile: "",
  };
  #lastExit: ServerExit | null = null;
  #recent: string[] = [];
  #providers: LaunchArgsProvider[] = [];
  #secret: RconSecret | null = null;
  #rcon: Promise<RconClient> | null = null;
  #version = { key: "", version: "", base: "" };
  #versionProbe: Promise<void> | null = null;
  #rconWaiters: (() => void)[] = [];
  #restart: { attempt: number; timer?: ReturnType<typeof setTimeout> } = { attempt: 0 };
  #detached = false;

  /** Settles once a game left running by an earlier panel process has been found (or found gone). */
  readonly ready: Promise<void>;

  constructor(private readonly deps: GameServerDeps) {
    this.paths = factorioPaths(deps.config);
    this.#since = deps.now();
    this.#lastExit = this.#readJson<ServerExit>(this.#file("game-last-exit.json"));
    this.ready = this.#reattach();
    void this.versionInfo();
  }

  // ---- GameControl ----

  status(): ServerStatus {
    this.#refreshVersionIfStale();
    const s = this.#run ?? this.#last;
    return {
      status: this.#state,
      running: this.#state !== "stopped",
      address: publicAddress(s.bindip),
      bindip: s.bindip,
      port: s.port,
      savefile: s.savefile,
      fac_version: this.#version.version,
      base_mod_version: this.#version.base,
      since: new Date(this.#since).toISOString(),
      last_exit: this.#lastExit,
    };
  }

  get state(): ServerState {
    return this.#state;
  }

  addLaunchArgs(provider: LaunchArgsProvider): void {
    this.#providers.push(provider);
  }

  async rcon(command: string): Promise<string> {
    if (this.#state !== "running" || !this.#run) throw new Conflict(MSG.consoleUnavailable);
    if (new TextEncoder().encode(command).length > MAX_COMMAND_BYTES) {
      throw new Invalid(`A console command may be at most ${MAX_COMMAND_BYTES} bytes long.`);
    }
    await this.#waitForRcon(this.#run);
    const client = await this.#rconClient(this.#run);
    try {
      return await client.exec(command);
    } catch (e) {
      this.#dropRcon();
      if (this.#state !== "running") throw new Conflict(MSG.consoleUnavailable);
      throw new Upstream(`The game did not answer the console command: ${(e as Error).message}`, 503);
    }
  }

  // ---- Version ----

  /** The game's version (`--version`, four parts like the old API) and base mod version (data/base/info.json). */
  async versionInfo(): Promise<{ version: string; base_mod_version: string }> {
    this.#refreshVersionIfStale();
    await this.#versionProbe;
    return { version: this.#version.version, base_mod_version: this.#version.base };
  }

  #versionKey(): string {
    const stamp = (p: string) => {
      try {
        return String(statSync(p).mtimeMs);
      } catch {
        return "-";
      }
    };
    // The paths too: a version switch changes them, and two versions' files may share an mtime.
    return `${this.paths.binary}:${stamp(this.paths.binary)}|${this.paths.baseInfo}:${stamp(this.paths.baseInfo)}`;
  }

  #refreshVersionIfStale(): void {
    const key = this.#versionKey();
    if (key === this.#version.key || this.#versionProbe) return;
    this.#versionProbe = this.#probeVersion(key).finally(() => (this.#versionProbe = null));
  }

  async #probeVersion(key: string): Promise<void> {
    let version = "";
    let base = "";
    try {
      base = String(JSON.parse(readFileSync(this.paths.baseInfo, "utf8")).version ?? "");
    } catch {
      // no data/base/info.json: unknown
    }
    if (existsSync(this.paths.binary)) {
      try {
        const child = new Deno.Command(this.paths.binary, {
          args: ["--version"],
          stdin: "null",
          stdout: "piped",
          stderr: "null",
        }).spawn();
        const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
        const out = await child.output().finally(() => clearTimeout(timer));
        const m = /Version:\s*(\d+)\.(\d+)\.(\d+)/.exec(new TextDecoder().decode(out.stdout));
        if (m) version = `${m[1]}.${m[2]}.${m[3]}.0`;
      } catch (e) {
        this.deps.log.warn("Could not ask the game for its version", { error: String(e) });
      }
    }
    if (this.#detached) return;
    const changed = version !== this.#version.version || base !== this.#version.base;
    this.#version = { key, version, base };
    if (changed && this.#state !== "stopped") this.#publish(this.#state, null);
  }

  // ---- Start ----

  async start(request: StartRequest): Promise<{ message: string; status: number }> {
    await this.ready;
    if (this.#state !== "stopped") throw new Conflict(PANEL_MSG.serverAlreadyRunning);
    this.#cancelRestart();
    this.#restart.attempt = 0;
    const run = await this.#launch(request);
    return await this.#awaitStarted(run, request);
  }

  async #launch(request: StartRequest): Promise<Run> {
    if (!existsSync(this.paths.binary)) {
      throw new NotFound(`The Factorio executable was not found at ${this.paths.binary} (see --factorio-dir and --factorio-binary).`);
    }
    let saveArgs: string[];
    let savefile: string;
    if (request.savefile === LOAD_LATEST) {
      if (!this.#hasSaves()) throw new Invalid(MSG.saveMustBeCreated);
      saveArgs = ["--start-server-load-latest"];
      savefile = LOAD_LATEST;
    } else {
      savefile = safeName(request.savefile, "Save", { ext: ".zip" });
      const path = inside(this.paths.saves, savefile);
      if (!existsSync(path)) throw new NotFound(`Save ${savefile} does not exist.`);
      saveArgs = ["--start-server", path];
    }
    const secret = this.#rconSecretForLaunch();
    const args = ["--bind", request.bindip, "--port", String(request.port)];
    if (ensureServerSettingsFile(this.paths)) args.push("--server-settings", this.paths.serverSettings);
    ensureDir(this.paths.configDir);
    if (!existsSync(this.paths.adminList)) writeFileAtomic(this.paths.adminList, "[]\n");
    args.push("--server-adminlist", this.paths.adminList, "--console-log", this.paths.consoleLog);
    args.push("--mod-directory", this.paths.mods);
    args.push("--rcon-bind", `127.0.0.1:${secret.port}`, "--rcon-password", secret.password);
    for (const provider of this.#providers) args.push(...(await provider()));
    args.push(...saveArgs);
    if (this.#state !== "stopped") throw new Conflict(PANEL_MSG.serverAlreadyRunning);

    const outputFile = this.#file("game-output.log");
    if (existsSync(outputFile)) {
      try {
        Deno.renameSync(outputFile, this.#file("game-output.previous.log"));
      } catch {
        // keep going: the new run truncates it
      }
    }
    writeFileSync(outputFile, "", { mode: 0o600 });
    this.#setState("starting", null);
    let child: Deno.ChildProcess;
    try {
      // sh replaces itself with the game (exec), so the pid is the game's; the output goes to the file.
      child = new Deno.Command("/bin/sh", {
        args: ["-c", 'exec "$@" >>"$0" 2>&1 </dev/null', outputFile, this.paths.binary, ...args],
        cwd: this.paths.root,
        stdin: "null",
        stdout: "null",
        stderr: "null",
        detached: true,
      }).spawn();
    } catch (e) {
      const exit = this.#exitOf("crashed", null, null, [`Could not start ${this.paths.binary}: ${(e as Error).message}`]);
      this.#setState("stopped", exit);
      throw new HttpError(500, `Factorio did not start: ${(e as Error).message}`);
    }
    const run = this.#newRun({
      pid: child.pid,
      startTicks: await startTicksOf(child.pid),
      outputFile,
      bindip: request.bindip,
      port: request.port,
      savefile,
      startedAt: new Date(this.deps.now()).toISOString(),
      rconPort: secret.port,
      hosting: false,
      requested: null,
    }, 0);
    this.deps.log.info("Started the game", { pid: child.pid, save: savefile, port: request.port });
    child.status.then((s) => this.#ended(run, s.signal ? null : s.code, s.signal ?? null));
    return run;
  }

  async #awaitStarted(run: Run, request: StartRequest): Promise<{ message: string; status: number }> {
    const settled = await within(
      Promise.race([
        new Promise<"running">((resolve) => {
          if (run.hosting) resolve("running");
          else run.hostingWaiters.push(() => resolve("running"));
        }),
        run.ended.then(() => "ended" as const),
      ]),
      ANSWER_WAIT_MS,
    );
    const save = run.savefile === LOAD_LATEST ? "the latest save" : run.savefile;
    if (settled === "running") {
      return { status: 200, message: PANEL_MSG.serverStarted(run.savefile, request.port) };
    }
    if (settled === "timeout") {
      return { status: 202, message: `Factorio is still loading ${save}; the status changes to running when it is hosting.` };
    }
    const exit = this.#lastExit;
    const lines = exit?.last_lines ?? [];
    // The game's own reason: its last error line, else the crash report, else whatever it said last.
    const why = lines.filter((l) => /\sError\s/.test(l)).pop() ?? lines.find((l) => /crashed/.test(l)) ?? lines.at(-1) ?? "";
    const code = exit?.code != null ? ` (exit code ${exit.code})` : "";
    throw new HttpError(500, `Factorio did not start${code}: ${why.replace(/^\s*\d+\.\d+\s+/, "") || "no output"}`);
  }

  #hasSaves(): boolean {
    try {
      return [...Deno.readDirSync(this.paths.saves)].some((e) => e.isFile && /\.zip$/i.test(e.name) && !e.name.startsWith("."));
    } catch {
      return false;
    }
  }

  // ---- Stop / kill ----

  /** Save & stop: SIGINT, the game saves the map and quits. Answers when it has exited (or is still saving). */
  async stop(): Promise<{ message: string; status: number }> {
    const run = this.#end("stop");
    if (!run) return { status: 200, message: PANEL_MSG.restartCancelled };
    this.#setState("stopping", null);
    this.#signal(run, "SIGINT");
    if (await within(run.ended, ANSWER_WAIT_MS) === "timeout") {
      return { status: 202, message: "Factorio server is saving the map and stopping; the status changes when it has exited." };
    }
    return { status: 200, message: PANEL_MSG.serverStopped };
  }

  /** Kill: SIGKILL, at once, without saving. */
  async kill(): Promise<{ message: string; status: number }> {
    const run = this.#end("kill");
    if (!run) return { status: 200, message: PANEL_MSG.restartCancelled };
    this.#signal(run, "SIGKILL");
    await within(run.ended, 10_000);
    return { status: 200, message: PANEL_MSG.serverKilled };
  }

  /**
   * Marks the run as ending the way the user asked, or cancels a pending automatic restart (null). A stop
   * or kill of a stopped server is refused with the old API's statuses (409 for stop, 400 for kill).
   */
  #end(how: "stop" | "kill"): Run | null {
    if (this.#restart.timer) {
      this.#cancelRestart();
      return null;
    }
    const run = this.#run;
    if (!run || this.#state === "stopped") {
      throw how === "stop" ? new Conflict(PANEL_MSG.serverNotRunning) : new Invalid(PANEL_MSG.serverNotRunning);
    }
    if (how === "stop" && run.requested) throw new Conflict(PANEL_MSG.serverAlreadyStopping);
    run.requested = how;
    this.#saveRecord(run);
    return run;
  }

  #signal(run: Run, signal: Deno.Signal): void {
    // The pid is checked against its start time first: never signal a process that merely reuses the pid.
    if (!alive(run.pid, run.startTicks)) return;
    try {
      Deno.kill(run.pid, signal);
    } catch (e) {
      this.deps.log.warn("Could not signal the game", { pid: run.pid, signal, error: String(e) });
    }
  }

  // ---- Runs, output and exits ----

  #newRun(record: RunRecord, offset: number): Run {
    let endedResolve!: () => void;
    const ended = new Promise<void>((r) => (endedResolve = r));
    const run: Run = {
      ...record,
      lines: [],
      rconReady: record.hosting,
      ended,
      endedResolve,
      hostingWaiters: [],
      tail: new FileTail(record.outputFile, offset, (lines) => this.#onOutput(run, lines)),
    };
    this.#run = run;
    this.#last = { bindip: record.bindip, port: record.port, savefile: record.savefile };
    this.#saveRecord(run);
    run.tail.start();
    return run;
  }

  #onOutput(run: Run, lines: string[]): void {
    if (this.#detached) return;
    for (const raw of lines) {
      const line = this.redact(raw);
      run.lines.push(line);
      if (run.lines.length > RECENT_LINES) run.lines.shift();
      if (this.#run !== run) continue;
      this.#pushLine(line);
      const map = LOADING_MAP.exec(line);
      if (map && run.savefile === LOAD_LATEST) {
        run.savefile = basename(map[1]);
        this.#last.savefile = run.savefile;
        this.#saveRecord(run);
      }
      if (RCON_READY.test(line)) {
        run.rconReady = true;
        for (const w of this.#rconWaiters.splice(0)) w();
      }
      if (HOSTING.test(line) && !run.hosting) {
        run.hosting = true;
        this.#saveRecord(run);
        if (this.#state === "starting") this.#setState("running", null);
        for (const w of run.hostingWaiters.splice(0)) w();
      }
    }
  }

  /** A line for the console: kept for the replay and published. */
  #pushLine(line: string): void {
    this.#recent.push(line);
    if (this.#recent.length > RECENT_LINES) this.#recent.shift();
    this.deps.bus.emit("server.log", { line });
  }

  /** The game's process ended (its exit status, or null/null when the game was not the panel's child). */
  async #ended(run: Run, code: number | null, signal: string | null): Promise<void> {
    if (this.#detached || this.#run !== run) return;
    clearInterval(run.liveness);
    await run.tail.poll();
    await run.tail.close();
    const reason = classify(run.requested, code, signal, run.lines);
    const exit = this.#exitOf(reason, code, signal, run.lines);
    this.#run = null;
    rmSync(this.#file("game-process.json"), { force: true });
    this.#dropRcon();
    this.deps.log[reason === "crashed" ? "warn" : "info"]("The game exited", { reason, code, signal });
    this.#setState("stopped", exit);
    run.endedResolve();
    if (reason === "crashed" && run.hosting) this.#scheduleRestart(run);
  }

  #exitOf(reason: ServerExit["reason"], code: number | null, signal: string | null, lines: string[]): ServerExit {
    const exit: ServerExit = {
      reason,
      code,
      signal,
      at: new Date(this.deps.now()).toISOString(),
      last_lines: lines.slice(-EXIT_LINES),
    };
    this.#lastExit = exit;
    try {
      writeJsonAtomic(this.#file("game-last-exit.json"), exit, 0o600);
    } catch (e) {
      this.deps.log.warn("Could not keep the last exit", { error: String(e) });
    }
    return exit;
  }

  #setState(next: ServerState, exit: ServerExit | null): void {
    const previous = this.#state;
    this.#state = next;
    this.#since = this.deps.now();
    this.#publish(previous, exit);
  }

  #publish(previous: ServerState, exit: ServerExit | null): void {
    this.deps.bus.emit("server.status", { status: this.status(), previous, exit });
  }

  // ---- Automatic restart ----

  #scheduleRestart(run: Run): void {
    const { config } = this.deps;
    if (!config.autoRestart) return;
    // A run that stayed up for a while ends the streak of crashes.
    if (this.deps.now() - Date.parse(run.startedAt) > 10 * 60_000) this.#restart.attempt = 0;
    if (this.#restart.attempt >= config.autoRestartMax) {
      this.#consoleNote(`The server crashed ${this.#restart.attempt} times in a row; it is not restarted again automatically.`);
      return;
    }
    this.#restart.attempt++;
    const delay = Math.min(config.autoRestartDelay * 1000 * 2 ** (this.#restart.attempt - 1), 10 * 60_000);
    this.#consoleNote(
      `The server crashed; it restarts in ${Math.round(delay / 1000)} s (attempt ${this.#restart.attempt} of ${config.autoRestartMax}).`,
    );
    const request = { bindip: run.bindip, port: run.port, savefile: run.savefile === LOAD_LATEST ? LOAD_LATEST : run.savefile };
    this.#restart.timer = setTimeout(async () => {
      this.#restart.timer = undefined;
      if (this.#state !== "stopped" || this.#detached) return;
      try {
        await this.#launch(request);
      } catch (e) {
        this.#consoleNote(`The automatic restart failed: ${(e as Error).message}`);
      }
    }, delay);
  }

  #cancelRestart(): void {
    clearTimeout(this.#restart.timer);
    this.#restart.timer = undefined;
  }

  #consoleNote(text: string): void {
    this.deps.log.info(text);
    this.#pushLine(`Factorio Panel: ${text}`);
  }

  // ---- Re-attaching after a panel restart ----

  async #reattach(): Promise<void> {
    const record = this.#readJson<RunRecord>(this.#file("game-process.json"));
    if (!record) return;
    const lines = (await lastLines(record.outputFile, RECENT_LINES)).map((l) => this.redact(l));
    this.#recent = lines;
    if (!alive(record.pid, record.startTicks)) {
      // It ended while the panel was away: say how, from what it printed last.
      const reason = classify(record.requested, null, null, lines);
      this.#last = { bindip: record.bindip, port: record.port, savefile: record.savefile };
      rmSync(this.#file("game-process.json"), { force: true });
      const exit = this.#exitOf(reason, null, null, lines);
      // Published once the context is built, so the notifier hears about a crash while the panel was down.
      setTimeout(() => !this.#detached && this.#publish("running", exit), 0);
      return;
    }
    let offset = 0;
    try {
      offset = statSync(record.outputFile).size;
    } catch {
      // no output file yet: follow it from its start
    }
    const hosting = record.hosting || await fileStartHas(record.outputFile, HOSTING);
    const run = this.#newRun({ ...record, hosting }, offset);
    run.lines = [...lines];
    this.#state = record.requested === "stop" ? "stopping" : hosting ? "running" : "starting";
    run.liveness = setInterval(() => {
      if (!alive(run.pid, run.startTicks)) void this.#ended(run, null, null);
    }, LIVENESS_POLL_MS);
    this.deps.log.info("Re-attached to the running game", { pid: record.pid, state: this.#state });
  }

  #saveRecord(run: Run): void {
    const record: RunRecord = {
      pid: run.pid,
      startTicks: run.startTicks,
      outputFile: run.outputFile,
      bindip: run.bindip,
      port: run.port,
      savefile: run.savefile,
      startedAt: run.startedAt,
      rconPort: run.rconPort,
      hosting: run.hosting,
      requested: run.requested,
    };
    writeJsonAtomic(this.#file("game-process.json"), record, 0o600);
  }

  // ---- RCON ----

  /** The RCON port and password for a new run: generated once and kept; the port re-picked if taken. */
  #rconSecretForLaunch(): RconSecret {
    const file = this.#file("rcon.json");
    let secret = this.#secret ?? this.#readJson<RconSecret>(file);
    let changed = false;
    if (!secret || typeof secret.password !== "string" || secret.password.length < 16) {
      secret = { port: 0, password: randomBytes(24).toString("base64url") };
      changed = true;
    }
    const wanted = this.deps.config.rconPort;
    if (wanted > 0 && secret.port !== wanted) {
      secret.port = wanted;
      changed = true;
    } else if (wanted === 0 && (!secret.port || !portIsFree(secret.port))) {
      secret.port = freePort();
      changed = true;
    }
    if (changed) writeSecretFile(file, JSON.stringify(secret) + "\n");
    this.#secret = secret;
    return secret;
  }

  /** Replaces the RCON password wherever it appears (the game logs its own command line). */
  redact(line: string): string {
    const pw = this.#secret?.password ?? this.#rconSecretIfKnown();
    return pw ? line.replaceAll(pw, REDACTED) : line;
  }

  #rconSecretIfKnown(): string | null {
    if (this.#secret) return this.#secret.password;
    const s = this.#readJson<RconSecret>(this.#file("rcon.json"));
    if (s) this.#secret = s;
    return s?.password ?? null;
  }

  async #waitForRcon(run: Run): Promise<void> {
    if (run.rconReady) return;
    await within(new Promise<void>((r) => this.#rconWaiters.push(r)), 10_000);
  }

  #rconClient(run: Run): Promise<RconClient> {
    if (!this.#rcon) {
      const password = this.#rconSecretIfKnown() ?? "";
      const connecting = RconClient.connect({ host: "127.0.0.1", port: run.rconPort, password });
      this.#rcon = connecting;
      // A connection that fails or that the game closes (it crashed, restarted) is replaced on the next command.
      const forget = () => {
        if (this.#rcon === connecting) this.#rcon = null;
      };
      connecting.then((c) => c.done.then(forget), forget);
    }
    return this.#rcon.catch((e) => {
      throw new Upstream(`Cannot reach the game's console: ${(e as RconError).message}`, 503);
    });
  }

  #dropRcon(): void {
    const c = this.#rcon;
    this.#rcon = null;
    c?.then((client) => client.close(), () => {});
  }

  // ---- Console (the /ws command control) ----

  /**
   * Runs console text typed by `username`: the command is echoed into the game log for everyone and the
   * game's reply follows it there. When the game is not running, only the sender is told.
   */
  async consoleCommand(text: string, username: string, tellSender: (line: string) => void): Promise<void> {
    const command = text.trim();
    if (command === "") return;
    if (this.#state !== "running") {
      tellSender(MSG.consoleUnavailable);
      return;
    }
    this.#pushLine(`${username}> ${command}`);
    try {
      const reply = await this.rcon(command);
      for (const line of reply.split("\n")) if (line !== "") this.#pushLine(this.redact(line));
    } catch (e) {
      tellSender(e instanceof HttpError ? e.message : `The command failed: ${(e as Error).message}`);
    }
  }

  recentLines(): string[] {
    return [...this.#recent];
  }

  // ---- Lifetime ----

  /** Lets go of the game without stopping it (panel shutdown): it keeps running and is found again. */
  async detach(): Promise<void> {
    this.#detached = true;
    this.#cancelRestart();
    const run = this.#run;
    if (run) {
      clearInterval(run.liveness);
      await run.tail.close();
    }
    this.#dropRcon();
    await this.#versionProbe;
  }

  #file(name: string): string {
    return join(this.deps.config.dataDir, name);
  }

  #readJson<T>(path: string): T | null {
    try {
      return JSON.parse(readFileSync(path, "utf8")) as T;
    } catch {
      return null;
    }
  }
}

/** Whether the first MiB of a file (where the game reports that it is hosting) matches `pattern`. */
async function fileStartHas(path: string, pattern: RegExp): Promise<boolean> {
  try {
    const fh = await open(path, "r");
    try {
      const buf = new Uint8Array(1024 * 1024);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      return pattern.test(new TextDecoder().decode(buf.subarray(0, bytesRead)));
    } finally {
      await fh.close();
    }
  } catch {
    return false;
  }
}

/** Why a run ended, from what the panel asked for, the exit status (when known) and the last output. */
export function classify(
  requested: "stop" | "kill" | null,
  code: number | null,
  signal: string | null,
  lines: string[],
): ServerExit["reason"] {
  if (requested === "kill") return "killed";
  const unknown = code === null && signal === null;
  // Exit code 0 is a clean exit even when someone else asked for it (/quit, a SIGINT from outside).
  if (code === 0) return "stopped";
  if (unknown && lines.some((l) => /(^|\s)Goodbye$/.test(l)) && !lines.some((l) => /crashed/i.test(l))) return "stopped";
  return "crashed";
}

/** Wires the game into the live channel: recent lines and the status on subscribe, console commands. */
export function connectGameToHub(game: GameServer, hub: Hub): void {
  hub.setReplay("gamelog", () => game.recentLines());
  hub.setReplay("server_status", () => [JSON.stringify(game.status())]);
  hub.onCommand((text, client) =>
    game.consoleCommand(text, client.username, (line) => client.send({ room_name: "gamelog", message: line }))
  );
}

/** The last lines of the game's own log (factorio-current.log), redacted, for GET /api/log/tail. */
export async function gameLogTail(game: GameServer, count: number): Promise<string[]> {
  return (await lastLines(game.paths.currentLog, count)).map((l) => game.redact(l));
}
