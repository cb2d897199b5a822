// A panel process started with the launcher's command line (scripts/launcher.mjs, as `npm start` does)
// behind a shell prefix, for tests that need what only a process can have: an open-file limit
// (`ulimit -n`), a private mount namespace (`unshare -rm` with a tiny tmpfs).

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { panelCommand, ROOT } from "../../scripts/launcher.mjs";

export { ROOT };
export const PROCESS_ADMIN_PASSWORD = "process-test-password";

/** Whether this machine lets a test mount a tmpfs in a private mount namespace (`unshare -rm`). */
export function canMount(): boolean {
  return new Deno.Command("unshare", { args: ["-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /tmp"] })
    .outputSync().success;
}

/** Signs the admin in to a wrapped panel and answers the headers a page of the panel would send. */
export async function signedInHeaders(panel: WrappedPanel): Promise<{ Cookie: string; Origin: string }> {
  const login = await fetch(panel.url + "/api/login", {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: panel.url },
    body: JSON.stringify({ username: "admin", password: PROCESS_ADMIN_PASSWORD }),
  });
  if (login.status !== 200) throw new Error(`sign-in: ${login.status} ${await login.text()}`);
  return { Cookie: login.headers.getSetCookie()[0].split(";")[0], Origin: panel.url };
}

export interface WrappedPanel {
  url: string;
  port: number;
  dataDir: string;
  /** The panel's pid (the wrapper and sh exec into it): /proc/PID/root reaches its private mounts. */
  pid: number;
  alive(): boolean;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts the panel (the launcher's command) on a free port over a fresh data dir. `shell` runs first in `sh -c` (e.g.
 * `ulimit -n 256`, or a tmpfs mounted on the data dir, which it is given), `wrap` goes before sh (e.g.
 * ["unshare", "-rm"]).
 */
export async function spawnWrappedPanel(
  opts: { args?: string[]; shell?: string | ((dataDir: string) => string); wrap?: string[] } = {},
): Promise<WrappedPanel> {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-proc-"));
  const shell = typeof opts.shell === "function" ? opts.shell(dataDir) : opts.shell;
  const [cmd, ...pre] = [...(opts.wrap ?? []), "sh"];
  const panel = panelCommand([
    "--port",
    "0",
    "--bind",
    "127.0.0.1",
    "--data-dir",
    dataDir,
    ...(opts.args ?? []),
  ]);
  const child = new Deno.Command(cmd, {
    args: [...pre, "-c", `${shell ?? ":"} && exec "$@"`, "sh", panel.cmd, ...panel.args],
    cwd: ROOT,
    env: { PANEL_ADMIN_PASSWORD: PROCESS_ADMIN_PASSWORD, NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream.pipeThrough(new TextDecoderStream())) out += chunk;
  };
  const done = Promise.all([collect(child.stdout), collect(child.stderr)]);
  let exited: Deno.CommandStatus | null = null;
  child.status.then((s) => (exited = s));
  const stop = async () => {
    if (!exited) child.kill("SIGTERM");
    await child.status;
    await done;
    rmSync(dataDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  let url: string | undefined;
  while (!url) {
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Error(`panel did not start:\n${out}`);
    }
    url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    port: Number(new URL(url).port),
    dataDir,
    pid: child.pid,
    alive: () => exited === null,
    output: () => out,
    stop,
  };
}
