// The game server supervisor: start, save & stop, kill, restart, the status machine and crash detection.
// It owns the parts that have their own idea: the game's output (output.ts), the automatic restart
// (autorestart.ts) and finding a game an earlier panel left running (reattach.ts).
//
// States: stopped -> starting -> running (the game says it is hosting) -> stopping -> stopped. Every change
// is published on the bus ("server.status"), every output line too ("server.log"); the /ws rooms, the
// status route and the notifier all read from there. Stop and kill answer success only once the process
// is verified gone (liveness.ts); a start answers once the game hosts, or with its own error line.

import { readFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Config } from "../../boot/config.ts";
import type { EventBus } from "../../lib/events.ts";
import type { Logger } from "../../lib/log.ts";
import type { GameControl, LaunchArgsProvider } from "./control.ts";
import { type FactorioPaths, factorioPaths } from "../layout.ts";
import { MAX_COMMAND_BYTES } from "./rcon.ts";
import { Conflict, GameFailed, HttpError, Invalid } from "../../lib/errors.ts";
import { writeJsonAtomic } from "../../lib/fsutil.ts";
import {
  DEFAULT_BIND_IP,
  DEFAULT_GAME_PORT,
  LOAD_LATEST,
  type ServerExit,
  type ServerState,
  type ServerStatus,
  type StartRequest,
} from "../../../shared/api.ts";
import { MSG, PANEL_MSG } from "../../../shared/messages.ts";
import { within } from "../../../shared/util.ts";
import { exists, isAlive, onPsUnusable, type ProcessRow, startOf } from "./liveness.ts";
import { GameConsole, RconSecretStore } from "./console.ts";
import { planLaunch, spawnGame, tightenGameFiles } from "./launch.ts";
import { GameVersion } from "./version.ts";
import { GameDirLease } from "./lease.ts";
import { findStrayGame, type StrayGame } from "./stray.ts";
import {
  classify,
  HOSTING,
  LOADING_MAP,
  RCON_READY,
  removeRecord,
  type Run,
  type RunRecord,
  writeRecord,
} from "./run.ts";
import { GameOutput } from "./output.ts";
import { AutoRestart } from "./autorestart.ts";
import { findLeftRunning, strayRecord, watchLiveness } from "./reattach.ts";

/** Lines of output a crash report (ServerExit.last_lines) carries. */
export const EXIT_LINES = 20;
/** How long start/stop answers wait for the game before answering that it is still busy. */
export const ANSWER_WAIT_MS = 45_000;
/** How long kill waits for the process to be gone before saying it is not. */
const KILL_WAIT_MS = 10_000;

export interface GameServerDeps {
  config: Config;
  /** Where things are in the Factorio directory (computed once, in boot/context.ts). */
  paths?: FactorioPaths;
  bus: EventBus;
  log: Logger;
  now: () => number;
  /** Decides when the game directory is free; the game start takes part in it. */
  lease?: GameDirLease;
  /**
   * The machine's processes, listed while the rest of the panel was being built (a `ps` takes 15-25 ms):
   * what looking for a game this panel did not start uses at start-up, instead of listing them again.
   */
  processes?: Promise<ProcessRow[]>;
}

export class GameServer implements GameControl {
  readonly paths: FactorioPaths;
  readonly lease: GameDirLease;
  #state: ServerState = "stopped";
  #since: number;
  #run: Run | null = null;
  #last: { bindip: string; port: number; savefile: string } = {
    bindip: DEFAULT_BIND_IP,
    port: DEFAULT_GAME_PORT,
    savefile: "",
  };
  #lastExit: ServerExit | null = null;
  /** What the last start asked for (<data-dir>/game-last-start.json): the start form's values. */
  #lastStart: ServerStatus["last_start"] = null;
  #providers: LaunchArgsProvider[] = [];
  readonly secrets: RconSecretStore;
  readonly #console: GameConsole;
  readonly #version: GameVersion;
  readonly #output: GameOutput;
  readonly #autoRestart: AutoRestart;
  #detached = false;
  #address: { bindip: string; value: string; at: number } = { bindip: "", value: "", at: -Infinity };
  #statusText: { key: unknown[]; json: string } | null = null;

  /** Settles once a game left running by an earlier panel process has been found (or found gone). */
  readonly ready: Promise<void>;

  constructor(private readonly deps: GameServerDeps) {
    this.paths = deps.paths ?? factorioPaths(deps.config);
    this.lease = deps.lease ?? new GameDirLease(() => this.#state);
    this.#since = deps.now();
    onPsUnusable((text) => deps.log.warn(text));
    this.secrets = new RconSecretStore(
      this.#file("rcon.json"),
      deps.config.rconPort,
      deps.log,
      join(this.paths.configDir, "rconpw"),
    );
    this.#console = new GameConsole(this.secrets);
    this.#output = new GameOutput(
      deps.config.dataDir,
      deps.bus,
      deps.log,
      (line) => this.secrets.redact(line),
    );
    this.#autoRestart = new AutoRestart(
      deps.config,
      deps.now,
      (text) => this.#output.note(text),
      async (request) => {
        if (this.#state !== "stopped" || this.#detached) return;
        await this.lease.launching(() => this.#launch(request));
      },
    );
    this.#version = new GameVersion(() => this.paths, deps.log, () => {
      if (this.#state !== "stopped") this.#publish(this.#state, null);
    });
    try {
      this.#lastExit = JSON.parse(readFileSync(this.#file("game-last-exit.json"), "utf8"));
    } catch {
      this.#lastExit = null;
    }
    try {
      const s = JSON.parse(readFileSync(this.#file("game-last-start.json"), "utf8"));
      if (typeof s?.bindip === "string" && Number.isInteger(s.port) && typeof s.savefile === "string") {
        this.#lastStart = { bindip: s.bindip, port: s.port, savefile: s.savefile };
      }
    } catch {
      this.#lastStart = null;
    }
    this.ready = this.#reattach();
  }

  // ---- GameControl ----

  status(): ServerStatus {
    const s = this.#run ?? this.#last;
    const version = this.#version.current;
    return {
      status: this.#state,
      running: this.#state !== "stopped",
      address: this.#publicAddress(s.bindip),
      bindip: s.bindip,
      port: s.port,
      savefile: s.savefile,
      fac_version: version.version,
      base_mod_version: version.base,
      since: new Date(this.#since).toISOString(),
      last_exit: this.#lastExit,
      started_at: this.#run && this.#state !== "stopped" ? this.#run.startedAt : null,
      factorio_found: this.#version.found,
      factorio_dir: this.paths.root,
      problems: this.#problems(),
      last_start: this.#lastStart,
    };
  }

  /**
   * status() as JSON text, made again only when something it shows changed: the route answers it as it
   * is (issue 19: nothing per request that can be computed on change). The key holds every value
   * status() reads; a field added there must be added here (status_json_test.ts compares the two through
   * a start, a crash, a stop and the executable removed; stray_test.ts reads a found game's status).
   */
  statusJson(): string {
    const s = this.#run ?? this.#last;
    const run = this.#run;
    const version = this.#version;
    const key = [
      this.#state,
      this.#since,
      s.bindip,
      s.port,
      s.savefile,
      this.#publicAddress(s.bindip),
      version.current,
      version.found,
      this.#lastExit,
      run?.startedAt,
      run?.pid,
      run?.adopted,
      this.secrets.problem,
      this.paths.root,
      this.#lastStart,
    ];
    const last = this.#statusText;
    if (last && key.every((v, i) => v === last.key[i])) return last.json;
    const json = JSON.stringify(this.status());
    this.#statusText = { key, json };
    return json;
  }

  get state(): ServerState {
    return this.#state;
  }

  /** The game process's pid while it runs (health sampling measures it with ps); null when stopped. */
  get pid(): number | null {
    return this.#state === "stopped" ? null : this.#run?.pid ?? null;
  }

  addLaunchArgs(provider: LaunchArgsProvider): void {
    this.#providers.push(provider);
  }

  /** Runs `fn` holding the game directory for a change that needs the game stopped (see lease.ts). */
  whileStopped<T>(label: string, fn: () => Promise<T>): Promise<T> {
    return this.lease.whileStopped(label, fn);
  }

  async rcon(command: string): Promise<string> {
    const run = this.#run;
    if (this.#state !== "running" || !run) throw new Conflict(MSG.consoleUnavailable);
    if (new TextEncoder().encode(command).length > MAX_COMMAND_BYTES) {
      throw new Invalid(`A console command may be at most ${MAX_COMMAND_BYTES} bytes long.`);
    }
    try {
      return await this.#console.exec(run.rconPort, command);
    } catch (e) {
      if (this.#state !== "running") throw new Conflict(MSG.consoleUnavailable);
      if (e instanceof HttpError) throw e;
      throw new GameFailed(`The game did not answer the console command: ${(e as Error).message}`);
    }
  }

  // ---- Version ----

  /** The game's version (`--version`, four parts like the old API) and base mod version (data/base/info.json). */
  async versionInfo(): Promise<{ version: string; base_mod_version: string }> {
    const v = await this.#version.settled();
    return { version: v.version, base_mod_version: v.base };
  }

  // ---- Start ----

  /**
   * `remember`: a start a person asked for (the start route): its address, port and save as asked are
   * what the start form offers next (`last_start`). The panel's own starts of the same map again (restart,
   * updates, schedules) pass the save it resolved to, and would turn "Load Latest" into that one file.
   */
  async start(
    request: StartRequest,
    opts: { remember?: boolean } = {},
  ): Promise<{ message: string; status: number }> {
    await this.ready;
    if (this.#state !== "stopped") throw new Conflict(PANEL_MSG.serverAlreadyRunning);
    const run = await this.lease.launching(async () => {
      const stray = await findStrayGame(this.paths);
      if (stray) {
        this.#adopt(stray);
        throw new Conflict(
          `A Factorio server from ${this.paths.root} is already running without the panel (pid ${stray.pid}, port ${stray.port}). ` +
            "It is now shown on Controls: stop it there first.",
        );
      }
      this.#autoRestart.reset();
      return await this.#launch(request, opts.remember);
    });
    return await this.#awaitStarted(run, request);
  }

  async #launch(request: StartRequest, remember = false): Promise<Run> {
    const secret = this.secrets.forLaunch();
    const plan = await planLaunch(this.paths, request, secret, this.#providers);
    if (this.#state !== "stopped") throw new Conflict(PANEL_MSG.serverAlreadyRunning);
    const outputFile = this.#output.file;
    this.#output.keepPrevious();
    // "starting" is pushed with the save and port being started, not the last run's.
    this.#last = { bindip: request.bindip, port: request.port, savefile: plan.savefile };
    if (remember) this.#rememberStart(this.#last);
    this.#setState("starting", null);
    let child: Deno.ChildProcess;
    try {
      child = spawnGame(this.paths, plan.args, outputFile);
    } catch (e) {
      const exit = this.#exitOf("start-failed", null, null, [
        `Could not start ${this.paths.binary}: ${(e as Error).message}`,
      ]);
      this.#setState("stopped", exit);
      // `sh` itself could not be run: a fault of the machine the panel runs on, not of the game.
      throw new HttpError(500, `Factorio did not start: ${(e as Error).message}`);
    }
    const run = this.#newRun(
      {
        pid: child.pid,
        bootStart: null,
        outputFile,
        bindip: request.bindip,
        port: request.port,
        savefile: plan.savefile,
        startedAt: new Date(this.deps.now()).toISOString(),
        rconPort: secret.port,
        hosting: false,
        requested: null,
      },
      0,
      child,
    );
    this.#console.reset(false);
    child.status.then((s) => this.#ended(run, s.signal ? null : s.code, s.signal ?? null));
    // The start time is read after the fact (ps); until it is known, the child handle answers for the pid.
    startOf(child.pid).then((bootStart) => {
      if (run.isEnded || this.#run !== run) return;
      run.bootStart = bootStart;
      this.#saveRecord(run);
    });
    this.deps.log.info("Started the game", { pid: child.pid, save: plan.savefile, port: request.port });
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
      return {
        status: 202,
        message: `Factorio is still loading ${save}; the status changes to running when it is hosting.`,
      };
    }
    const exit = this.#lastExit;
    const lines = exit?.last_lines ?? [];
    // The game's own reason: its last error line, else the crash report, else whatever it said last.
    const why = lines.filter((l) => /\sError\s/.test(l)).pop() ?? lines.find((l) => /crashed/.test(l)) ??
      lines.at(-1) ?? "";
    const code = exit?.code != null ? ` (exit code ${exit.code})` : "";
    // A failure of the game, with its own reason: 422 (5xx is for faults of the panel).
    throw new HttpError(
      422,
      `Factorio did not start${code}: ${why.replace(/^\s*\d+\.\d+\s+/, "") || "no output"}`,
    );
  }

  // ---- Stop / kill / restart ----

  /** Save & stop: SIGINT, the game saves the map and quits. Answers when it has exited (or is still saving). */
  async stop(): Promise<{ message: string; status: number }> {
    const run = this.#end("stop");
    if (!run) return { status: 200, message: PANEL_MSG.restartCancelled };
    const previous = this.#state;
    this.#setState("stopping", null);
    if (!await this.#signal(run, "SIGINT")) {
      run.requested = null;
      this.#saveRecord(run);
      if (!run.isEnded) this.#setState(previous, null);
      throw new HttpError(
        500,
        `Could not ask the game (pid ${run.pid}) to save and stop; it is still running.`,
      );
    }
    // Recorded after the signal: a record that cannot be written (a full disk) never keeps the game running.
    this.#saveRecord(run);
    if (await within(run.ended, ANSWER_WAIT_MS) === "timeout") {
      return {
        status: 202,
        message: "Factorio server is saving the map and stopping; the status changes when it has exited.",
      };
    }
    return { status: 200, message: PANEL_MSG.serverStopped };
  }

  /** Kill: SIGKILL, at once, without saving. Answers once the process is gone. */
  async kill(): Promise<{ message: string; status: number }> {
    const run = this.#end("kill");
    if (!run) return { status: 200, message: PANEL_MSG.restartCancelled };
    const sent = await this.#signal(run, "SIGKILL");
    this.#saveRecord(run);
    if (await within(run.ended, KILL_WAIT_MS) === "timeout") {
      if (await this.#stillAlive(run)) {
        throw new HttpError(
          500,
          `The game (pid ${run.pid}) is still running after ${sent ? "SIGKILL" : "a failed SIGKILL"}.`,
        );
      }
      await this.#ended(run, null, "SIGKILL");
    }
    return { status: 200, message: PANEL_MSG.serverKilled };
  }

  /** Save & stop, then start the same save with the same address and port. Answers once it runs again. */
  async restart(): Promise<{ message: string; status: number }> {
    const run = this.#run;
    if (!run || this.#state !== "running") throw new Conflict(PANEL_MSG.serverNotRunning);
    const request: StartRequest = { bindip: run.bindip, port: run.port, savefile: run.savefile };
    const stopped = await this.stop();
    if (stopped.status !== 200) {
      throw new GameFailed("The game did not finish saving and stopping in time; it was not started again.");
    }
    return await this.start(request);
  }

  /**
   * Marks the run as ending the way the user asked, or cancels a pending automatic restart (null). A stop
   * or kill of a stopped server is refused with the old API's statuses (409 for stop, 400 for kill).
   */
  #end(how: "stop" | "kill"): Run | null {
    if (this.#autoRestart.pending) {
      this.#autoRestart.cancel();
      return null;
    }
    const run = this.#run;
    if (!run || this.#state === "stopped") {
      throw how === "stop"
        ? new Conflict(PANEL_MSG.serverNotRunning)
        : new Invalid(PANEL_MSG.serverNotRunning);
    }
    if (how === "stop" && run.requested) throw new Conflict(PANEL_MSG.serverAlreadyStopping);
    // Kept in memory only until the signal is sent (stop and kill record it then).
    run.requested = how;
    return run;
  }

  /** Whether the run's process is still there and still the game. */
  async #stillAlive(run: Run): Promise<boolean> {
    if (run.isEnded) return false;
    // The panel's own child: its exit is reported by the child handle, which cannot be fooled by pid reuse.
    if (run.child) return await exists(run.pid);
    return await isAlive(run.pid, run.bootStart);
  }

  /** Sends `signal` to the game after checking the pid is still the game. False when it could not be sent. */
  async #signal(run: Run, signal: Deno.Signal): Promise<boolean> {
    if (!await this.#stillAlive(run)) {
      // Already gone: the exit is recorded as such, never as a signal that was not sent.
      await this.#ended(run, null, null);
      return true;
    }
    try {
      Deno.kill(run.pid, signal);
      return true;
    } catch (e) {
      this.deps.log.warn("Could not signal the game", { pid: run.pid, signal, error: String(e) });
      return false;
    }
  }

  // ---- Runs, output and exits ----

  #newRun(record: RunRecord, offset: number, child: Deno.ChildProcess | null): Run {
    let endedResolve!: () => void;
    const ended = new Promise<void>((r) => (endedResolve = r));
    const run: Run = {
      ...record,
      lines: [],
      rconReady: record.hosting,
      ended,
      endedResolve,
      isEnded: false,
      hostingWaiters: [],
      child,
      tail: null,
    };
    this.#run = run;
    this.#last = { bindip: record.bindip, port: record.port, savefile: record.savefile };
    this.#saveRecord(run);
    if (!record.adopted) run.tail = this.#output.follow(run, offset, (lines) => this.#onOutput(run, lines));
    return run;
  }

  #onOutput(run: Run, lines: string[]): void {
    if (this.#detached || this.#run !== run) return;
    for (const line of lines) {
      this.#output.push(line);
      const map = LOADING_MAP.exec(line);
      if (map && run.savefile === LOAD_LATEST) {
        run.savefile = basename(map[1]);
        this.#last.savefile = run.savefile;
        this.#saveRecord(run);
      }
      if (RCON_READY.test(line)) {
        run.rconReady = true;
        this.#console.markReady();
        tightenGameFiles(this.paths);
      }
      if (HOSTING.test(line) && !run.hosting) {
        run.hosting = true;
        this.#saveRecord(run);
        if (this.#state === "starting") this.#setState("running", null);
        for (const w of run.hostingWaiters.splice(0)) w();
      }
    }
  }

  /** The game's process ended (its exit status, or null/null when the game was not the panel's child). */
  async #ended(run: Run, code: number | null, signal: string | null): Promise<void> {
    if (this.#detached || this.#run !== run || run.isEnded) return;
    run.isEnded = true;
    clearInterval(run.liveness);
    if (run.tail) {
      await run.tail.poll();
      await run.tail.close();
    }
    const reason = classify(run.requested, code, signal, run.lines, run.hosting);
    const exit = this.#exitOf(reason, code, signal, run.lines);
    this.#run = null;
    removeRecord(this.#file("game-process.json"));
    this.#console.drop();
    this.deps.log[reason === "crashed" || reason === "start-failed" ? "warn" : "info"]("The game exited", {
      reason,
      code,
      signal,
    });
    this.#setState("stopped", exit);
    run.endedResolve();
    if (reason === "crashed" && run.hosting) this.#autoRestart.afterCrash(run);
  }

  /**
   * Makes the start form offer `port` (a server's game port, chosen when it was added or moved), keeping
   * the rest of what the last start asked for.
   */
  offerPort(port: number): void {
    this.#rememberStart({
      bindip: this.#lastStart?.bindip ?? DEFAULT_BIND_IP,
      port,
      savefile: this.#lastStart?.savefile || LOAD_LATEST,
    });
  }

  /**
   * Keeps what this start asked for, for the start form of every device (a new object: statusJson compares
   * by identity). A write that fails (a full disk) only loses it for the next panel process.
   */
  #rememberStart(start: { bindip: string; port: number; savefile: string }): void {
    this.#lastStart = { ...start };
    try {
      writeJsonAtomic(this.#file("game-last-start.json"), this.#lastStart, 0o600);
    } catch (e) {
      this.deps.log.warn("Could not keep the last start's settings", { error: String(e) });
    }
  }

  #exitOf(
    reason: ServerExit["reason"],
    code: number | null,
    signal: string | null,
    lines: string[],
  ): ServerExit {
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

  #problems(): string[] {
    const problems: string[] = [];
    if (!this.#version.found) {
      problems.push(`No Factorio server was found in ${this.paths.root} (looked for ${this.paths.binary}).`);
    }
    if (this.secrets.problem) problems.push(this.secrets.problem);
    const run = this.#run;
    if (run?.adopted && this.#state !== "stopped") {
      problems.push(
        `This Factorio server (pid ${run.pid}, port ${run.port}) was not started by the panel: its console and log ` +
          "are not available here. Save & Stop Server or Kill Server ends it.",
      );
    }
    return problems;
  }

  /** The address players use: the bind address, or this machine's first outside IPv4 for 0.0.0.0. */
  #publicAddress(bindip: string): string {
    if (bindip !== "0.0.0.0") return bindip;
    const now = Date.now();
    const at = this.#address.at;
    if (this.#address.bindip === bindip && now >= at && now - at < 60_000) return this.#address.value;
    let value = bindip;
    try {
      value = Deno.networkInterfaces().find((n) =>
        n.family === "IPv4" && !n.address.startsWith("127.")
      )?.address ?? bindip;
    } catch {
      // no permission or no interfaces: show the bind address
    }
    this.#address = { bindip, value, at: now };
    return value;
  }

  // ---- Re-attaching after a panel restart ----

  async #reattach(): Promise<void> {
    const left = await findLeftRunning(
      this.#file("game-process.json"),
      this.paths,
      this.#output,
      this.secrets,
      this.deps.processes,
    );
    if (left.found === "nothing") return;
    if (left.found === "stray") return this.#adopt(left.stray);
    const { record, lines } = left;
    this.#output.replaceRecent(lines);
    if (left.found === "ended") {
      // It ended while the panel was away: say how, from what it printed last.
      this.#last = { bindip: record.bindip, port: record.port, savefile: record.savefile };
      removeRecord(this.#file("game-process.json"));
      const exit = this.#exitOf(left.reason, null, null, lines);
      // Published once the context is built, so the notifier hears about a crash while the panel was down.
      setTimeout(() => !this.#detached && this.#publish("running", exit), 0);
      return;
    }
    const run = this.#newRun(record, left.offset, null);
    run.lines = [...lines];
    this.#console.reset(left.rconReady);
    this.#state = left.state;
    watchLiveness(run, () => this.#ended(run, null, null));
    this.deps.log.info("Re-attached to the running game", { pid: record.pid, state: this.#state });
  }

  /** Takes a game found running from this directory under the panel's care, so it can be stopped. */
  #adopt(stray: StrayGame): void {
    if (this.#run) return;
    this.secrets.recoverFrom(stray.commandLine);
    const run = this.#newRun(strayRecord(stray, new Date(this.deps.now()).toISOString()), 0, null);
    this.#console.reset(run.rconPort > 0);
    this.#setState("running", null);
    watchLiveness(run, () => this.#ended(run, null, null));
    this.deps.log.warn("Found a Factorio server from this directory that the panel did not start", {
      pid: stray.pid,
      port: stray.port,
    });
  }

  /**
   * Keeps what a restarted panel needs to find the run again. Never throws: the record only serves a
   * re-attach (a game without one is still found by its command line, stray.ts), and a write that fails
   * (a full disk) must not fail a start, a stop or a kill of the game itself. An ended run has no record.
   */
  #saveRecord(run: Run): void {
    if (run.isEnded || this.#run !== run) return;
    try {
      writeRecord(this.#file("game-process.json"), run);
    } catch (e) {
      this.deps.log.warn("Could not record the running game", { pid: run.pid, error: String(e) });
    }
  }

  // ---- Console ----

  /** Replaces the RCON password wherever it appears (the game logs its own command line). */
  redact(line: string): string {
    return this.#output.redact(line);
  }

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
    this.#output.push(`${username}> ${command}`);
    try {
      const reply = await this.rcon(command);
      for (const line of reply.split("\n")) if (line !== "") this.#output.push(this.redact(line));
    } catch (e) {
      tellSender(e instanceof HttpError ? e.message : `The command failed: ${(e as Error).message}`);
    }
  }

  recentLines(): string[] {
    return this.#output.recent();
  }

  // ---- Lifetime ----

  /** Lets go of the game without stopping it (panel shutdown): it keeps running and is found again. */
  async detach(): Promise<void> {
    this.#detached = true;
    this.#autoRestart.cancel();
    const run = this.#run;
    if (run) {
      clearInterval(run.liveness);
      await run.tail?.close();
    }
    this.#console.drop();
    await this.#version.close();
  }

  #file(name: string): string {
    return join(this.deps.config.dataDir, name);
  }
}
