// A game running from this Factorio directory that the panel has no record of: started by hand, or by a
// panel whose record was lost. It holds the game's port, so the next start would fail; the panel finds it
// (by its command line) so it can be shown and stopped from Controls.

import type { FactorioPaths } from "../layout.ts";
import { listProcesses, type ProcessRow } from "./liveness.ts";

export interface StrayGame {
  pid: number;
  bootStart: number;
  port: number;
  savefile: string;
  commandLine: string;
}

const SERVER_FLAGS = new Set([
  "--start-server",
  "--start-server-load-latest",
  "--start-server-load-scenario",
]);

/** `listed`: the processes when the caller already listed them (start-up does, while it builds the rest). */
export async function findStrayGame(
  paths: FactorioPaths,
  exceptPid: number | null = null,
  listed?: Promise<ProcessRow[]>,
): Promise<StrayGame | null> {
  const root = paths.root.replace(/\/+$/, "") + "/";
  for (const { pid, info } of await (listed ?? listProcesses())) {
    if (pid === exceptPid || pid === Deno.pid) continue;
    const words = info.args.split(/\s+/);
    const at = words.findIndex((w) => SERVER_FLAGS.has(w));
    if (at < 0) continue;
    // A command line that names files of this Factorio directory, or this directory's own executable.
    // Servers share downloaded versions, so the executable alone says nothing once a game has --config
    // (the panel starts every server but the first with one, naming that server's directory).
    const namesRoot = words.slice(1).some((w) => w.startsWith(root));
    if (!namesRoot && (words[0] !== paths.binary || words.includes("--config"))) continue;
    const portAt = words.indexOf("--port");
    const port = portAt >= 0 ? Number(words[portAt + 1]) : 34197;
    const save = words[at] === "--start-server" ? (words[at + 1] ?? "").split("/").pop() ?? "" : "";
    return {
      pid,
      bootStart: info.bootStart,
      port: Number.isInteger(port) ? port : 34197,
      savefile: save,
      commandLine: info.args,
    };
  }
  return null;
}
