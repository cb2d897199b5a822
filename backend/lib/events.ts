// One event bus for the whole panel. The game process publishes here; /ws rooms, the push notifier and
// anything else that reacts to the server subscribe. Nothing polls.

import type { ServerExit, ServerState, ServerStatus } from "../../shared/api.ts";
import type { Logger } from "./log.ts";
import type { VersionsMessage } from "../../shared/factorio-versions.ts";
import type { Alert } from "../alerts/alert.ts";
import type { CertificateFailure, ServedCertificate } from "../https/manager.ts";

export interface PanelEvents {
  /** The game's status changed. `exit` is set when the change is the process ending. */
  "server.status": { status: ServerStatus; previous: ServerState; exit: ServerExit | null };
  /** One line of game output (stdout/stderr of the game process, or console feedback). */
  "server.log": { line: string };
  /** Sessions were revoked (logout, password change, user deleted): close their live connections. */
  "sessions.revoked": { sessionIds: string[] };
  /** Game versions: install progress, update progress, or "the list changed" (factorio/versions/). */
  "factorio.versions": VersionsMessage;
  /** Something admins are told about (alerts/alert.ts); the alert dispatcher fans it out. */
  alert: Alert;
  /** A successful sign-in (for the "new sign-in" alert). */
  "auth.signed-in": { userId: number; username: string; address: string; userAgent: string };
  /** A panel user was added or removed. */
  "users.changed": { action: "added" | "removed"; username: string };
  /** The panel has a new HTTPS certificate to serve (https/manager.ts; https/listener.ts swaps to it). */
  "https.certificate": ServedCertificate;
  /** Getting or renewing the HTTPS certificate failed (alerts/panel.ts alerts admins). */
  "https.failed": CertificateFailure;
  /** Console text someone sent over /ws, and whether their role let it through (the activity log). */
  "console.command": {
    username: string;
    via: string;
    address: string;
    userAgent: string;
    text: string;
    allowed: boolean;
    /** The server it was sent to. */
    server: number;
  };
}

export type EventName = keyof PanelEvents;

/** The server an event came from (several Factorio servers): its id and, read when asked, its name. */
export interface ServerRef {
  readonly id: number;
  readonly name: string;
}

/**
 * A listener gets the server the event is about: set on every event of a server's bus, and on the panel
 * bus for the events that came from a server (or were emitted about one); absent for the panel's own.
 */
type Listener<K extends EventName> = (payload: PanelEvents[K], server?: ServerRef) => void;

export class EventBus {
  #listeners = new Map<EventName, Set<Listener<never>>>();

  /**
   * A server's bus: `server` is set and every emit reaches the `parent` (the panel bus) too, with this
   * server, so panel-wide listeners (the /ws hub, alerts, the activity log) hear every server.
   */
  constructor(
    private readonly log?: Logger,
    private readonly origin?: { parent: EventBus; server: ServerRef },
  ) {}

  /** The server this bus belongs to (undefined: the panel bus). */
  get server(): ServerRef | undefined {
    return this.origin?.server;
  }

  /** Subscribes; returns the function that unsubscribes. */
  on<K extends EventName>(name: K, listener: Listener<K>): () => void {
    let set = this.#listeners.get(name);
    if (!set) this.#listeners.set(name, set = new Set());
    set.add(listener as Listener<never>);
    return () => set!.delete(listener as Listener<never>);
  }

  /**
   * Calls every listener synchronously, in subscription order. A listener that throws is logged and skipped:
   * the publisher (the process supervisor) must never fail because a subscriber did. Listeners with slow
   * work (sending pushes) queue it themselves.
   */
  emit<K extends EventName>(name: K, payload: PanelEvents[K], server?: ServerRef): void {
    const from = this.origin?.server ?? server;
    const set = this.#listeners.get(name);
    if (set) {
      for (const listener of [...set]) {
        try {
          (listener as Listener<K>)(payload, from);
        } catch (e) {
          this.log?.error(`Listener of ${name} failed`, { error: String(e) });
        }
      }
    }
    this.origin?.parent.emit(name, payload, from);
  }
}
