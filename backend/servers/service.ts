// The panel's Factorio servers: built at start-up from their records (server 1 first), added, renamed,
// moved to other ports and deleted while the panel runs. A server is one object (servers/build.ts); the
// HTTP layer finds it by id for every per-server route, and the /ws hub for every room.

import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../lib/log.ts";
import { Conflict, Invalid, NotFound } from "../lib/errors.ts";
import { FIRST_SERVER, type ServerSummary } from "../../shared/contract/servers.ts";
import { SERVER_NAME_MAX, SERVERS_MSG } from "../../shared/servers.ts";
import type { Role } from "../../shared/api.ts";
import { activeVersion, setActiveVersion } from "../factorio/versions/store.ts";
import { buildServer, type PanelParts, type Server, serverBackupsDir, serverDataDir } from "./build.ts";
import { type ServerRecord, ServerStore } from "./store.ts";

/** The last thing that happened to a server, for the overview. */
interface LastEvent {
  at: string;
  text: string;
}

export interface ServersDeps {
  panel: Omit<PanelParts, "versionUsedElsewhere">;
  store: ServerStore;
  log: Logger;
}

/** `make()`, or a StartupError naming `what` (boot/context.ts's build). */
export type Build = <T>(what: string, make: () => T | Promise<T>) => Promise<T>;

export class Servers {
  #servers = new Map<number, Server>();
  #names = new Map<number, string>();
  #lastEvent = new Map<number, LastEvent>();
  #panel: PanelParts;
  /** Servers being added or deleted (one change per server at a time). */
  #changing = new Set<number>();

  constructor(private readonly deps: ServersDeps) {
    this.#panel = {
      ...deps.panel,
      firstVersions: () => this.#servers.get(FIRST_SERVER)?.versions,
      versionUsedElsewhere: (id, version) => {
        for (const s of this.#servers.values()) {
          if (s.id !== id && activeVersion(s.paths.root)?.version === version) return this.#names.get(s.id)!;
        }
        return null;
      },
    };
    deps.panel.bus.on("server.status", ({ status, exit }, ref) => {
      const id = ref?.id ?? FIRST_SERVER;
      const text = exit
        ? { stopped: "Stopped", killed: "Killed", crashed: "Crashed", "start-failed": "Failed to start" }[
          exit.reason
        ]
        : status.status === "running"
        ? `Started ${status.savefile}`.trim()
        : null;
      if (text) this.#lastEvent.set(id, { at: new Date(deps.panel.now()).toISOString(), text });
    });
  }

  /** Builds every server of the registry, server 1 first; a server that cannot be built ends the start. */
  async start(build: Build): Promise<void> {
    this.#sweep();
    for (const record of this.deps.store.list()) await this.#build(record, build);
  }

  /**
   * What a panel killed in the middle of adding or deleting a server left: a record whose directory was
   * never made (added first, for its id), and server folders without a record (a delete removes the
   * record first). Nothing half-done stays visible.
   */
  #sweep(): void {
    const records = this.deps.store.list();
    for (const r of records) {
      if (r.id !== FIRST_SERVER && r.root === "") {
        this.deps.store.remove(r.id);
        this.deps.log.warn("Removed a server whose adding was interrupted", { id: r.id, name: r.name });
      }
    }
    const dir = join(this.deps.panel.config.dataDir, "servers");
    const known = new Set(this.deps.store.list().map((r) => String(r.id)));
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      return;
    }
    for (const n of names) {
      if (known.has(n)) continue;
      rmSync(join(dir, n), { recursive: true, force: true });
      this.deps.log.warn("Removed the files of a server that no longer exists", { folder: join(dir, n) });
    }
  }

  async #build(record: ServerRecord, build: Build): Promise<Server> {
    this.#names.set(record.id, record.name);
    const server = await buildServer(
      this.#panel,
      record,
      () => this.#names.get(record.id) ?? record.name,
      build,
    );
    this.#servers.set(record.id, server);
    return server;
  }

  /** Server `id`, or null. */
  get(id: number): Server | null {
    return this.#servers.get(id) ?? null;
  }

  get first(): Server {
    return this.#servers.get(FIRST_SERVER)!;
  }

  all(): Server[] {
    return [...this.#servers.values()].sort((a, b) => a.id - b.id);
  }

  nameOf(id: number): string {
    return this.#names.get(id) ?? `Server ${id}`;
  }

  /** What the overview shows of a server, for a caller with `role` on it. Never waits on the game. */
  summary(server: Server, role: Role): ServerSummary {
    const status = server.game.status();
    const record = this.deps.store.get(server.id);
    return {
      id: server.id,
      name: this.nameOf(server.id),
      status: status.status,
      port: status.status === "stopped" ? (record?.port ?? status.port) : status.port,
      rcon_port: server.game.secrets.known()?.port ?? record?.rconPort ?? 0,
      // The active version as its record says (no game asked: a server never started still has one).
      version: server.versions.currentVersion() ?? "",
      // The last sample's (health/sampler.ts, every 10 s): a game whose RCON hangs never holds the list.
      players_online: server.health.sampler.players()?.length ?? 0,
      started_at: status.started_at,
      last_event: this.#lastEvent.get(server.id) ?? null,
      role,
      dir: role === "admin" ? server.paths.root : "",
    };
  }

  /** The name of a server other than `exceptId` whose game is up on game or RCON port `port`, or null. */
  runningOn(port: number, exceptId: number): string | null {
    for (const s of this.#servers.values()) {
      if (s.id === exceptId || s.game.state === "stopped") continue;
      if (s.game.status().port === port || s.game.secrets.known()?.port === port) return this.nameOf(s.id);
    }
    return null;
  }

  /** Lets go of every server (the games keep running). */
  async close(): Promise<void> {
    for (const s of this.all().reverse()) await s.close();
    this.#servers.clear();
  }

  // ---- Changes ----

  /** Checks a name for a new or renamed server; the name as kept. */
  #checkName(name: string, exceptId?: number): string {
    const n = name.trim();
    if (n === "") throw new Invalid(SERVERS_MSG.nameRequired);
    if (n.length > SERVER_NAME_MAX) throw new Invalid(SERVERS_MSG.nameTooLong);
    // deno-lint-ignore no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(n)) throw new Invalid(SERVERS_MSG.nameRequired);
    for (const [id, other] of this.#names) {
      if (id !== exceptId && other.toLowerCase() === n.toLowerCase()) {
        throw new Invalid(SERVERS_MSG.nameTaken(n));
      }
    }
    return n;
  }

  /** Renames a server or moves its ports (the server is built again on its new RCON port). */
  async change(
    id: number,
    change: { name?: string; port?: number; rcon_port?: number },
    build: Build,
  ): Promise<void> {
    const server = this.#require(id);
    const name = change.name === undefined ? undefined : this.#checkName(change.name, id);
    const rconMoves = change.rcon_port !== undefined &&
      change.rcon_port !== this.deps.store.get(id)?.rconPort;
    if ((change.port !== undefined || rconMoves) && server.game.state !== "stopped") {
      throw new Conflict(SERVERS_MSG.portsWhileRunning);
    }
    if (rconMoves && id === FIRST_SERVER) throw new Invalid(SERVERS_MSG.firstServerRcon);
    const portMoves = change.port !== undefined && change.port !== this.deps.store.get(id)?.port;
    this.deps.store.update(id, { name, port: change.port, rconPort: change.rcon_port });
    if (name !== undefined) this.#names.set(id, name);
    if (portMoves) server.game.offerPort(change.port!);
    if (rconMoves) {
      await server.close();
      await this.#build(this.deps.store.get(id)!, build);
    }
  }

  #require(id: number): Server {
    const s = this.#servers.get(id);
    if (!s) throw new NotFound(SERVERS_MSG.noSuchServer(id));
    return s;
  }

  /**
   * Adds a server: its record first (for its id), then `prepare(id)` makes or checks its Factorio
   * directory, then it is built. `version`: its active game version (a shared download), or null for the
   * first server's hand-installed game. A failure leaves no record and nothing the panel made.
   */
  async add(
    r: { name: string; port: number; rconPort: number; version: string | null },
    prepare: (id: number) => Promise<{ root: string; owned: boolean }>,
    build: Build,
  ): Promise<Server> {
    const name = this.#checkName(r.name);
    const id = this.deps.store.insert({
      name,
      root: "",
      owned: false,
      port: r.port,
      rconPort: r.rconPort,
      createdAt: this.deps.panel.now(),
    });
    this.#changing.add(id);
    let made: { root: string; owned: boolean } | null = null;
    try {
      made = await prepare(id);
      this.deps.store.update(id, { root: made.root, owned: made.owned });
      if (r.version && !activeVersion(made.root)) {
        setActiveVersion(made.root, { version: r.version, channel: "stable", previous: "" });
      }
      const server = await this.#build(this.deps.store.get(id)!, build);
      // Its start form offers its own game port from the first start on.
      server.game.offerPort(r.port);
      return server;
    } catch (e) {
      this.deps.store.remove(id);
      this.#names.delete(id);
      if (made?.owned) rmSync(made.root, { recursive: true, force: true });
      rmSync(serverDataDir(this.deps.panel.config, id), { recursive: true, force: true });
      throw e;
    } finally {
      this.#changing.delete(id);
    }
  }

  /**
   * Deletes a stopped server: lets go of it, removes its record, its panel files and (when the panel
   * made it) its Factorio directory. The caller made the backup first, when one was wanted.
   */
  async remove(id: number): Promise<string> {
    if (id === FIRST_SERVER) throw new Conflict(SERVERS_MSG.firstServerStays);
    const server = this.#require(id);
    if (this.#changing.has(id)) throw new Conflict(SERVERS_MSG.noSuchServer(id));
    if (server.game.state !== "stopped") throw new Conflict(SERVERS_MSG.portsWhileRunning);
    this.#changing.add(id);
    try {
      const record = this.deps.store.get(id)!;
      const name = this.nameOf(id);
      await server.close();
      this.#servers.delete(id);
      this.deps.store.remove(id);
      this.#names.delete(id);
      this.#lastEvent.delete(id);
      // The record is gone first: a crash from here on leaves files, never a server without its files.
      const dataDir = serverDataDir(this.deps.panel.config, id);
      if (record.owned && existsSync(record.root)) rmSync(record.root, { recursive: true, force: true });
      rmSync(dataDir, { recursive: true, force: true });
      // Its backups were moved to server 1's by the caller; the folder goes if nothing is left in it.
      try {
        Deno.removeSync(serverBackupsDir(this.deps.panel.config, id));
      } catch {
        // not there, or not empty
      }
      this.deps.log.info("Deleted a server", { id, name });
      return name;
    } finally {
      this.#changing.delete(id);
    }
  }

  /** Where a new server's own Factorio directory goes. */
  newRoot(id: number): string {
    return join(serverDataDir(this.deps.panel.config, id), "factorio");
  }
}
