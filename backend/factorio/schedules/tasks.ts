// What each task of a schedule does. Everything that acts on the game goes through the game operations
// queue, one task at a time, so a scheduled restart never interleaves with a manual stop or a backup;
// waiting (delays, countdowns) happens outside the queue, so it holds nobody up.

import type { Clock } from "./clock.ts";
import type { GameOps } from "../game/ops.ts";
import type { Backups } from "../backups/service.ts";
import type { ModManager } from "../mods/manager.ts";
import { saveNow } from "../game/savenow.ts";
import type { EventBus } from "../../lib/events.ts";
import { LOAD_LATEST, type ServerStatus, type StartRequest } from "../../../shared/api.ts";
import { formatDuration, type ScheduleTask, WARN_MARKS_S } from "../../../shared/backups.ts";

export interface TaskGame {
  status(): ServerStatus;
  rcon(command: string): Promise<string>;
  start(request: StartRequest): Promise<{ message: string; status: number }>;
  stop(): Promise<{ message: string; status: number }>;
  whileStopped<T>(label: string, fn: () => Promise<T>): Promise<T>;
}

export interface TaskDeps {
  game: TaskGame;
  ops: GameOps;
  bus: EventBus;
  backups: Backups;
  mods: ModManager;
  clock: Clock;
  saveTimeoutMs: number;
}

/** The chat text of a countdown line: "{time}" becomes the time left, or it is appended. */
export function warnText(text: string, remaining: number): string {
  const left = formatDuration(remaining);
  return text.includes("{time}") ? text.replaceAll("{time}", left) : `${text} (${left})`;
}

function requireRunning(game: TaskGame): void {
  if (game.status().status !== "running") throw new Error("the server is not running");
}

/** How the server was last started, to start it again the same way. */
function lastStart(game: TaskGame): StartRequest {
  const s = game.status();
  return { bindip: s.bindip, port: s.port, savefile: s.savefile || LOAD_LATEST };
}

async function startGame(game: TaskGame): Promise<string> {
  const r = await game.start(lastStart(game));
  if (r.status !== 200) throw new Error(r.message);
  return r.message;
}

async function stopGame(game: TaskGame): Promise<string> {
  const r = await game.stop();
  if (game.status().status !== "stopped") throw new Error(r.message);
  return r.message;
}

/**
 * Runs one task and answers a line for the run's output; throws with the reason when it fails.
 * `signal` ends a countdown early when the panel shuts down.
 */
export async function runTask(task: ScheduleTask, deps: TaskDeps, signal?: AbortSignal): Promise<string> {
  const { game, ops } = deps;
  // While an update & restart (or another restart) is queued or running, the queue says so: a scheduled
  // restart then is that one, and its warnings would announce a second restart that never comes.
  const restartedBy = () => ops.restarting && `skipped: ${ops.restarting} restarts the server`;
  switch (task.type) {
    case "warn": {
      requireRunning(game);
      const total = task.countdown_s ?? 0;
      const start = deps.clock.now();
      const text = task.text ?? "";
      const marks = [total, ...WARN_MARKS_S.filter((m) => m < total)];
      for (const remaining of marks) {
        const due = start + (total - remaining) * 1000;
        const wait = due - deps.clock.now();
        if (wait > 0) await deps.clock.sleep(wait, "warn", signal);
        if (signal?.aborted) throw new Error("the panel is shutting down");
        const skipped = restartedBy();
        if (skipped) return skipped;
        requireRunning(game);
        // Plain text over RCON is chat from <server>: no Lua, so achievements stay on.
        await game.rcon(total > 0 ? warnText(text, remaining) : text);
      }
      const end = start + total * 1000 - deps.clock.now();
      if (end > 0) await deps.clock.sleep(end, "warn", signal);
      return `warned players ${marks.length} time${marks.length === 1 ? "" : "s"}`;
    }
    case "save":
      return await ops.run("scheduled save", async () => {
        requireRunning(game);
        const { savefile } = await saveNow({ game, bus: deps.bus, timeoutMs: deps.saveTimeoutMs });
        return `saved ${savefile || "the map"}`;
      });
    case "backup":
      return await ops.run("scheduled backup", async () => {
        const b = await deps.backups.create({ reason: "schedule", include: task.include ?? [] });
        return `backup ${b!.id} (${b!.size} bytes)`;
      });
    case "restart":
      return restartedBy() || await ops.run("scheduled restart", async () => {
        if (game.status().status !== "stopped") await stopGame(game);
        return await startGame(game);
      }, { restarts: true });
    case "stop":
      return await ops.run("scheduled stop", async () => {
        if (game.status().status === "stopped") return "the server was already stopped";
        return await stopGame(game);
      });
    case "start":
      return await ops.run("scheduled start", async () => {
        if (game.status().status === "running") return "the server was already running";
        return await startGame(game);
      });
    case "update-mods":
      return await ops.run("scheduled mod update", async () => {
        if (game.status().status !== "stopped") {
          throw new Error("mods can only be updated while the server is stopped (add a stop task first)");
        }
        const updates = await game.whileStopped("updating mods", async () => {
          const found = await deps.mods.updates(deps.mods.live);
          for (const u of found) await deps.mods.update(deps.mods.live, u.modName, u.downloadUrl);
          return found;
        });
        return updates.length === 0
          ? "all mods were up to date"
          : `updated ${updates.map((u) => `${u.modName} ${u.current} -> ${u.version}`).join(", ")}`;
      });
    case "command":
      return await ops.run("scheduled command", async () => {
        requireRunning(game);
        const reply = await game.rcon(task.text ?? "");
        return reply.trim() ? `ran ${task.text}: ${reply.trim()}` : `ran ${task.text}`;
      });
  }
}
