// Update & restart: moves a running server to another game version with as little downtime as the game
// allows, and goes back by itself when the new version cannot host the save.
//
//   1. install the new version beside the running one (a failed download never stops the game);
//   2. warn the players in game over RCON at each --update-warnings mark (default 5 min, 1 min, 10 s);
//   3. save & stop (SIGINT: the game saves the map);
//   4. copy the save, switch the active version, start the same save;
//   5. if the new version does not reach "hosting" (crash, a save it cannot load), switch back to the
//      version before and start the save with it, and say so.
// A stopped server only gets steps 1 and 4 (without the start). Progress goes out as "factorio.versions".

import type { EventBus } from "../../lib/events.ts";
import type { Logger } from "../../lib/log.ts";
import { Conflict } from "../../lib/errors.ts";
import type { ServerState, ServerStatus, StartRequest } from "../../../shared/api.ts";
import type { UpdatePhase } from "../../../shared/factorio-versions.ts";
import { type FactorioVersions, SWITCH_LABEL } from "./service.ts";
import { activeVersion, installedVersions, UNMANAGED } from "./store.ts";
import { parseOnlinePlayers } from "../players/lists.ts";

export interface UpdateGame {
  readonly state: ServerState;
  status(): ServerStatus;
  start(request: StartRequest): Promise<{ status: number; message: string }>;
  stop(): Promise<{ status: number; message: string }>;
  rcon(command: string): Promise<string>;
}

export interface UpdaterDeps {
  versions: FactorioVersions;
  game: UpdateGame & { whileStopped<T>(label: string, fn: () => Promise<T>): Promise<T> };
  /**
   * The queue of game operations: the whole update is one, so no start, stop or task runs into it; one
   * that restarts the game, so a scheduled restart meanwhile is this one (schedules/tasks.ts).
   */
  ops: { run<T>(label: string, fn: () => Promise<T>, opts?: { restarts?: boolean }): Promise<T> };
  bus: EventBus;
  log: Logger;
  /** Seconds before the stop at which players are warned. */
  warnings: number[];
  /** Waits (the countdown); ends early when `signal` aborts. Tests may pass their own. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** How long a stop or a start may take before the update gives up on it. */
const GAME_WAIT_MS = 10 * 60_000;

export function warningText(version: string, seconds: number): string {
  const when = seconds >= 120
    ? `${Math.round(seconds / 60)} minutes`
    : seconds >= 60
    ? "1 minute"
    : `${seconds} seconds`;
  return `[Server] The server restarts in ${when} to update to Factorio ${version}. The map is saved first.`;
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done);
  });
}

export class Updater {
  #running = false;
  /** Set while the update may still be called off (installing, warning); null once the server stops. */
  #cancel: AbortController | null = null;
  readonly #sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(private readonly deps: UpdaterDeps) {
    this.#sleep = deps.sleep ?? abortableSleep;
  }

  /** Calls off an update that has not stopped the server yet. */
  cancel(): string {
    if (!this.#running) throw new Conflict("No update is under way.");
    if (!this.#cancel) {
      throw new Conflict("The update has stopped the server already; it cannot be called off now.");
    }
    this.#cancel.abort();
    if (this.deps.versions.installing) this.deps.versions.cancel();
    return "Cancelling the update.";
  }

  get running(): boolean {
    return this.#running;
  }

  /**
   * Starts an update to `spec` (default: the newest of the active channel). Answers once it is under way;
   * the outcome arrives as events and in `done`.
   */
  async update(spec?: unknown): Promise<{ from: string; to: string; done: Promise<void> }> {
    const { versions } = this.deps;
    if (this.#running) throw new Conflict("An update is already under way.");
    const state = this.deps.game.state;
    if (state === "starting" || state === "stopping") {
      throw new Conflict(`The server is ${state}; update once it is running or stopped.`);
    }
    if (versions.installing) {
      throw new Conflict(
        `Factorio ${versions.installing.version} is being installed; wait for it or cancel it.`,
      );
    }
    const to = spec === undefined || spec === null || spec === ""
      ? (await versions.checkUpdate(true))?.latest ?? versions.currentVersion() ?? ""
      : await versions.resolve(spec);
    const from = versions.currentVersion() ?? "";
    if (!to || to === from) {
      throw new Conflict(
        `Factorio ${from} is already the newest version of the ${versions.channel()} channel.`,
      );
    }
    if (this.#running) throw new Conflict("An update is already under way.");
    this.#running = true;
    const done = this.deps.ops.run(`the update to Factorio ${to}`, () => this.#run(from, to), {
      restarts: state === "running",
    })
      .finally(() => (this.#running = false));
    done.catch(() => {});
    return { from, to, done };
  }

  #say(
    from: string,
    to: string,
    phase: UpdatePhase,
    message: string,
    secondsLeft: number | null = null,
  ): void {
    this.deps.versions.setUpdateProgress({ from, to, phase, secondsLeft, message });
    if (message) this.deps.log.info(message);
  }

  async #run(from: string, to: string): Promise<void> {
    const { versions, game } = this.deps;
    const previous = activeVersion(versions.dir)?.version ?? (versions.unmanaged() ? UNMANAGED : "");
    const cancel = (this.#cancel = new AbortController());
    try {
      if (!installedVersions(versions.home).includes(to)) {
        this.#say(from, to, "installing", `Installing Factorio ${to}.`);
        await (await versions.install(to)).done;
      }
      if (game.state === "stopped") {
        await this.#switch(() => versions.switchForUpdate(to, null));
        this.#say(from, to, "done", `Updated to Factorio ${to}.`);
        return;
      }
      cancel.signal.throwIfAborted();
      const s = game.status();
      const request: StartRequest = { bindip: s.bindip, port: s.port, savefile: s.savefile };
      await this.#countdown(from, to, cancel.signal);
      this.#cancel = null;
      this.#say(from, to, "stopping", "Saving the map and stopping the server.");
      await this.#stop();
      const save = s.savefile.endsWith(".zip") ? s.savefile : null;
      await this.#switch(() => versions.switchForUpdate(to, save));
      this.#say(from, to, "starting", `Starting ${s.savefile} with Factorio ${to}.`);
      const failure = await this.#start(request);
      if (!failure) {
        this.#say(from, to, "done", `Updated to Factorio ${to}; ${s.savefile} is running again.`);
        return;
      }
      this.#say(
        from,
        to,
        "rolling-back",
        `Factorio ${to} did not start: ${failure}. Switching back to Factorio ${from}.`,
      );
      await this.#switch(() => versions.switchBack(previous, save));
      const again = await this.#start(request);
      if (again) {
        this.#say(
          from,
          to,
          "failed",
          `Factorio ${to} did not start (${failure}); switched back to Factorio ${from}, which did not start either: ${again}.`,
        );
        return;
      }
      this.#say(
        from,
        to,
        "rolled-back",
        `Factorio ${to} did not start (${failure}); switched back to Factorio ${from} and started ${s.savefile} again.`,
      );
    } catch (e) {
      if (cancel.signal.aborted && this.#cancel) {
        if (game.state === "running") {
          await game.rcon("[Server] The update was called off; the server keeps running.").catch(() => "");
        }
        this.#say(from, to, "cancelled", `The update to Factorio ${to} was called off; nothing changed.`);
        return;
      }
      this.#say(from, to, "failed", `The update to Factorio ${to} failed: ${(e as Error).message}`);
      throw e;
    } finally {
      this.#cancel = null;
    }
  }

  async #switch(fn: () => Promise<void>): Promise<void> {
    await this.deps.game.whileStopped(SWITCH_LABEL, fn);
  }

  /**
   * Warns the players at each mark and waits for the next. With nobody online (at the start, or at a
   * later mark) there is nobody to warn or wait for: the update goes on at once.
   */
  async #countdown(from: string, to: string, signal: AbortSignal): Promise<void> {
    const marks = [...new Set(this.deps.warnings)].filter((n) => n > 0).sort((a, b) => b - a);
    for (let i = 0; i < marks.length; i++) {
      if (!await this.#anyoneOnline()) {
        this.deps.log.info(
          i === 0
            ? "Nobody is online: the update restarts the server without warnings."
            : "Nobody is online any more: the update goes on now.",
        );
        return;
      }
      this.#say(from, to, "warning", `Players are warned: the server restarts in ${marks[i]} s.`, marks[i]);
      try {
        await this.deps.game.rcon(warningText(to, marks[i]));
      } catch (e) {
        this.deps.log.warn("Could not warn the players", { error: String(e) });
      }
      await this.#sleep((marks[i] - (marks[i + 1] ?? 0)) * 1000, signal);
      signal.throwIfAborted();
      if (this.deps.game.state !== "running") throw new Error("the server stopped during the countdown");
    }
  }

  /** Whether a player is in the game; true when the game cannot say (then they are warned as before). */
  async #anyoneOnline(): Promise<boolean> {
    try {
      return parseOnlinePlayers(await this.deps.game.rcon("/players online")).length > 0;
    } catch {
      return true;
    }
  }

  #until(state: ServerState): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.deps.game.state === state) return resolve(true);
      const off = this.deps.bus.on("server.status", ({ status }) => {
        if (status.status !== state) return;
        off();
        clearTimeout(timer);
        resolve(true);
      });
      const timer = setTimeout(() => (off(), resolve(false)), GAME_WAIT_MS);
    });
  }

  async #stop(): Promise<void> {
    await this.deps.game.stop();
    if (!(await this.#until("stopped"))) throw new Error("the server did not stop");
  }

  /** Starts the save; null when the game hosts it, else why not. */
  async #start(request: StartRequest): Promise<string | null> {
    try {
      const r = await this.deps.game.start(request);
      if (r.status === 200) return null;
      // Still loading: running or stopped decides.
      const outcome = await Promise.race([
        this.#until("running").then((ok) => (ok ? "running" : "timeout")),
        this.#untilExit(),
      ]);
      return outcome === "running" ? null : outcome === "timeout" ? "it did not finish loading" : outcome;
    } catch (e) {
      // "Factorio did not start (exit code 1): Error ..." -> "exit code 1: Error ...": the sentence around it names the version.
      return (e as Error).message.replace(/^Factorio did not start \(([^)]*)\):\s*/, "$1: ").replace(
        /^Factorio did not start:\s*/,
        "",
      );
    }
  }

  #untilExit(): Promise<string> {
    return new Promise((resolve) => {
      const off = this.deps.bus.on("server.status", ({ status, exit }) => {
        if (status.status !== "stopped") return;
        off();
        resolve(exit?.last_lines.filter((l) => /Error/.test(l)).pop() ?? "the game exited while loading");
      });
    });
  }
}
