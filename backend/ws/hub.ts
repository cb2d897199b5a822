// The /ws live channel: a fixed set of rooms (gamelog, server_status, logs, ...), per-client subscriptions, replay on
// subscribe and fan-out of bus events. Clients can only subscribe, unsubscribe and send console commands;
// they cannot inject messages into rooms. A slow client is dropped once its send buffer is over the
// limit, so it never holds up the others.

import { unsafeTextError } from "../../shared/validation.ts";
import type { WSContext, WSEvents } from "hono/ws";
import type { EventBus } from "../lib/events.ts";
import type { Logger } from "../lib/log.ts";
import {
  isRoomName,
  parseClientMessage,
  type RoomName,
  type ServerMessage,
  WS_BATCH_MS,
  WS_PER_SIGN_IN,
  WS_TOO_MANY,
} from "../../shared/ws.ts";
import type { SessionInfo } from "../auth/accounts.ts";
import { roleAtLeast } from "../../shared/api.ts";
import { ACCESS_MSG } from "../../shared/access.ts";

/** Where a socket comes from, and how to re-read its identity before a command. */
export interface SocketOrigin {
  address: string;
  userAgent: string;
  /** The session as it is now; null once it has ended. */
  current: () => SessionInfo | null;
}

/** Close codes the PWA understands. */
export const WS_CLOSE = {
  /** The session ended (logout, password change, user deleted). */
  signedOut: 4001,
  /** The client did not read its messages fast enough. */
  tooSlow: 4008,
  /** The sign-in already holds WS_PER_SIGN_IN connections. */
  tooMany: WS_TOO_MANY.code,
  shuttingDown: 1001,
} as const;

/** Bytes a client may have unsent before it is dropped. */
export const WS_MAX_BUFFERED = 4 * 1024 * 1024;

export interface WsClient {
  readonly sessionId: string;
  readonly username: string;
  readonly rooms: Set<RoomName>;
  send(message: ServerMessage): boolean;
  close(code: number, reason: string): void;
}

export type CommandHandler = (text: string, client: WsClient) => void | Promise<void>;

class Client implements WsClient {
  readonly rooms = new Set<RoomName>();
  /** Takes gamelog lines in batches (subscribed with "batch"); the old UI wants one line per message. */
  batched = false;
  #closed = false;

  constructor(
    private readonly ws: WSContext<WebSocket>,
    readonly sessionId: string,
    readonly username: string,
  ) {}

  get closed(): boolean {
    return this.#closed || this.ws.readyState > 1;
  }

  send(message: ServerMessage): boolean {
    return this.sendText(JSON.stringify(message));
  }

  /** Sends an already encoded message (a broadcast encodes once for all its clients). */
  sendText(text: string): boolean {
    if (this.closed) return false;
    const raw = this.ws.raw;
    if (raw && raw.bufferedAmount > WS_MAX_BUFFERED) {
      this.close(WS_CLOSE.tooSlow, "Too slow: messages were not read");
      return false;
    }
    try {
      this.ws.send(text);
      return true;
    } catch {
      this.#closed = true;
      return false;
    }
  }

  close(code: number, reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    try {
      this.ws.close(code, reason);
    } catch {
      // already closing
    }
  }
}

export class Hub {
  #clients = new Set<Client>();
  /** gamelog lines waiting for the next batch, and when the last batch went out. */
  #pending: string[] = [];
  #flushTimer: ReturnType<typeof setTimeout> | undefined;
  #lastFlush = 0;
  #replay = new Map<RoomName, () => string[]>();
  #command: CommandHandler | undefined;

  constructor(private readonly bus: EventBus, private readonly log: Logger) {
    bus.on("sessions.revoked", ({ sessionIds }) => {
      const ids = new Set(sessionIds);
      for (const c of this.#clients) if (ids.has(c.sessionId)) c.close(WS_CLOSE.signedOut, "Signed out");
    });
    bus.on("server.log", ({ line }) => this.gameLine(line));
    bus.on("server.status", ({ status }) => this.broadcast("server_status", JSON.stringify(status)));
  }

  /** What a new subscriber of `room` receives first (recent log lines, the current status). */
  setReplay(room: RoomName, provider: () => string[]): void {
    this.#replay.set(room, provider);
  }

  /** Who handles console commands (the game server, over RCON). Without one, commands are ignored. */
  onCommand(handler: CommandHandler): void {
    this.#command = handler;
  }

  get clientCount(): number {
    return this.#clients.size;
  }

  /** Open connections of one session or API token ("token:<id>"). */
  connectionsOf(sessionId: string): number {
    let n = 0;
    for (const c of this.#clients) if (c.sessionId === sessionId && !c.closed) n++;
    return n;
  }

  /** How many clients are subscribed to `room`. */
  roomSize(room: RoomName): number {
    let n = 0;
    for (const c of this.#clients) if (c.rooms.has(room)) n++;
    return n;
  }

  /**
   * A line of game output: at once, one message each, to clients of the old kind; batched per frame to the
   * others. A burst of 20,000 lines is then a few hundred messages per client instead of 20,000, which is
   * what lets 50 clients keep up with the game (bench/gamelog.mjs).
   */
  private gameLine(line: string): void {
    this.broadcast("gamelog", line, (c) => !c.batched);
    this.#pending.push(line);
    if (this.#flushTimer !== undefined) return;
    // The first line after a quiet spell goes out at once; while lines keep coming, one batch per frame.
    const wait = Math.max(0, this.#lastFlush + WS_BATCH_MS - Date.now());
    this.#flushTimer = setTimeout(() => this.flushLines(), wait);
  }

  private flushLines(): void {
    this.#flushTimer = undefined;
    this.#lastFlush = Date.now();
    const lines = this.#pending;
    this.#pending = [];
    if (lines.length === 0) return;
    const text = lines.join("\n");
    this.broadcast("gamelog", text, (c) => c.batched);
    // The Logs page: the same batches; it has no replay (it reads the log file's tail itself).
    this.broadcast("logs", text);
  }

  broadcast(room: RoomName, message: string, only?: (c: Client) => boolean): void {
    let text: string | undefined;
    for (const c of this.#clients) {
      if (!c.rooms.has(room) || (only && !only(c))) continue;
      text ??= JSON.stringify({ room_name: room, message } satisfies ServerMessage);
      // A client dropped as too slow may never finish its close handshake (it does not read): forget it now.
      if (!c.sendText(text) && c.closed) this.#clients.delete(c);
    }
  }

  /** Closes the connections of sessions that no longer pass `stillValid` (expired sessions). */
  sweep(stillValid: (sessionId: string) => boolean): void {
    for (const c of this.#clients) {
      if (!stillValid(c.sessionId)) c.close(WS_CLOSE.signedOut, "Session expired");
    }
  }

  closeAll(): void {
    clearTimeout(this.#flushTimer);
    this.#flushTimer = undefined;
    this.#pending = [];
    for (const c of this.#clients) c.close(WS_CLOSE.shuttingDown, "Panel shutting down");
    this.#clients.clear();
  }

  events(session: SessionInfo, origin?: SocketOrigin): WSEvents<WebSocket> {
    let client: Client | undefined;
    return {
      onOpen: (_evt, ws) => {
        // Refused after the upgrade, not before: a browser's WebSocket learns nothing of a refused upgrade,
        // but it reads a close code and reason, which the PWA shows.
        if (this.connectionsOf(session.id) >= WS_PER_SIGN_IN) {
          try {
            ws.close(WS_TOO_MANY.code, WS_TOO_MANY.reason);
          } catch {
            // already closing
          }
          return;
        }
        client = new Client(ws, session.id, session.user.username);
        this.#clients.add(client);
      },
      onMessage: (evt, _ws) => {
        if (!client) return;
        const msg = parseClientMessage(evt.data);
        if (!msg) return; // malformed or unknown: ignored, the connection stays
        const { type, value, batch } = msg.controls;
        if (type === "subscribe" && isRoomName(value)) {
          if (client.rooms.has(value)) return;
          client.rooms.add(value);
          if (value === "gamelog") client.batched = batch === true;
          if (value === "gamelog" && batch) {
            // Lines still waiting are in the replay: send them to the others first, so none comes twice.
            if (this.#pending.length > 0) {
              clearTimeout(this.#flushTimer);
              this.flushLines();
            }
            const replay = this.#replay.get(value)?.() ?? [];
            if (replay.length > 0) client.send({ room_name: value, message: replay.join("\n") });
            return;
          }
          for (const line of this.#replay.get(value)?.() ?? []) {
            client.send({ room_name: value, message: line });
          }
        } else if (type === "unsubscribe" && isRoomName(value)) {
          client.rooms.delete(value);
        } else if (type === "command" && this.#command && value.trim() !== "") {
          const c = client;
          // A newline would let one command print a made-up log line to every viewer.
          const unsafe = unsafeTextError(value, "A console command");
          if (unsafe) {
            c.send({ room_name: "gamelog", message: unsafe });
            return;
          }
          const now = origin ? origin.current() : session;
          if (!now) {
            c.close(WS_CLOSE.signedOut, "Signed out");
            return;
          }
          const allowed = roleAtLeast(now.role, "operator") && !now.mustEnrol;
          this.bus.emit("console.command", {
            username: now.user.username,
            via: now.via === "token" ? `token ${now.token?.name ?? ""}` : "session",
            address: origin?.address ?? "",
            userAgent: origin?.userAgent ?? "",
            text: value.trim(),
            allowed,
          });
          if (!allowed) {
            c.send({ room_name: "gamelog", message: ACCESS_MSG.consoleNotAllowed });
            return;
          }
          Promise.resolve()
            .then(() => this.#command!(value, c))
            .catch((e) => this.log.warn("Console command failed", { error: String(e) }));
        }
      },
      onClose: () => {
        if (client) this.#clients.delete(client);
      },
      onError: () => {
        if (client) this.#clients.delete(client);
      },
    };
  }
}
