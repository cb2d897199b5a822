// Turns the game server's status changes into alerts: started, stopped, crashed, failed to start, still
// down N minutes after a crash (repeated every N minutes, a few times), and running again after a crash.
// Each server's outage is its own: the alerts are emitted with the server the status change came from.

import type { EventBus, PanelEvents, ServerRef } from "../lib/events.ts";
import { FIRST_SERVER } from "../../shared/contract/servers.ts";
import type { Logger } from "../lib/log.ts";
import type { Alert } from "./alert.ts";
import { PUSH_MSG } from "../../shared/messages.ts";
import { formatVersion, parseVersion } from "../../shared/versions.ts";

/** Longest log line quoted in a crash alert. */
const LAST_LINE_MAX = 200;
/** "Still down" is said this many times at most for one outage. */
export const STILL_DOWN_REPEATS = 6;

type StatusChange = PanelEvents["server.status"];

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? flat.slice(0, max - 1) + "…" : flat;
}

/**
 * A start that ended before the game was hosting. Issue 10 gives such exits their own reason
 * ("start-failed"); until then, a crash straight out of "starting" is the same thing.
 */
export function isStartFailure(change: StatusChange): boolean {
  const reason: string = change.exit?.reason ?? "";
  return reason === "start-failed" || (reason === "crashed" && change.previous === "starting");
}

function lastLine(change: StatusChange): string | undefined {
  return [...(change.exit?.last_lines ?? [])].reverse().find((l) => l.trim() !== "")
    // Factorio starts its lines with seconds since start ("  12.345 Error ..."): noise in an alert.
    ?.replace(/^\s*\d+\.\d{3} /, "");
}

/** The alert a status change is, if any (without the still-down / running-again bookkeeping). */
export function alertOf(change: StatusChange): Alert | null {
  const { status, exit, previous } = change;
  const save = status.savefile || "the game";
  // The status carries the old API's four-part version ("2.0.72.0"); people know "2.0.72".
  const parsed = parseVersion(status.fac_version);
  const version = parsed ? formatVersion(parsed, 3) : status.fac_version;
  if (exit) {
    const at = exit.at;
    if (exit.reason === "stopped" || exit.reason === "killed") {
      return {
        kind: "stopped",
        title: PUSH_MSG.titleStopped,
        body: exit.reason === "killed"
          ? "Killed from the panel: the game was not saved."
          : "Saved and stopped from the panel.",
        at,
        noMerge: true,
      };
    }
    const how = exit.signal ? `Ended by signal ${exit.signal}` : `Exit code ${exit.code ?? "unknown"}`;
    const last = lastLine(change);
    const details: Record<string, string> = { Save: save };
    if (last) details["Last log line"] = oneLine(last, LAST_LINE_MAX);
    const body = last ? `${how}. Last log line: ${oneLine(last, LAST_LINE_MAX)}` : `${how}.`;
    if (isStartFailure(change)) {
      return { kind: "start-failed", title: PUSH_MSG.titleStartFailed, body, details, at };
    }
    return { kind: "crashed", title: PUSH_MSG.titleCrashed, body, details, at };
  }
  if (status.status === "running" && previous !== "running") {
    return {
      kind: "started",
      title: PUSH_MSG.titleStarted,
      body: `${save} is running on port ${status.port}${version ? ` (Factorio ${version})` : ""}.`,
      details: { Save: save, Port: String(status.port), ...(version ? { Version: version } : {}) },
      noMerge: true,
    };
  }
  return null;
}

export interface GameAlertsDeps {
  bus: EventBus;
  log: Logger;
  now: () => number;
  /** Time after a crash before "still down" (0: never). */
  stillDownMs: number;
}

interface Down {
  since: number;
  timer?: ReturnType<typeof setTimeout>;
  told: number;
}

export class GameAlerts {
  /** Per server id: set while its game is down without having been asked to stop. */
  #down = new Map<number, Down>();
  #unsubscribe: () => void;
  /** Tests shorten it. */
  stillDownMs: number;

  constructor(private readonly deps: GameAlertsDeps) {
    this.stillDownMs = deps.stillDownMs;
    this.#unsubscribe = deps.bus.on("server.status", (change, server) => this.#onStatus(change, server));
  }

  /** `server` undefined: server 1's game on the panel bus (until every server has its own bus). */
  #onStatus(change: StatusChange, server: ServerRef | undefined): void {
    const alert = alertOf(change);
    if (!alert) return;
    const id = server?.id ?? FIRST_SERVER;
    const down = this.#down.get(id);
    if (alert.kind === "crashed" || alert.kind === "start-failed") {
      // A failed restart after a crash is the same outage: it keeps the original time.
      if (!down) this.#down.set(id, { since: this.deps.now(), told: 0 });
      this.#scheduleStillDown(id, server);
    } else if (alert.kind === "stopped") {
      this.forgetServer(id); // asked to stop: not an outage
    } else if (alert.kind === "started" && down) {
      const minutes = Math.max(1, Math.round((this.deps.now() - down.since) / 60_000));
      this.forgetServer(id);
      this.deps.bus.emit("alert", {
        ...alert,
        title: PUSH_MSG.titleRunningAgain,
        body: `Running again after a crash (down about ${minutes} minute${
          minutes === 1 ? "" : "s"
        }). ${alert.body}`,
        also: ["crashed", "start-failed", "still-down"],
        // A crash loop brings one "running again" per crash: those are merged like the crashes.
        noMerge: false,
        key: "running-again",
      }, server);
      return;
    }
    this.deps.bus.emit("alert", alert, server);
  }

  #scheduleStillDown(id: number, server: ServerRef | undefined): void {
    const down = this.#down.get(id);
    if (!down || this.stillDownMs <= 0 || down.timer || down.told >= STILL_DOWN_REPEATS) return;
    down.timer = setTimeout(() => {
      down.timer = undefined;
      if (this.#down.get(id) !== down) return;
      down.told++;
      const minutes = Math.max(1, Math.round((this.deps.now() - down.since) / 60_000));
      this.deps.bus.emit("alert", {
        kind: "still-down",
        title: PUSH_MSG.titleStillDown,
        body: `The game has been down for ${minutes} minute${minutes === 1 ? "" : "s"} since it crashed.`,
        details: { "Down since": new Date(down.since).toISOString() },
      }, server);
      this.#scheduleStillDown(id, server);
    }, this.stillDownMs);
  }

  /** The server is up, stopped on purpose or deleted: no more "still down" about it. */
  forgetServer(id: number): void {
    clearTimeout(this.#down.get(id)?.timer);
    this.#down.delete(id);
  }

  close(): void {
    this.#unsubscribe();
    for (const id of [...this.#down.keys()]) this.forgetServer(id);
  }
}
