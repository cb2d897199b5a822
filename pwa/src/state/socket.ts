// The only place that opens /ws. One connection for the whole app; pages subscribe to rooms with a
// listener and the socket keeps the server's subscriptions in step (re-sent after every reconnect, so
// a dropped connection does not silently stop live updates). On close it reconnects after 5 s.
// Several servers: a room is one server's (gamelog of server 2); a subscription names its server when it
// is not server 1, and a message goes to the listeners of the server it names (none: server 1).

import { proxy } from "valtio";
import {
  type ClientMessage,
  type RoomName,
  type ServerMessage,
  WS_RECONNECT_MS,
  WS_TOO_MANY,
} from "../../../shared/ws.ts";
import { FIRST_SERVER } from "../../../shared/servers.ts";
import { showFlash } from "./flash.ts";
import { current } from "./current.ts";

type Listener = (message: string) => void;

/** Close code the backend uses when the session behind the socket ended. */
const SIGNED_OUT = 4001;
/** Refused for too many connections of this sign-in (other tabs): said, then tried again this much later. */
const TOO_MANY_RETRY_MS = 30_000;

/** A room of one server: "gamelog 2". */
type RoomKey = `${RoomName} ${number}`;

function roomKey(room: RoomName, server: number): RoomKey {
  return `${room} ${server}`;
}

/** Server 1 is named by leaving it out, as the old UI does. */
function onServer(server: number): { server?: number } {
  return server === FIRST_SERVER ? {} : { server };
}

/** gamelog is asked for in batches (several lines per message, see shared/ws.ts). */
function subscribeMessage(room: RoomName, server: number): ClientMessage {
  return {
    room_name: "",
    controls: room === "gamelog"
      ? { type: "subscribe", value: room, batch: true, ...onServer(server) }
      : { type: "subscribe", value: room, ...onServer(server) },
  };
}

export class LiveSocket {
  readonly state = proxy({ connected: false });
  #ws: WebSocket | null = null;
  #wanted = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #listeners = new Map<RoomKey, { room: RoomName; server: number; set: Set<Listener> }>();
  #resets = new Map<Listener, () => void>();
  onSignedOut: () => void = () => {};

  connect(): void {
    this.#wanted = true;
    this.#open();
  }

  disconnect(): void {
    this.#wanted = false;
    clearTimeout(this.#timer);
    this.#ws?.close();
    this.#ws = null;
    this.state.connected = false;
  }

  /**
   * Listens to a room; returns the function that stops listening. The server replays a room's recent
   * messages on every subscribe, so after a reconnect `onReplay` runs first: a page that keeps what it
   * received (the console) starts over instead of showing the replay twice. The room is the server
   * shown's, or `server`'s.
   */
  subscribe(
    room: RoomName,
    listener: Listener,
    onReplay?: () => void,
    server: number = current.server,
  ): () => void {
    const key = roomKey(room, server);
    let entry = this.#listeners.get(key);
    if (!entry) this.#listeners.set(key, entry = { room, server, set: new Set() });
    const set = entry.set;
    set.add(listener);
    if (onReplay) this.#resets.set(listener, onReplay);
    if (set.size === 1) this.#send(subscribeMessage(room, server));
    return () => {
      set.delete(listener);
      this.#resets.delete(listener);
      if (set.size === 0) {
        this.#send({ room_name: "", controls: { type: "unsubscribe", value: room, ...onServer(server) } });
      }
    };
  }

  /** Sends console text to the game of the server shown (or `server`'s). False when not connected. */
  command(text: string, server: number = current.server): boolean {
    return this.#send({ room_name: "", controls: { type: "command", value: text, ...onServer(server) } });
  }

  #send(data: unknown): boolean {
    if (this.#ws?.readyState !== WebSocket.OPEN) return false;
    this.#ws.send(JSON.stringify(data));
    return true;
  }

  #open(): void {
    if (this.#ws || !this.#wanted) return;
    clearTimeout(this.#timer);
    const url = `${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`;
    const ws = new WebSocket(url);
    this.#ws = ws;
    ws.onopen = () => {
      this.state.connected = true;
      for (const { room, server, set } of this.#listeners.values()) {
        if (set.size === 0) continue;
        for (const listener of set) this.#resets.get(listener)?.();
        this.#send(subscribeMessage(room, server));
      }
    };
    ws.onmessage = (e) => {
      let msg: ServerMessage;
      try {
        msg = JSON.parse(e.data);
      } catch {
        return;
      }
      const listeners = this.#listeners.get(roomKey(msg.room_name, msg.server ?? FIRST_SERVER))?.set;
      if (!listeners) return;
      // gamelog (subscribeMessage) and logs come in batches of lines; every other room one message at a time.
      const parts = msg.room_name === "gamelog" || msg.room_name === "logs"
        ? String(msg.message).split("\n")
        : [String(msg.message)];
      for (const part of parts) for (const listener of listeners) listener(part);
    };
    ws.onerror = () => ws.close();
    ws.onclose = (e) => {
      if (this.#ws !== ws) return;
      this.#ws = null;
      this.state.connected = false;
      if (e.code === SIGNED_OUT) this.onSignedOut();
      // Too many tabs of this browser hold a connection: say so (live updates stop on this one) and
      // try again now and then, once another tab may have closed.
      const refused = e.code === WS_TOO_MANY.code;
      if (refused) showFlash(e.reason || WS_TOO_MANY.reason, "error");
      if (this.#wanted) {
        this.#timer = setTimeout(() => this.#open(), refused ? TOO_MANY_RETRY_MS : WS_RECONNECT_MS);
      }
    };
  }
}

export const socket = new LiveSocket();
