// Test helpers around the simulator as a real child process: spawn it, read its stdout line by line with
// waits that fail with what was printed, free ports for the game and RCON.

import dgram from "node:dgram";

export class SimProcess {
  readonly lines: string[] = [];
  readonly exited: Promise<Deno.CommandStatus>;
  #waiters: (() => void)[] = [];
  #child: Deno.ChildProcess;

  constructor(binary: string, args: string[], env: Record<string, string> = {}) {
    this.#child = new Deno.Command(binary, { args, env, stdin: "null", stdout: "piped", stderr: "piped" }).spawn();
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
        throw new Error(`No line matching ${pattern}${ended ? " before the process ended" : ""}:\n${this.lines.join("\n")}`);
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

/** A TCP port nobody listens on right now. */
export function freeTcpPort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}

/** A UDP port nobody holds right now. */
export async function freeUdpPort(): Promise<number> {
  const s = await holdUdpPort(0);
  const port = s.address().port;
  s.close();
  return port;
}

/** Holds a UDP port (as another program would), to see the game fail on it. */
export function holdUdpPort(port: number, host = "0.0.0.0"): Promise<dgram.Socket> {
  return new Promise((ok, bad) => {
    const s = dgram.createSocket("udp4");
    s.once("error", bad);
    s.bind(port, host, () => ok(s));
  });
}
