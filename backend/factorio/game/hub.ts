// Wires the game into the live channel and the log routes.

import type { Hub } from "../../ws/hub.ts";
import { lastLines, redactedFile } from "./gamelog.ts";
import type { GameServer } from "./supervisor.ts";
import type { FactorioVersions } from "../versions/service.ts";
import { versionsReplay } from "../versions/hub.ts";

/** Finds a server's game and versions by id (servers/service.ts). */
export interface ServerLookup {
  get(id: number): { game: GameServer; versions: FactorioVersions } | null;
}

/** Each server's recent lines, status and install progress on subscribe; console commands to its game. */
export function connectServersToHub(servers: ServerLookup, hub: Hub): void {
  hub.setReplay("gamelog", (id) => servers.get(id)?.game.recentLines() ?? []);
  hub.setReplay("server_status", (id) => {
    const s = servers.get(id);
    return s ? [JSON.stringify(s.game.status())] : [];
  });
  hub.setReplay("factorio_versions", (id) => {
    const s = servers.get(id);
    return s ? versionsReplay(s.versions) : [];
  });
  hub.onCommand((id, text, client, reply) =>
    servers.get(id)?.game.consoleCommand(text, client.username, reply)
  );
}

/** The last lines of the game's own log (factorio-current.log), redacted, for GET /api/log/tail. */
export async function gameLogTail(game: GameServer, count: number): Promise<string[]> {
  return (await lastLines(game.paths.currentLog, count)).map((l) => game.redact(l));
}

/** The game's whole log (factorio-current.log), redacted, for GET /api/log/download; null without one. */
export function gameLogFile(game: GameServer): Promise<ReadableStream<Uint8Array> | null> {
  // The RCON password has no line break, so a block of lines is redacted as its lines would be.
  return redactedFile(game.paths.currentLog, (text) => game.redact(text));
}
