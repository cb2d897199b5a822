// The alert area as the context holds it: the dispatcher with its two consumers (the Web Push notifier and
// the channels), and the sources of alerts owned here (game status, sign-ins, users, disk space). Other
// areas raise alerts on the bus (see alert.ts).

import type { Config } from "../boot/config.ts";
import type { EventBus } from "../lib/events.ts";
import type { Logger } from "../lib/log.ts";
import type { Db } from "../store/db.ts";
import { type AlertConsumer, type ServerLookup, serverLookup } from "./alert.ts";
import { AlertDispatcher } from "./dispatcher.ts";
import { GameAlerts } from "./game.ts";
import { PanelAlerts } from "./panel.ts";
import { Channels } from "./channels.ts";

export interface AlertsDeps {
  config: Config;
  bus: EventBus;
  log: Logger;
  db: Db;
  now: () => number;
  /** The Web Push notifier. */
  push: AlertConsumer;
  diskPaths: string[];
  /** Whether a server id exists (a channel may only choose existing servers). Default: server 1 only. */
  serverExists?: (id: number) => boolean;
  /** A server's name as its alerts say it. Default: "Server <id>". */
  serverName?: (id: number) => string;
}

export class Alerts {
  readonly dispatcher: AlertDispatcher;
  readonly channels: Channels;
  readonly game: GameAlerts;
  readonly panel: PanelAlerts;
  /** The servers as the alerts know them (read at each use: tests and a later registry may replace members). */
  readonly servers: ServerLookup;

  constructor(deps: AlertsDeps) {
    const { config, bus, log, db, now } = deps;
    const servers = this.servers = serverLookup(deps);
    this.dispatcher = new AlertDispatcher({
      bus,
      log,
      now,
      mergeWindowMs: config.alertMergeSeconds * 1000,
      serverName: (id) => servers.serverName(id),
    });
    this.channels = new Channels({ db, log, now, serverExists: (id) => servers.serverExists(id) });
    this.dispatcher.addConsumer(deps.push);
    this.dispatcher.addConsumer(this.channels);
    this.game = new GameAlerts({ bus, log, now, stillDownMs: config.alertStillDownMinutes * 60_000 });
    this.panel = new PanelAlerts({
      bus,
      log,
      db,
      now,
      diskPaths: deps.diskPaths,
      diskLowPercent: config.alertDiskLowPercent,
      diskCheckMs: 5 * 60_000,
    });
  }

  /**
   * A server was deleted: its pending merged alerts and "still down" reminders are dropped, and channels
   * limited to chosen servers no longer list it.
   */
  forgetServer(id: number): void {
    this.dispatcher.forgetServer(id);
    this.game.forgetServer(id);
    this.channels.store.forgetServer(id);
  }

  close(): void {
    this.game.close();
    this.panel.close();
    this.dispatcher.close();
    this.channels.close();
  }
}
