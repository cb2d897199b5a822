// Test harness: a real panel (the production wiring from backend/boot/context.ts and backend/http/app.ts) served by Deno.serve on a
// free port as the panel serves itself (backend/boot/listen.ts), over a fresh temp data dir. Clients talk to it over real HTTP with a cookie jar, and send
// the Origin a browser on the panel's own pages would send.

import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { type Config, loadConfig } from "../../backend/boot/config.ts";
import { type AppContext, type ContextOptions, createContext } from "../../backend/boot/context.ts";
import { createApp } from "../../backend/http/app.ts";
import type { Route } from "../../backend/http/routes.ts";
import { listen } from "../../backend/boot/listen.ts";
import { rconPortArgs } from "../fake-factorio/sim.ts";

export const ADMIN_PASSWORD = "test-admin-password";

export interface PanelOptions {
  /** Extra command-line style flags, e.g. ["--factorio-dir", dir]. */
  args?: string[];
  env?: Record<string, string>;
  now?: () => number;
  /** The schedules' clock and the backups' free-space probe (see ContextOptions). */
  clock?: ContextOptions["clock"];
  freeBytes?: ContextOptions["freeBytes"];
  /** Reuse a data dir (to restart a panel over the same state); a new temp dir otherwise. */
  dataDir?: string;
  /** Called with the context before the server starts, e.g. to wire test doubles. */
  prepare?: (ctx: AppContext) => void | Promise<void>;
}

export interface TestPanel {
  url: string;
  origin: string;
  dataDir: string;
  config: Config;
  ctx: AppContext;
  routes: Route[];
  client(): Client;
  /** A client signed in as `username` (admin by default). */
  login(username?: string, password?: string): Promise<Client>;
  /** Stops the server and closes the context; keeps the data dir when `keepData`. */
  close(opts?: { keepData?: boolean }): Promise<void>;
}

export interface Reply {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
  text: string;
}

export class Client {
  cookie: string | undefined;

  /** `http`: a Deno HTTP client to fetch with (one trusting a test CA, through a proxy to a test name). */
  constructor(readonly base: string, readonly origin: string, readonly http?: Deno.HttpClient) {}

  async request(method: string, path: string, init: {
    json?: unknown;
    body?: BodyInit;
    headers?: Record<string, string>;
    /** Pretend to be a page on another site (CSRF attempt). */
    crossSite?: boolean;
    /** Send no Origin at all (a non-browser client). */
    noOrigin?: boolean;
  } = {}): Promise<Reply> {
    const headers: Record<string, string> = { ...init.headers };
    if (!init.noOrigin) headers["Origin"] = init.crossSite ? "https://evil.example" : this.origin;
    if (this.cookie) headers["Cookie"] = this.cookie;
    let body = init.body;
    if (init.json !== undefined) {
      body = JSON.stringify(init.json);
      headers["Content-Type"] ??= "application/json";
    }
    const res = await fetch(this.base + path, {
      method,
      headers,
      body,
      redirect: "manual",
      client: this.http,
    });
    this.#absorbCookie(res.headers);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  get(path: string, init?: Parameters<Client["request"]>[2]) {
    return this.request("GET", path, init);
  }

  post(path: string, json?: unknown, init?: Parameters<Client["request"]>[2]) {
    return this.request("POST", path, { json: json ?? {}, ...init });
  }

  #absorbCookie(headers: Headers) {
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(";");
      const [name, value] = pair.split("=");
      if (name.trim() !== "authentication") continue;
      this.cookie = value ? `authentication=${value}` : undefined;
      if (/Max-Age=0/i.test(line)) this.cookie = undefined;
    }
  }
}

export async function startPanel(opts: PanelOptions = {}): Promise<TestPanel> {
  const ownDir = !opts.dataDir;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), "panel-test-"));
  const rcon = await rconPortArgs(opts.args ?? []);
  const result = loadConfig([
    "--data-dir",
    dataDir,
    "--port",
    "0",
    "--bind",
    "127.0.0.1",
    ...rcon,
    ...(opts.args ?? []),
  ], {
    ...opts.env,
  });
  if (result.kind !== "config") throw new Error("unexpected --help");
  const config = result.config;
  const { ctx } = await createContext(config, {
    now: opts.now,
    clock: opts.clock,
    freeBytes: opts.freeBytes,
    quiet: true,
    adminPassword: ADMIN_PASSWORD,
  });
  await opts.prepare?.(ctx);
  // As run.ts: the certificate before the app answers (HTTPS tests serve it with https/listener.ts).
  await ctx.https.start();
  const { app, routes } = createApp(ctx);
  const server = listen({ hostname: "127.0.0.1", port: 0 }, app.fetch);
  const url = `http://127.0.0.1:${server.addr.port}`;
  const panel: TestPanel = {
    url,
    origin: url,
    dataDir,
    config,
    ctx,
    routes,
    client: () => new Client(url, url),
    login: async (username = "admin", password = ADMIN_PASSWORD) => {
      const client = new Client(url, url);
      const r = await client.post("/api/login", { username, password });
      if (r.status !== 200) throw new Error(`login as ${username} failed: ${r.status} ${r.text}`);
      return client;
    },
    close: async ({ keepData } = {}) => {
      ctx.hub.closeAll();
      await server.shutdown();
      await ctx.close();
      if (ownDir && !keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return panel;
}

/** Runs `fn` with a fresh panel and always closes it. */
export function withPanel(
  fn: (panel: TestPanel) => Promise<void>,
  opts: PanelOptions = {},
): () => Promise<void> {
  return async () => {
    const panel = await startPanel(opts);
    try {
      await fn(panel);
    } finally {
      await panel.close();
    }
  };
}
