// Test helpers around the simulator as a real child process: spawn it, read its stdout line by line with
// waits that fail with what was printed, free ports for the game and RCON.

import dgram from "node:dgram";
import net from "node:net";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";

export class SimProcess {
  readonly lines: string[] = [];
  readonly exited: Promise<Deno.CommandStatus>;
  #waiters: (() => void)[] = [];
  #child: Deno.ChildProcess;

  constructor(binary: string, args: string[], env: Record<string, string> = {}) {
    this.#child = new Deno.Command(binary, { args, env, stdin: "null", stdout: "piped", stderr: "piped" })
      .spawn();
    const pump = async (stream: ReadableStream<Uint8Array>) => {
      let rest = "";
      for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
        rest += chunk;
        const parts = rest.split("\n");
        rest = parts.pop()!;
        this.lines.push(...parts);
        this.#wake();
      }
      if (rest) this.lines.push(rest);
      this.#wake();
    };
    const done = Promise.all([pump(this.#child.stdout), pump(this.#child.stderr)]);
    this.exited = done.then(() => this.#child.status).finally(() => this.#wake());
  }

  get pid(): number {
    return this.#child.pid;
  }

  kill(signal: Deno.Signal): void {
    try {
      this.#child.kill(signal);
    } catch {
      // already gone
    }
  }

  /** Waits for a line matching `pattern` and returns it. */
  async waitForLine(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let ended = false;
    this.exited.then(() => (ended = true));
    while (true) {
      const found = this.lines.find((l) => pattern.test(l));
      if (found !== undefined) return found;
      if (ended || Date.now() > deadline) {
        throw new Error(
          `No line matching ${pattern}${ended ? " before the process ended" : ""}:\n${this.lines.join("\n")}`,
        );
      }
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.max(1, deadline - Date.now()));
        this.#waiters.push(() => (clearTimeout(t), r()));
      });
    }
  }

  #wake(): void {
    const w = this.#waiters;
    this.#waiters = [];
    for (const f of w) f();
  }
}

// Ports for tests. Test files run side by side (deno test --parallel, Playwright's workers), and each
// starts games and panels. A port read from bind(0) and closed again can be handed to the next bind(0)
// in another test file before the game binds it ("Address already in use"). So the ports come from below
// the kernel's ephemeral range, where bind(0) and outgoing connections never land, and each is claimed
// by a file named after it in one folder shared by every test process. A claim whose process has ended
// is taken over.

export const CLAIMS = join(tmpdir(), "factorio-panel-test-ports");

/**
 * Ports 10000-32767: below Linux's default ephemeral range (32768-60999) and IANA's (49152-65535). Deno
 * may not read /proc/sys without --allow-all, so the range is fixed; sim_test.ts checks it on this machine.
 */
export function claimRange(): [number, number] {
  return [10000, 32767];
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as { code?: string }).code === "EPERM";
  }
}

/** Claims `port` for this process; false if a living test process holds it. */
export function claimPort(port: number): boolean {
  mkdirSync(CLAIMS, { recursive: true });
  const file = join(CLAIMS, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: "wx" });
      return true;
    } catch (e) {
      if ((e as { code?: string }).code !== "EEXIST") throw e;
    }
    let owner = NaN;
    try {
      owner = Number(readFileSync(file, "utf8"));
    } catch {
      // taken over and removed meanwhile: try again
    }
    if (alive(owner)) return false;
    // One process wins the rename of a stale claim; the others see it gone. (One that read the stale pid
    // before another took the claim over and renames it after could take over the new claim: that needs
    // two processes on the same random port at the same moment, and is left as it is.)
    const aside = `${file}.stale-${process.pid}-${Math.random().toString(36).slice(2)}`;
    try {
      renameSync(file, aside);
      rmSync(aside, { force: true });
    } catch {
      // someone else took it over
    }
  }
  return false;
}

/** A port this test process alone may use, that `free(port)` says nobody holds now. */
async function testPort(free: (port: number) => Promise<boolean>): Promise<number> {
  const [lo, hi] = claimRange();
  for (let tries = 0; tries < 1000; tries++) {
    const port = lo + Math.floor(Math.random() * (hi - lo + 1));
    if (claimPort(port) && await free(port)) return port;
  }
  throw new Error(`no free port in ${lo}-${hi} after 1000 tries (claims in ${CLAIMS})`);
}

function tcpFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = net.createServer();
    server.once("error", () => done(false));
    server.listen(port, "127.0.0.1", () => server.close(() => done(true)));
  });
}

async function udpFree(port: number): Promise<boolean> {
  try {
    const s = await holdUdpPort(port);
    s.close();
    return true;
  } catch {
    return false;
  }
}

/** A TCP port (for RCON or a panel) nobody listens on, and no other test process will be given. */
export function freeTcpPort(): Promise<number> {
  return testPort(tcpFree);
}

/**
 * `--rcon-port` on a port no other test process is given, for a panel started with `args`, unless they
 * set one: the panel's own pick (bind(0), closed again) could be taken before its game binds it.
 */
export async function rconPortArgs(args: readonly string[]): Promise<string[]> {
  return args.includes("--rcon-port") ? [] : ["--rcon-port", String(await freeTcpPort())];
}

/** A UDP port (for a game) nobody holds, and no other test process will be given. */
export function freeUdpPort(): Promise<number> {
  return testPort(udpFree);
}

/** Holds a UDP port (as another program would), to see the game fail on it. */
export function holdUdpPort(port: number, host = "0.0.0.0"): Promise<dgram.Socket> {
  return new Promise((ok, bad) => {
    const s = dgram.createSocket("udp4");
    s.once("error", bad);
    s.bind(port, host, () => ok(s));
  });
}
