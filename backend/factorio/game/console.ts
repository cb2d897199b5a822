// The game's console over RCON: the secret (port and password, generated once and kept owner-only in
// <data-dir>/rcon.json), one lazily opened connection with commands in order, and redaction of the
// password from every line the panel passes on (the game logs its own command line).

import { existsSync, readFileSync, renameSync } from "node:fs";
import { randomBytes } from "node:crypto";
import type { Logger } from "../../lib/log.ts";
import { writeSecretFile } from "../../lib/fsutil.ts";
import { RconClient, type RconError } from "./rcon.ts";
import { GameFailed } from "../../lib/errors.ts";
import { within } from "../../../shared/util.ts";

const REDACTED = "********";
/** How long a command waits for the game to open its RCON port. */
const RCON_READY_WAIT_MS = 10_000;

export interface RconSecret {
  port: number;
  password: string;
}

function validSecret(s: unknown): s is RconSecret {
  const o = s as RconSecret;
  return typeof o?.password === "string" && o.password.length > 0 && !/\s/.test(o.password) &&
    Number.isInteger(o.port) && o.port >= 0 &&
    o.port < 65536;
}

function portIsFree(port: number): boolean {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return true;
  } catch {
    return false;
  }
}

function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** The RCON port and password, and what is wrong with their file, if anything. */
export class RconSecretStore {
  #secret: RconSecret | null = null;
  /** The password kept by someone else (factorio-docker's config/rconpw), used as it is. */
  #external: string | null = null;
  /** A problem with rcon.json found at start-up, in plain words (shown on Controls), or null. */
  problem: string | null = null;

  constructor(
    private readonly file: string,
    private readonly wantedPort: number,
    private readonly log: Logger,
    externalPasswordFile?: string,
  ) {
    if (externalPasswordFile && existsSync(externalPasswordFile)) {
      const pw = readFileSync(externalPasswordFile, "utf8").trim();
      if (pw) this.#external = pw;
    }
    if (!existsSync(file)) return;
    try {
      const parsed = JSON.parse(readFileSync(file, "utf8"));
      if (!validSecret(parsed)) throw new Error("it does not hold a port and a password");
      this.#secret = parsed;
    } catch (e) {
      this.problem = `The RCON settings file ${file} cannot be read (${(e as Error).message}). ` +
        "The console works again once the game is restarted from the panel, which writes a new one.";
      log.warn(this.problem);
    }
  }

  known(): RconSecret | null {
    if (this.#secret && this.#external) return { ...this.#secret, password: this.#external };
    return this.#secret;
  }

  /**
   * A game found running while rcon.json was unreadable still has its port and password on its command
   * line: take them back from there, so the console works without a restart.
   */
  recoverFrom(commandLine: string): void {
    if (this.#secret) return;
    const password = /--rcon-password\s+(\S+)/.exec(commandLine)?.[1];
    const port = Number(/--rcon-bind\s+\S*:(\d+)/.exec(commandLine)?.[1]);
    const secret = { port, password };
    if (!validSecret(secret)) return;
    this.#keepAsideUnreadable();
    writeSecretFile(this.file, JSON.stringify(secret) + "\n");
    this.#secret = secret;
    this.problem = null;
    this.log.info(`Recovered the RCON settings of the running game into ${this.file}`);
  }

  /** The secret for a new run: generated once and kept; the port re-picked if taken. */
  forLaunch(): RconSecret {
    let secret = this.#secret ? { ...this.#secret } : null;
    let changed = false;
    if (!secret) {
      secret = { port: 0, password: randomBytes(24).toString("base64url") };
      changed = true;
    }
    // factorio-docker keeps its RCON password in config/rconpw: the game is started with that one.
    if (this.#external && secret.password !== this.#external) {
      secret.password = this.#external;
      changed = true;
    }
    if (this.wantedPort > 0 && secret.port !== this.wantedPort) {
      secret.port = this.wantedPort;
      changed = true;
    } else if (this.wantedPort === 0 && (!secret.port || !portIsFree(secret.port))) {
      secret.port = freePort();
      changed = true;
    }
    if (changed) {
      this.#keepAsideUnreadable();
      writeSecretFile(this.file, JSON.stringify(secret) + "\n");
    }
    this.#secret = secret;
    this.problem = null;
    return secret;
  }

  /** An unreadable file is kept beside the new one (owner-only like it), never silently lost. */
  #keepAsideUnreadable(): void {
    if (!this.problem || !existsSync(this.file)) return;
    try {
      renameSync(this.file, `${this.file}.unreadable`);
    } catch {
      // the new file replaces it
    }
  }

  redact(line: string): string {
    const pw = this.known()?.password;
    return pw ? line.replaceAll(pw, REDACTED) : line;
  }
}

/** One RCON connection to the running game, opened on first use and replaced when it breaks. */
export class GameConsole {
  #rcon: Promise<RconClient> | null = null;
  #readyWaiters = new Set<() => void>();
  #ready = false;

  constructor(private readonly secrets: RconSecretStore) {}

  /** The game opened its RCON port (its log said so), or was already running when found. */
  markReady(): void {
    this.#ready = true;
    for (const w of this.#readyWaiters) w();
    this.#readyWaiters.clear();
  }

  /** A new run: not ready until it says so. */
  reset(ready: boolean): void {
    this.drop();
    this.#ready = ready;
  }

  async exec(port: number, command: string): Promise<string> {
    if (!this.#ready) {
      let waiter!: () => void;
      const ready = new Promise<void>((r) => (waiter = r));
      this.#readyWaiters.add(waiter);
      // A waiter that times out is removed, so commands sent to a game that never opens RCON do not pile up.
      await within(ready, RCON_READY_WAIT_MS).finally(() => this.#readyWaiters.delete(waiter));
    }
    const client = await this.#client(port);
    try {
      return await client.exec(command);
    } catch (e) {
      this.drop();
      throw e;
    }
  }

  #client(port: number): Promise<RconClient> {
    if (!this.#rcon) {
      const password = this.secrets.known()?.password ?? "";
      const connecting = RconClient.connect({ host: "127.0.0.1", port, password });
      this.#rcon = connecting;
      // A connection that fails or that the game closes (it crashed, restarted) is replaced on the next command.
      const forget = () => {
        if (this.#rcon === connecting) this.#rcon = null;
      };
      connecting.then((c) => c.done.then(forget), forget);
    }
    return this.#rcon.catch((e) => {
      throw new GameFailed(`Cannot reach the game's console: ${(e as RconError).message}`);
    });
  }

  drop(): void {
    const c = this.#rcon;
    this.#rcon = null;
    c?.then((client) => client.close(), () => {});
  }
}
