// Follows the game's output on the bus and keeps the players' story: sessions from join to leave (or
// kick, ban, the game ending), chat, and how many were online over time. Raises the player-joined and
// player-left alerts.
//
// What the log cannot say is filled in from the game itself: when the panel starts and finds the game
// running (a panel restart mid-session), it asks the game who is online (`/players online` over RCON,
// which is no Lua and keeps achievements) and closes or opens sessions to match. Found stopped, the
// sessions still open ended when the panel last saw the game.

import type { EventBus, PanelEvents } from "../../lib/events.ts";
import type { Logger } from "../../lib/log.ts";
import type { Db } from "../../store/db.ts";
import type { ServerState } from "../../../shared/api.ts";
import { parsePlayerLine } from "./logline.ts";
import { PlayerLogStore } from "./historystore.ts";

export const SAMPLE_EVERY_MS = 10 * 60_000;
const CHAT_BATCH = 500;
/**
 * How long chat lines wait to be written with the ones after them. Every commit is an fsync on the
 * panel's one thread: written after each read of the game's output, a burst of 20,000 lines spent most of
 * its time in fsync while the console clients waited (bench/gamelog.mjs).
 */
const CHAT_FLUSH_MS = 250;

export interface PlayerHistoryDeps {
  bus: EventBus;
  db: Db;
  log: Logger;
  now: () => number;
  gameState: () => ServerState;
  /** Names online now, asked of the running game. */
  onlineNow: () => Promise<string[]>;
  /** Days the online counts are kept. */
  countDays: number;
}

export class PlayerHistory {
  readonly store: PlayerLogStore;
  #unsubscribe: (() => void)[] = [];
  #retention: ReturnType<typeof setInterval>;
  #chat: [number, string, string][] = [];
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  /** Settles when the last reconciliation with the game has (tests wait on it). */
  reconciled: Promise<void> = Promise.resolve();

  constructor(private readonly deps: PlayerHistoryDeps) {
    this.store = new PlayerLogStore(deps.db);
    this.#unsubscribe.push(deps.bus.on("server.log", ({ line }) => this.onLine(line)));
    this.#unsubscribe.push(deps.bus.on("server.status", (change) => this.#onStatus(change)));
    const state = deps.gameState();
    if (state === "stopped") {
      const open = this.store.openNames().length;
      if (open > 0) {
        // The game ended while the panel was away: the last sample is the last time it was seen up.
        const at = this.store.lastSampleAt() ?? deps.now();
        this.store.leaveAll(at, "game ended while the panel was stopped");
        this.store.sample(at, 0);
        deps.log.info("Closed player sessions the game ended while the panel was stopped", {
          sessions: open,
        });
      }
    } else if (state === "running") {
      this.reconcile();
    }
    this.#dropOld();
    // A sample every few minutes while the game runs: the chart's line goes on, and after a panel
    // restart the last sample says until when the game was seen up.
    this.#retention = setInterval(() => {
      if (deps.gameState() === "running") this.#sample(deps.now());
      this.#dropOld();
    }, SAMPLE_EVERY_MS);
  }

  onLine(line: string): void {
    const p = parsePlayerLine(line);
    if (!p) return;
    const now = this.deps.now();
    try {
      switch (p.kind) {
        case "chat":
          // Chat is the bulk of the lines: written in batches, one transaction each (a commit per line
          // would cap it at a few hundred lines a second).
          this.#chat.push([now, p.name, p.message]);
          if (this.#chat.length >= CHAT_BATCH) this.flush();
          else this.#flushTimer ??= setTimeout(() => this.flush(), CHAT_FLUSH_MS);
          return;
        case "join":
          this.flush();
          if (!this.store.join(p.name, now)) return;
          this.#sample(now);
          this.deps.bus.emit("alert", {
            kind: "player-joined",
            title: `${p.name} joined`,
            body: `${p.name} joined the game.`,
            details: { Player: p.name },
            key: p.name,
          });
          return;
        default: {
          this.flush();
          const reason = p.kind === "leave" ? "left" : p.kind === "kick" ? "kicked" : "banned";
          if (!this.store.leave(p.name, now, reason)) return;
          this.#sample(now);
          const how = p.kind === "leave" ? "left the game" : `was ${reason} by ${p.by} (${p.reason})`;
          this.deps.bus.emit("alert", {
            kind: "player-left",
            title: `${p.name} left`,
            body: `${p.name} ${how}.`,
            details: { Player: p.name },
            key: p.name,
          });
        }
      }
    } catch (e) {
      this.deps.log.error("Could not record a player line", { error: String(e) });
    }
  }

  /** Writes the chat lines not written yet. */
  flush(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    if (this.#chat.length === 0) return;
    const batch = this.#chat.splice(0);
    try {
      this.store.chatBatch(batch);
    } catch (e) {
      this.deps.log.error("Could not record chat lines", { lines: batch.length, error: String(e) });
    }
  }

  #onStatus(change: PanelEvents["server.status"]): void {
    if (change.exit) {
      const at = Date.parse(change.exit.at) || this.deps.now();
      const ended = this.store.leaveAll(at, `game ${change.exit.reason}`);
      if (ended > 0) this.deps.log.info("The game ended: closed the players' sessions", { sessions: ended });
      this.#sample(at);
    } else if (
      change.status.status === "running" && change.previous !== "running" && this.store.openNames().length > 0
    ) {
      this.reconcile();
    }
  }

  /** Brings open sessions in line with who the game says is online. */
  reconcile(): Promise<void> {
    this.reconciled = (async () => {
      let online: string[];
      try {
        online = await this.deps.onlineNow();
      } catch (e) {
        this.deps.log.warn("Could not ask the game who is online", { error: String(e) });
        return;
      }
      const now = this.deps.now();
      const open = new Set(this.store.openNames());
      let changed = false;
      for (const name of open) {
        if (!online.includes(name)) {
          changed = this.store.leave(name, now, "not online when the panel looked") || changed;
        }
      }
      for (const name of online) if (!open.has(name)) changed = this.store.join(name, now) || changed;
      if (changed) this.#sample(now);
    })();
    return this.reconciled;
  }

  #sample(at: number): void {
    this.store.sample(at, this.store.openNames().length);
  }

  #dropOld(): void {
    this.store.dropSamplesBefore(this.deps.now() - this.deps.countDays * 24 * 3600_000);
  }

  close(): void {
    this.flush();
    for (const u of this.#unsubscribe) u();
    clearInterval(this.#retention);
  }
}
