// The alert area as the context holds it: the dispatcher with its two consumers (the Web Push notifier and
// the channels), and the sources of alerts owned here (game status, sign-ins, users, disk space). Other
// areas raise alerts on the bus (see alert.ts).

import type { Config } from "../boot/config.ts";
import type { EventBus } from "../lib/events.ts";
import type { Logger } from "../lib/log.ts";
import type { Db } from "../store/db.ts";
import type { AlertConsumer } from "./alert.ts";
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
}

export class Alerts {
  readonly dispatcher: AlertDispatcher;
  readonly channels: Channels;
  readonly game: GameAlerts;
  readonly panel: PanelAlerts;

  constructor(deps: AlertsDeps) {
    const { config, bus, log, db, now } = deps;
    this.dispatcher = new AlertDispatcher({ bus, log, now, mergeWindowMs: config.alertMergeSeconds * 1000 });
    this.channels = new Channels({ db, log, now });
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

  close(): void {
    this.game.close();
    this.panel.close();
    this.dispatcher.close();
    this.channels.close();
  }
}
