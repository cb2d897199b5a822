// The live side of the panel: the game server process and its queue of operations, the live channel
// (/ws hub), the player lists and server settings, player history, Web Push and the alerts. The first
// answers (the session check, the PWA's files) need none of it, so the panel listens and answers before
// it runs its ~40 modules (Deno has read them at start-up: see later.ts) and builds it
// (docs/architecture.md, Speed). Whoever needs a part awaits AppContext.loadLive().

import { join } from "node:path";
import type { Config } from "./config.ts";
import type { Logger } from "./log.ts";
import type { EventBus } from "./events.ts";
import type { Db } from "./store/db.ts";
import type { ServerState } from "../shared/api.ts";
import type { ProcessRow } from "./factorio/game/liveness.ts";
import type { FactorioPaths } from "./factorio/layout.ts";
import { Hub } from "./ws/hub.ts";
import { GameServer } from "./factorio/game/supervisor.ts";
import { connectGameToHub } from "./factorio/game/hub.ts";
import { GameDirLease } from "./factorio/game/lease.ts";
import { GameOps } from "./factorio/game/ops.ts";
import { Players } from "./factorio/players.ts";
import { ServerSettings } from "./factorio/settings.ts";
import { PushService } from "./push/service.ts";
import { Alerts } from "./alerts/service.ts";
import { PlayerHistory } from "./factorio/playerlog/history.ts";

export interface Live {
  hub: Hub;
  game: GameServer;
  gameOps: GameOps;
  players: Players;
  settings: ServerSettings;
  push: PushService;
  alerts: Alerts;
  playerHistory: PlayerHistory;
}

export interface LiveDeps {
  config: Config;
  log: Logger;
  bus: EventBus;
  db: Db;
  now: () => number;
  paths: FactorioPaths;
  /** The machine's processes, listed at start-up, for finding a game this panel did not start. */
  processes: Promise<ProcessRow[]>;
  /** The game's state as the context answers it (area tests pose one). */
  serverState: () => ServerState;
  /** Registers work to do on shutdown (before what was registered earlier). */
  onClose(fn: () => void | Promise<void>): void;
}

/** Builds the live side and finds the game (a game left running by an earlier panel is taken back). */
export async function createLive(d: LiveDeps): Promise<Live> {
  const { config, log, bus, db, now, paths } = d;
  const hub = new Hub(bus, log);
  // Listening before the game is looked for, so a game found ended at start-up is announced too.
  const push = await PushService.open({ config, db, log, now });
  d.onClose(() => push.close());
  const alerts = new Alerts({
    config,
    bus,
    log,
    db,
    now,
    push: push.notifier,
    diskPaths: [join(config.factorioDir, "saves"), config.dataDir],
  });
  d.onClose(() => alerts.close());
  const lease = new GameDirLease(d.serverState);
  const game = new GameServer({ config, paths, bus, log, now, lease, processes: d.processes });
  const gameOps = new GameOps();
  await game.ready;
  connectGameToHub(game, hub);
  const players = new Players({ paths, dataDir: config.dataDir, game, bus, log });
  game.addLaunchArgs(() => players.launchArgs());
  const settings = new ServerSettings(paths, players);
  const playerHistory = new PlayerHistory({
    bus,
    db,
    log,
    now,
    gameState: () => game.state,
    onlineNow: () => players.online(),
    countDays: config.playerCountDays,
  });
  // Shutdown runs these in reverse: the game let go first (it keeps running and the next panel process
  // finds it), then the sockets, then the history's last lines.
  d.onClose(() => playerHistory.close());
  d.onClose(() => hub.closeAll());
  d.onClose(() => game.detach());
  return { hub, game, gameOps, players, settings, push, alerts, playerHistory };
}
