// The /ws live channel: a fixed set of rooms (gamelog, server_status, logs, ...), per-client subscriptions, replay on
// subscribe and fan-out of bus events. Clients can only subscribe, unsubscribe and send console commands;
// they cannot inject messages into rooms. A slow client is dropped once its send buffer is over the
// limit, so it never holds up the others.

import { unsafeTextError } from "../../shared/validation.ts";
import type { WSContext, WSEvents } from "hono/ws";
import type { EventBus } from "../lib/events.ts";
import type { Role } from "../../shared/api.ts";
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
  send(message: ServerMessage): boolean;
  close(code: number, reason: string): void;
}

/** Runs a console command on server `server`; the reply lines go to `reply`. */
export type CommandHandler = (
  server: number,
  text: string,
  client: WsClient,
  reply: (line: string) => void,
) => void | Promise<void>;

/** A room of one server: "gamelog@2". */
const key = (room: RoomName, server: number) => `${room}@${server}`;

class Client implements WsClient {
  /** The rooms it subscribed to, per server ("gamelog@1"). */
  readonly rooms = new Set<string>();
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

/** gamelog lines of one server waiting for the next batch, and when its last batch went out. */
interface LineBatch {
  pending: string[];
  timer: ReturnType<typeof setTimeout> | undefined;
  lastFlush: number;
}

export class Hub {
  #clients = new Set<Client>();
  #batches = new Map<number, LineBatch>();
  #replay = new Map<RoomName, (server: number) => string[]>();
  #command: CommandHandler | undefined;
  /**
   * The caller's role on a server (null: they may not see it). Set by boot/context.ts from the servers
   * and roles; until then, server 1 with the session's role.
   */
  roleOn: (session: SessionInfo, server: number) => Role | null = (s, server) => server === 1 ? s.role : null;

  constructor(private readonly bus: EventBus, private readonly log: Logger) {
    bus.on("sessions.revoked", ({ sessionIds }) => {
      const ids = new Set(sessionIds);
      for (const c of this.#clients) if (ids.has(c.sessionId)) c.close(WS_CLOSE.signedOut, "Signed out");
    });
    // Game events come from a server's bus and name it; one without a server is the first server's.
    bus.on("server.log", ({ line }, server) => this.gameLine(server?.id ?? 1, line));
    bus.on(
      "server.status",
      ({ status }, server) => this.broadcast("server_status", JSON.stringify(status), server?.id ?? 1),
    );
    bus.on(
      "factorio.versions",
      (m, server) => this.broadcast("factorio_versions", JSON.stringify(m), server?.id ?? 1),
    );
  }

  /** What a new subscriber of `room` on a server receives first (recent log lines, the current status). */
  setReplay(room: RoomName, provider: (server: number) => string[]): void {
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

  /** How many clients are subscribed to `room` of a server. */
  roomSize(room: RoomName, server = 1): number {
    let n = 0;
    for (const c of this.#clients) if (c.rooms.has(key(room, server))) n++;
    return n;
  }

  /** Closes what a server's subscribers hear (a deleted server): they are unsubscribed. */
  forgetServer(server: number): void {
    for (const c of this.#clients) {
      for (const r of [...c.rooms]) if (r.endsWith(`@${server}`)) c.rooms.delete(r);
    }
    const b = this.#batches.get(server);
    if (b) clearTimeout(b.timer);
    this.#batches.delete(server);
  }

  /**
   * A line of game output: at once, one message each, to clients of the old kind; batched per frame to the
   * others. A burst of 20,000 lines is then a few hundred messages per client instead of 20,000, which is
   * what lets 50 clients keep up with the game (bench/gamelog.mjs).
   */
  private gameLine(server: number, line: string): void {
    this.broadcast("gamelog", line, server, (c) => !c.batched);
    let b = this.#batches.get(server);
    if (!b) this.#batches.set(server, b = { pending: [], timer: undefined, lastFlush: 0 });
    b.pending.push(line);
    if (b.timer !== undefined) return;
    // The first line after a quiet spell goes out at once; while lines keep coming, one batch per frame.
    const wait = Math.max(0, b.lastFlush + WS_BATCH_MS - Date.now());
    b.timer = setTimeout(() => this.flushLines(server), wait);
  }

  private flushLines(server: number): void {
    const b = this.#batches.get(server);
    if (!b) return;
    clearTimeout(b.timer);
    b.timer = undefined;
    b.lastFlush = Date.now();
    const lines = b.pending;
    b.pending = [];
    if (lines.length === 0) return;
    const text = lines.join("\n");
    this.broadcast("gamelog", text, server, (c) => c.batched);
    // The Logs page: the same batches; it has no replay (it reads the log file's tail itself).
    this.broadcast("logs", text, server);
  }

  broadcast(room: RoomName, message: string, server = 1, only?: (c: Client) => boolean): void {
    let text: string | undefined;
    const k = key(room, server);
    for (const c of this.#clients) {
      if (!c.rooms.has(k) || (only && !only(c))) continue;
      text ??= JSON.stringify({ room_name: room, message, server } satisfies ServerMessage);
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
    for (const b of this.#batches.values()) clearTimeout(b.timer);
    this.#batches.clear();
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
        const server = msg.controls.server ?? 1;
        if (type === "subscribe" && isRoomName(value)) {
          const k = key(value, server);
          if (client.rooms.has(k)) return;
          // A server the caller has no role on is not there for them: nothing to hear.
          const now = origin ? origin.current() : session;
          if (!now || this.roleOn(now, server) === null) return;
          client.rooms.add(k);
          if (value === "gamelog") client.batched = batch === true;
          if (value === "gamelog" && batch) {
            // Lines still waiting are in the replay: send them to the others first, so none comes twice.
            if (this.#batches.get(server)?.pending.length) this.flushLines(server);
            const replay = this.#replay.get(value)?.(server) ?? [];
            if (replay.length > 0) client.send({ room_name: value, message: replay.join("\n"), server });
            return;
          }
          for (const line of this.#replay.get(value)?.(server) ?? []) {
            client.send({ room_name: value, message: line, server });
          }
        } else if (type === "unsubscribe" && isRoomName(value)) {
          client.rooms.delete(key(value, server));
        } else if (type === "command" && this.#command && value.trim() !== "") {
          const c = client;
          // A newline would let one command print a made-up log line to every viewer.
          const unsafe = unsafeTextError(value, "A console command");
          if (unsafe) {
            c.send({ room_name: "gamelog", message: unsafe, server });
            return;
          }
          const now = origin ? origin.current() : session;
          if (!now) {
            c.close(WS_CLOSE.signedOut, "Signed out");
            return;
          }
          const role = this.roleOn(now, server);
          if (role === null) return;
          const allowed = roleAtLeast(role, "operator") && !now.mustEnrol;
          this.bus.emit("console.command", {
            username: now.user.username,
            via: now.via === "token" ? `token ${now.token?.name ?? ""}` : "session",
            address: origin?.address ?? "",
            userAgent: origin?.userAgent ?? "",
            text: value.trim(),
            allowed,
            server,
          });
          if (!allowed) {
            c.send({ room_name: "gamelog", message: ACCESS_MSG.consoleNotAllowed, server });
            return;
          }
          const reply = (line: string) => c.send({ room_name: "gamelog", message: line, server });
          Promise.resolve()
            .then(() => this.#command!(server, value, c, reply))
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
