// Wires the game into the live channel and the log routes.

import type { Hub } from "../../ws/hub.ts";
import { lastLines, redactedFile } from "./gamelog.ts";
import type { GameServer } from "./supervisor.ts";

/** Recent lines and the status on subscribe; console commands. */
export function connectGameToHub(game: GameServer, hub: Hub): void {
  hub.setReplay("gamelog", () => game.recentLines());
  hub.setReplay("server_status", () => [JSON.stringify(game.status())]);
  hub.onCommand((text, client) =>
    game.consoleCommand(text, client.username, (line) => client.send({ room_name: "gamelog", message: line }))
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
