// The live channel at /ws. Messages are JSON in both directions.
//
// Client -> server: {room_name: "", controls: {type, value}}
//   type "subscribe" | "unsubscribe": value is a room name ("gamelog" | "server_status" | "factorio_versions" | "logs")
//   type "command": value is console text, sent to the game over RCON
//   "batch": true on a gamelog subscribe (this PWA): the client takes several lines per message
// Server -> client: {room_name, message}
//   gamelog: message is one line of game output (string); for a client that subscribed with "batch",
//     the lines printed within one frame (~16 ms) joined by "\n" (a game line never contains one). The
//     old UI never asks for batches and keeps getting one line per message, as it appends each message.
//   server_status: message is the ServerStatus object encoded as a JSON string (the old API's shape)
//   factorio_versions: message is a VersionsMessage (shared/factorio-versions.ts) encoded as JSON
//   logs: the lines of gamelog, always batched, without a replay: the Logs page reads the log file's
//     tail itself (GET /api/log/tail) and adds what comes after
//
// Several servers: "server": N on subscribe, unsubscribe and command picks server N (absent: server 1, so
// the old UI keeps working); every server -> client message of a server's room carries "server": its id.

export const ROOMS = ["gamelog", "server_status", "factorio_versions", "logs"] as const;
export type RoomName = (typeof ROOMS)[number];

export type ControlType = "subscribe" | "unsubscribe" | "command";

export interface ClientMessage {
  room_name: "";
  controls: { type: ControlType; value: string; batch?: boolean; server?: number };
}

/** How often, at most, a batching client gets a gamelog message while lines keep coming. */
export const WS_BATCH_MS = 16;

export interface ServerMessage {
  room_name: RoomName;
  message: string;
  /** The server the message is about (factorio_versions: the server whose version changed, or 1). */
  server: number;
}

/** Largest inbound message the server accepts; anything larger is ignored. */
export const WS_MAX_INBOUND_BYTES = 4096;

/** The PWA reconnects this long after the socket closes (spec section 9). */
export const WS_RECONNECT_MS = 5000;

/**
 * Live connections one sign-in (a browser's session, or one API token) may hold at once: one per open
 * tab of the panel, and a browser shares its session among its tabs. More are closed at once with
 * WS_TOO_MANY and its reason, so one identity cannot take every connection the panel has.
 */
export const WS_PER_SIGN_IN = 8;
export const WS_TOO_MANY = {
  code: 4029,
  reason:
    `Too many live connections for this sign-in (at most ${WS_PER_SIGN_IN}): close some of the panel's tabs.`,
} as const;

export function isRoomName(value: unknown): value is RoomName {
  return typeof value === "string" && (ROOMS as readonly string[]).includes(value);
}

/** Parses an inbound frame; anything that is not a well-formed client message gives null. */
export function parseClientMessage(raw: unknown): ClientMessage | null {
  if (typeof raw !== "string" || raw.length > WS_MAX_INBOUND_BYTES) return null;
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    return null;
  }
  if (typeof data !== "object" || data === null) return null;
  const obj = data as Record<string, unknown>;
  if (obj.room_name !== undefined && obj.room_name !== "") return null;
  const controls = obj.controls as Record<string, unknown> | undefined;
  if (typeof controls !== "object" || controls === null) return null;
  const { type, value } = controls;
  if (type !== "subscribe" && type !== "unsubscribe" && type !== "command") return null;
  if (typeof value !== "string") return null;
  const server = controls.server;
  if (server !== undefined && !(Number.isInteger(server) && (server as number) > 0)) return null;
  return {
    room_name: "",
    controls: {
      type,
      value,
      ...(controls.batch === true ? { batch: true } : {}),
      ...(server !== undefined ? { server: server as number } : {}),
    },
  };
}
