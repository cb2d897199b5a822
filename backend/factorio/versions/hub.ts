// The "factorio_versions" /ws room's replay: the install and update under way, for a page that subscribes
// mid-way. The progress itself reaches the room from the bus (ws/hub.ts).

import type { VersionsMessage } from "../../../shared/factorio-versions.ts";
import type { FactorioVersions } from "./service.ts";

export function versionsReplay(versions: FactorioVersions): string[] {
  const out: VersionsMessage[] = [];
  if (versions.installing) out.push({ kind: "install", install: versions.installing });
  if (versions.updateProgress) out.push({ kind: "update", update: versions.updateProgress });
  return out.map((m) => JSON.stringify(m));
}
