// The ports of a server: its game port (UDP) and its RCON port (TCP, on 127.0.0.1). A new server is
// offered the next ones nobody uses; a port asked for is refused when another server has it or another
// program holds it, with a message naming that server or program.

import dgram from "node:dgram";
import { Conflict, Invalid } from "../lib/errors.ts";
import { FIRST_GAME_PORT, FIRST_RCON_PORT, SERVERS_MSG } from "../../shared/servers.ts";

/** A server's ports, as the others are compared with. */
export interface PortUser {
  name: string;
  port: number;
  rconPort: number;
}

type Held = "free" | "held" | "privileged";

/** Whether the game could bind `port` (UDP, every address, as the game does). */
function udpState(port: number): Promise<Held> {
  return new Promise((done) => {
    const s = dgram.createSocket("udp4");
    s.once("error", (e) => {
      s.close();
      done((e as { code?: string }).code === "EACCES" ? "privileged" : "held");
    });
    s.bind(port, "0.0.0.0", () => s.close(() => done("free")));
  });
}

/** Whether the game could listen on `port` for RCON (TCP on 127.0.0.1, where the panel binds it). */
function tcpState(port: number): Held {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return "free";
  } catch (e) {
    return e instanceof Deno.errors.PermissionDenied ? "privileged" : "held";
  }
}

/**
 * The program listening on `port`, from `ss` ("factorio, pid 812"), or undefined when `ss` is missing,
 * fails or does not say (it names only the panel user's own processes unless the panel runs as root).
 */
async function holderOf(port: number, udp: boolean): Promise<string | undefined> {
  try {
    const out = await new Deno.Command("ss", {
      args: [udp ? "-lunp" : "-ltnp"],
      stdout: "piped",
      stderr: "null",
      signal: AbortSignal.timeout(2000),
    }).output();
    for (const line of new TextDecoder().decode(out.stdout).split("\n")) {
      const cols = line.trim().split(/\s+/);
      if (!cols[3]?.endsWith(`:${port}`)) continue;
      const m = /users:\(\("([^"]+)",pid=(\d+)/.exec(line);
      if (m) return `${m[1]}, pid ${m[2]}`;
    }
  } catch {
    // no ss on this machine: the message says "another program" without a name
  }
  return undefined;
}

/**
 * The next game port from FIRST_GAME_PORT and the next RCON port from FIRST_RCON_PORT that no other
 * server has and no program holds. A port number one server uses in either role is not offered in the
 * other role either, and the two never coincide, so a list of servers never shows one number twice.
 */
export async function nextFreePorts(
  taken: { name: string; port: number; rconPort: number }[],
): Promise<{ port: number; rconPort: number }> {
  const used = new Set(taken.flatMap((s) => [s.port, s.rconPort]));
  let port = 0;
  for (let p = FIRST_GAME_PORT; p <= 65535 && !port; p++) {
    if (!used.has(p) && await udpState(p) === "free") port = p;
  }
  if (!port) throw new Conflict(SERVERS_MSG.noFreePort(FIRST_GAME_PORT));
  let rconPort = 0;
  for (let p = FIRST_RCON_PORT; p <= 65535 && !rconPort; p++) {
    if (!used.has(p) && p !== port && tcpState(p) === "free") rconPort = p;
  }
  if (!rconPort) throw new Conflict(SERVERS_MSG.noFreePort(FIRST_RCON_PORT));
  return { port, rconPort };
}

function checkNumber(v: unknown): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > 65535) {
    throw new Invalid(SERVERS_MSG.portInvalid);
  }
  return v;
}

/**
 * Checks the ports a server is given (a new one, or one whose ports change) and answers them: a number
 * from 1 to 65535 (else 400), not the same for game and RCON (400), not one another server uses in either
 * role (409, naming it), not one another program holds now (409, naming it when `ss` can tell). The
 * server `exceptId` is the one being changed: its own entry in `others` is skipped, and its current ports
 * are not tried on the machine (its running game holds them).
 */
export async function checkPorts(
  port: unknown,
  rconPort: unknown,
  others: (PortUser & { id: number })[],
  opts: { exceptId?: number } = {},
): Promise<{ port: number; rconPort: number }> {
  const game = checkNumber(port);
  const rcon = checkNumber(rconPort);
  if (game === rcon) throw new Invalid(SERVERS_MSG.portsEqual);
  const self = others.find((s) => s.id === opts.exceptId);
  for (const p of [game, rcon]) {
    const other = others.find((s) => s.id !== opts.exceptId && (s.port === p || s.rconPort === p));
    if (other) throw new Conflict(SERVERS_MSG.portOfServer(p, other.name));
  }
  const tries: [number, boolean][] = [[game, true], [rcon, false]];
  for (const [p, udp] of tries) {
    if (self && p === (udp ? self.port : self.rconPort)) continue;
    const state = udp ? await udpState(p) : tcpState(p);
    if (state === "privileged") throw new Invalid(SERVERS_MSG.portPrivileged(p));
    if (state === "held") throw new Conflict(SERVERS_MSG.portHeld(p, await holderOf(p, udp)));
  }
  return { port: game, rconPort: rcon };
}
