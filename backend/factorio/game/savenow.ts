// The RCON save handshake: ask the running game to save its map now and wait until it says it has.
//
// `/server-save` is a plain console command (not Lua), so it keeps achievements. The game answers the RCON
// request at once and saves on its own time, printing
//     Info AppManager.cpp:NNN: Saving to <name> (blocking).
//     Info AppManagerStates.cpp:NNNN: Saving finished
// to its output. Only after that second line is the file on disk complete (the game writes a temp file
// and renames it). An autosave can print the same pair at any moment, so the wait is for the "Saving
// finished" that follows a "Saving to" of the save the server has loaded.
//
// Only public pieces are used: GameControl (status, rcon) and the bus's "server.log" and "server.status"
// events, so this works whoever supervises the process.

import type { EventBus } from "../../events.ts";
import type { GameControl } from "./control.ts";
import { Conflict, HttpError, Upstream } from "../../errors.ts";
import { LOAD_LATEST } from "../../../shared/api.ts";
import { clearTimeout, setTimeout } from "../../timers.ts";

const SAVING_TO = /\bInfo AppManager\.cpp:\d+: Saving to (.+?) \((?:non-)?blocking\)\.?\s*$/;
const SAVING_FINISHED = /\bInfo AppManagerStates\.cpp:\d+: Saving finished\s*$/;

/** The game did not say it finished saving in time (or stopped while saving). */
export class SaveFailed extends HttpError {
  constructor(message: string) {
    super(504, message);
  }
}

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
 * Asks the running game to save and resolves with the save's file name once the game has printed
 * "Saving finished" for it. Throws Conflict when the game is not running, SaveFailed on timeout or when
 * the game stops before it finished.
 */
export async function saveNow(deps: SaveNowDeps): Promise<{ savefile: string }> {
  const status = deps.game.status();
  if (status.status !== "running") throw new Conflict("The server is not running, so it cannot save now.");
  const savefile = status.savefile && status.savefile !== LOAD_LATEST ? status.savefile : "";
  const want = savefile ? stem(savefile) : null;

  let offLog = () => {};
  let offStatus = () => {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  let fail: (e: unknown) => void = () => {};
  const finished = new Promise<void>((resolve, reject) => {
    fail = reject;
    // Listening before the command goes out: the game can print both lines before RCON answers.
    let ours = false;
    offLog = deps.bus.on("server.log", ({ line }) => {
      const to = SAVING_TO.exec(line);
      if (to) {
        ours = want === null || stem(to[1]) === want;
        return;
      }
      if (ours && SAVING_FINISHED.test(line)) resolve();
    });
    offStatus = deps.bus.on("server.status", ({ status }) => {
      if (status.status !== "running") reject(new SaveFailed("The server stopped before it finished saving."));
    });
    timer = setTimeout(
      () => reject(new SaveFailed(`The game did not finish saving within ${Math.round(deps.timeoutMs / 1000)} s.`)),
      deps.timeoutMs,
    );
  });
  finished.catch(() => {}); // settled below; never an unhandled rejection if rcon throws first
  try {
    // The game may answer the command before or only after it has saved (a big map can take longer than
    // the RCON reply's own timeout); either way the log line decides, and the timeout runs from the moment
    // the command goes out. Only a game that is no longer there ends the wait early.
    deps.game.rcon("/server-save").catch((e) => {
      if (!(e instanceof Upstream)) fail(e);
    });
    await finished;
    return { savefile };
  } finally {
    clearTimeout(timer);
    offLog();
    offStatus();
  }
}
