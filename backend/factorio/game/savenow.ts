// The RCON save handshake: ask the running game to save its map now and wait until it says it has.
//
// `/server-save` is a plain console command (not Lua), so it keeps achievements. The game answers the RCON
// request at once and saves on its own time, printing which save it writes and then that it is done:
//     Info AppManager.cpp:NNN: Saving to <name> (blocking).           2.x (also "(non-blocking)")
//     Info AppManager.cpp:NNN: Saving game as /path/saves/<name>.zip  1.1, and 2.x for a save by name
//     Info AppManagerStates.cpp:NNNN: Saving finished
// to its output. Only after that last line is the file on disk complete (the game writes a temp file
// and renames it). An autosave can print the same pair at any moment, so the wait is for the "Saving
// finished" that follows the start of a save of the save the server has loaded.
//
// Only public pieces are used: GameControl (status, rcon) and the bus's "server.log" and "server.status"
// events, so this works whoever supervises the process.

import type { EventBus } from "../../lib/events.ts";
import type { GameControl } from "./control.ts";
import { Conflict, GameFailed } from "../../lib/errors.ts";
import { LOAD_LATEST } from "../../../shared/api.ts";

const SAVING_TO = /\bInfo AppManager\.cpp:\d+: Saving to (.+?) \((?:non-)?blocking\)\.?\s*$/;
const SAVING_AS = /\bInfo AppManager\.cpp:\d+: Saving game as (.+?)\s*$/;
const SAVING_FINISHED = /\bInfo AppManagerStates\.cpp:\d+: Saving finished\s*$/;

/** The game did not say it finished saving in time (or stopped while saving). */
export class SaveFailed extends GameFailed {}

export interface SaveNowDeps {
  game: Pick<GameControl, "status" | "rcon">;
  bus: EventBus;
  /** How long the game may take to save before the attempt counts as failed. */
  timeoutMs: number;
}

/** "world.zip", "/x/saves/world.zip" and "world" all name the save "world". */
function stem(name: string): string {
  return name.replace(/^.*[/\\]/, "").replace(/\.zip$/i, "").toLowerCase();
}

/**
 * Follows the game's output for the end of a save: feed it each line; it answers true at the "Saving
 * finished" that ends a save of `save` (any name, or the path the game gives; null: any save).
 */
export function saveFinishedWatcher(save: string | null): (line: string) => boolean {
  const want = save === null ? null : stem(save);
  let ours = false;
  return (line) => {
    const started = SAVING_TO.exec(line) ?? SAVING_AS.exec(line);
    if (started) {
      ours = want === null || stem(started[1]) === want;
      return false;
    }
    return ours && SAVING_FINISHED.test(line);
  };
}

/**
 * Asks the running game to save and resolves with the save's file name once the game has printed
 * "Saving finished" for it. Throws Conflict when the game is not running, SaveFailed on timeout or when
 * the game stops before it finished.
 */
export async function saveNow(deps: SaveNowDeps): Promise<{ savefile: string }> {
  const status = deps.game.status();
  if (status.status !== "running") throw new Conflict("The server is not running, so it cannot save now.");
  const savefile = status.savefile && status.savefile !== LOAD_LATEST ? status.savefile : "";
  const finishes = saveFinishedWatcher(savefile || null);

  let offLog = () => {};
  let offStatus = () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  let fail: (e: unknown) => void = () => {};
  const finished = new Promise<void>((resolve, reject) => {
    fail = reject;
    // Listening before the command goes out: the game can print both lines before RCON answers.
    offLog = deps.bus.on("server.log", ({ line }) => {
      if (finishes(line)) resolve();
    });
    offStatus = deps.bus.on("server.status", ({ status }) => {
      if (status.status !== "running") {
        reject(new SaveFailed("The server stopped before it finished saving."));
      }
    });
    timer = setTimeout(
      () =>
        reject(
          new SaveFailed(`The game did not finish saving within ${Math.round(deps.timeoutMs / 1000)} s.`),
        ),
      deps.timeoutMs,
    );
  });
  finished.catch(() => {}); // settled below; never an unhandled rejection if rcon throws first
  try {
    // The game may answer the command before or only after it has saved (a big map can take longer than
    // the RCON reply's own timeout); either way the log line decides, and the timeout runs from the moment
    // the command goes out. Only a game that is no longer there ends the wait early.
    deps.game.rcon("/server-save").catch((e) => {
      if (!(e instanceof GameFailed)) fail(e);
    });
    await finished;
    return { savefile };
  } finally {
    clearTimeout(timer);
    offLog();
    offStatus();
  }
}
