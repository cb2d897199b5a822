// Where a new server's files come from (an empty directory, a Factorio folder used where it is, a copy
// of another server, a backup) and which ports it gets: the steps of POST /api/servers that touch the
// disk and the network, over servers/folders.ts and servers/ports.ts.

import { checkFactorioFolder, copyServerFiles, prepareEmptyServer, serverFromBackup } from "./folders.ts";
import { checkPorts, nextFreePorts } from "./ports.ts";

export type ServerSource =
  | { kind: "empty" }
  | { kind: "folder"; dir: string }
  | { kind: "copy"; root: string }
  | { kind: "backup"; file: string };

/** Another server, as the folder and port checks see it. */
export interface OtherServer {
  id: number;
  name: string;
  root: string;
  port: number;
  rconPort: number;
}

/** Makes (or, for a folder, checks) a new server's Factorio directory; `owned`: the panel made it. */
export async function prepareServerFiles(
  source: ServerSource,
  newRoot: string,
  others: OtherServer[],
): Promise<{ root: string; owned: boolean }> {
  switch (source.kind) {
    case "empty":
      prepareEmptyServer(newRoot);
      return { root: newRoot, owned: true };
    case "folder":
      return { root: checkFactorioFolder(source.dir, others), owned: false };
    case "copy":
      await copyServerFiles(source.root, newRoot);
      return { root: newRoot, owned: true };
    case "backup":
      await serverFromBackup(source.file, newRoot);
      return { root: newRoot, owned: true };
  }
}

/**
 * The ports of a new or moved server: those asked for, or the next free ones, checked against the other
 * servers and the programs on this machine. `exceptId` (a move): that server's own current ports are not
 * tested on the machine (its own game may hold them).
 */
export async function serverPorts(
  wanted: { port?: number; rconPort?: number },
  servers: OtherServer[],
  exceptId?: number,
): Promise<{ port: number; rconPort: number }> {
  const others = servers.filter((s) => s.id !== exceptId);
  const free = wanted.port === undefined || wanted.rconPort === undefined
    ? await nextFreePorts(others)
    : null;
  return await checkPorts(wanted.port ?? free!.port, wanted.rconPort ?? free!.rconPort, servers, {
    exceptId,
  });
}
