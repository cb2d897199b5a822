// The "factorio_versions" /ws room: install and update progress as they happen, and a replay of the
// current ones for a page that subscribes mid-way.

import type { EventBus } from "../../lib/events.ts";
import type { Hub } from "../../ws/hub.ts";
import type { VersionsMessage } from "../../../shared/factorio-versions.ts";
import type { FactorioVersions } from "./service.ts";

export function connectVersionsToHub(versions: FactorioVersions, bus: EventBus, hub: Hub): void {
  hub.setReplay("factorio_versions", () => {
    const out: VersionsMessage[] = [];
    if (versions.installing) out.push({ kind: "install", install: versions.installing });
    if (versions.updateProgress) out.push({ kind: "update", update: versions.updateProgress });
    return out.map((m) => JSON.stringify(m));
  });
  bus.on("factorio.versions", (m) => hub.broadcast("factorio_versions", JSON.stringify(m)));
}
