// A panel as its own process, started like `npm start` (deno run with the panel's permissions), for tests
// that need what a process has alone: an open-file limit, a mount namespace, its exit code.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = new URL("../..", import.meta.url).pathname;
export const PANEL_PERMISSIONS = ["--allow-net", "--allow-read", "--allow-write", "--allow-env", "--allow-run", "--allow-sys"];
export const PROCESS_ADMIN_PASSWORD = "process-test-password";

export interface PanelProcess {
  url: string;
  port: number;
  dataDir: string;
  alive(): boolean;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts backend/main.ts on a free port over a fresh data dir. `shell` runs first in `sh -c` (e.g.
 * `ulimit -n 256`), `wrap` goes before sh (e.g. ["unshare", "-rm"]).
 */
export async function spawnPanelProcess(opts: { args?: string[]; shell?: string; wrap?: string[] } = {}): Promise<PanelProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-proc-"));
  const [cmd, ...pre] = [...(opts.wrap ?? []), "sh"];
  const child = new Deno.Command(cmd, {
    args: [
      ...pre, "-c", `${opts.shell ?? ":"} && exec "$@"`, "sh",
      Deno.execPath(), "run", ...PANEL_PERMISSIONS, "backend/main.ts",
      "--port", "0", "--bind", "127.0.0.1", "--data-dir", dataDir, ...(opts.args ?? []),
    ],
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
  return { url, port: Number(new URL(url).port), dataDir, alive: () => exited === null, output: () => out, stop };
}
