// A real panel process for tests that must see exactly what a user runs: started by `npm start` itself,
// or by the launcher module that `npm start` uses (scripts/launcher.mjs), never with other permissions.

import { panelCommand, ROOT } from "../../scripts/launcher.mjs";
import { Client } from "./harness.ts";

export interface PanelProcessOptions {
  args: string[];
  env?: Record<string, string>;
  /** Run `npm start -- ARGS` (the README's command) instead of the launcher's deno command line. */
  viaNpm?: boolean;
  /** With viaNpm: the npm script to run (default "start"; "demo" is `npm run demo -- ARGS`). */
  npmScript?: "start" | "demo";
  /** How long to wait for "listening on" (npm start may build the web app first). */
  startTimeoutMs?: number;
  /**
   * Address an HTTPS panel as `name` (a name its certificate has) through `http` (a client trusting the
   * test CA, with a proxy that reaches 127.0.0.1 for that name: testing/tls.ts connectProxy).
   */
  https?: { name: string; http: Deno.HttpClient | (() => Deno.HttpClient) };
  /** A shell command run first, in `sh -c` (e.g. `ulimit -n 256`). */
  shell?: string;
}

export interface PanelProcess {
  url: string;
  pid: number;
  output(): string;
  client(): Client;
  login(username: string, password: string): Promise<Client>;
  /** Its exit code, once it has ended. */
  exit: Promise<number>;
  /** SIGTERM to its process group (what systemd sends), then waits for the exit; resolves with its exit code. */
  stop(): Promise<number>;
}

export async function startPanelProcess(opts: PanelProcessOptions): Promise<PanelProcess> {
  const command = opts.viaNpm
    ? { cmd: "npm", args: ["run", opts.npmScript ?? "start", "--", ...opts.args] }
    : panelCommand(opts.args);
  const { cmd, args } = opts.shell
    ? { cmd: "sh", args: ["-c", `${opts.shell} && exec "$@"`, "sh", command.cmd, ...command.args] }
    : command;
  const child = new Deno.Command(cmd, {
    args,
    cwd: ROOT,
    env: { NO_COLOR: "1", ...opts.env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    // Its own process group, signalled as a whole like a terminal's Ctrl-C or systemd's stop do: npm
    // itself exits on SIGTERM without passing it on.
    detached: true,
  }).spawn();
  let out = "";
  const decoder = new TextDecoder();
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) out += decoder.decode(chunk, { stream: true });
  };
  const reading = Promise.all([collect(child.stdout), collect(child.stderr)]);
  const status = child.status;
  let exited = false;
  status.then(() => (exited = true));
  const deadline = Date.now() + (opts.startTimeoutMs ?? 30_000);
  let url: string | null = null;
  while (!url) {
    url = /listening on (https?:\/\/\S+)/.exec(out)?.[1] ?? null;
    if (url) break;
    if (exited) throw new Error(`the panel exited before listening:\n${out}`);
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`the panel did not start in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const base = opts.https ? withHost(url, opts.https.name) : url.replace("localhost", "127.0.0.1");
  // A function: a CA the panel makes at its start (--local-ca) is trusted once it is there.
  const given = opts.https?.http;
  let http: Deno.HttpClient | undefined;
  const client = (): Deno.HttpClient | undefined => http ??= typeof given === "function" ? given() : given;
  return {
    url: base,
    pid: child.pid,
    output: () => out,
    exit: status.then((s) => s.code),
    client: () => new Client(base, base, client()),
    login: async (username, password) => {
      const c = new Client(base, base, client());
      const r = await c.post("/api/login", { username, password });
      if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
      return c;
    },
    stop: async () => {
      if (!exited) Deno.kill(-child.pid, "SIGTERM");
      const s = await status;
      // The game outlives the panel; whatever else still holds the output pipes, do not wait for it.
      await Promise.race([reading, new Promise((r) => setTimeout(r, 2000))]);
      return s.code;
    },
  };
}

/**
 * Runs the panel's command to its end (--export, --dry-run, a refused --import ...), through the
 * launcher as `npm start` runs it; its exit code and output. A guard ends a wrong start instead of hanging.
 */
export async function runPanelCommand(args: string[]): Promise<{ code: number; out: string }> {
  const panel = panelCommand(args);
  const r = await new Deno.Command(panel.cmd, {
    args: panel.args,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
    signal: AbortSignal.timeout(120_000),
  }).output();
  return { code: r.code, out: new TextDecoder().decode(r.stdout) + new TextDecoder().decode(r.stderr) };
}

function withHost(url: string, name: string): string {
  const u = new URL(url);
  u.hostname = name;
  return u.origin;
}
