// Server health (issue 51): the API routes (live figures, history, the admin's choices), and what is read
// outside the API: GET /metrics (Prometheus, with an API token or from --metrics-from addresses) and the
// public status of a server that an admin opted in: /status/{server}.json, the page /status/{server} and
// the badge /status/{server}.svg, which show only what the admin chose.

import { createHash } from "node:crypto";
import type { Context } from "hono";
import { type AppContext, serverContext } from "../boot/context.ts";
import { type Env, type Route, route, routeCheckedByDomain } from "./routes.ts";
import { objectBody } from "./body.ts";
import { Invalid } from "../lib/errors.ts";
import { HealthRange, type HealthSettings } from "../../shared/contract/health.ts";
import { UNSAFE_TEXT } from "../../shared/validation.ts";
import { CONTENT_TYPE, formatMetrics, serverFamilies } from "../health/metrics.ts";
import type { HealthServer } from "../health/sampler.ts";
import type { Server } from "../servers/build.ts";
import { jsonMessage } from "./guards.ts";
import { formatVersion, parseVersion } from "../../shared/versions.ts";
import { formatUptime } from "../../shared/format.ts";

const ADDRESS_MAX = 200;

export function healthRoutes(ctx: AppContext): Route[] {
  const { health } = ctx;
  return [
    route("GET /api/health", () => health.sampler.latest()),
    route("GET /api/health/history", (_c, { query }) => {
      const range = HealthRange.safeParse(query.range ?? "day");
      if (!range.success) throw new Invalid(`range must be one of: ${HealthRange.options.join(", ")}.`);
      return health.history(range.data);
    }),
    route("GET /api/health/settings", () => health.settings.get()),
    // Checked here, naming each setting: the edge passes the body as sent.
    routeCheckedByDomain("POST /api/health/settings", (c, { body: sent }) => {
      const body = objectBody(sent);
      const next: HealthSettings = health.settings.get();
      for (const key of ["exact_ups", "public_status", "public_players"] as const) {
        if (body[key] === undefined) continue;
        if (typeof body[key] !== "boolean") throw new Invalid(`${key} must be true or false.`);
        next[key] = body[key];
      }
      if (body.public_address !== undefined) {
        const a = body.public_address;
        if (typeof a !== "string" || a.length > ADDRESS_MAX || UNSAFE_TEXT.test(a)) {
          throw new Invalid(
            `The join address must be text of at most ${ADDRESS_MAX} characters, without control characters.`,
          );
        }
        next.public_address = a.trim();
      }
      const unknown = Object.keys(body).filter((k) => !(k in next));
      if (unknown.length) throw new Invalid(`Unknown health setting: ${unknown.join(", ")}.`);
      health.settings.set(next);
      c.set("activity", {
        detail: Object.keys(body).map((k) => `${k}=${JSON.stringify(next[k as keyof HealthSettings])}`).join(
          " ",
        ),
      });
      return next;
    }),
  ];
}

/** GET /metrics: for an API token or signed-in session, or from an address the admin listed. */
export function metricsHandler(ctx: AppContext) {
  return (c: Context<Env>) => {
    const allowed = c.get("session") !== null || ctx.config.metricsFrom.includes(c.get("clientAddress"));
    if (!allowed) {
      return jsonMessage(
        "/metrics needs an API token (Authorization: Bearer ...) or a request from an address listed in --metrics-from.",
        401,
      );
    }
    // Every server's figures, labelled with its health id ("default" for server 1, as before).
    const all = ctx.servers.all().flatMap((s) => s.health.sampler.metrics());
    return new Response(formatMetrics(serverFamilies(all)), {
      headers: { "Content-Type": CONTENT_TYPE, "Cache-Control": "no-store" },
    });
  };
}

/** What the public status says: nothing else of the server leaves the panel without a sign-in. */
export interface PublicStatus {
  server: string;
  name: string;
  state: string;
  version: string;
  players_online: number | null;
  /** Absent when the admin hides the names. */
  players?: string[];
  uptime_s: number | null;
  ups: number | null;
  paused: boolean;
  address: string;
}

function publicStatus(ctx: AppContext, server: HealthServer): PublicStatus {
  const settings = ctx.health.settings.get();
  const status = ctx.game.status();
  const h = ctx.health.sampler.latest(server);
  const running = status.status === "running";
  const v = parseVersion(status.fac_version);
  const started = running ? Date.parse(status.started_at ?? status.since) : NaN;
  const names = running ? ctx.health.sampler.players(server) : null;
  let name = "";
  try {
    name = String(ctx.settings.get().name ?? "");
  } catch {
    name = "";
  }
  return {
    server: server.id,
    name,
    state: status.status,
    version: v ? formatVersion(v, 3) : "",
    players_online: running ? h.players_online : null,
    ...(settings.public_players ? { players: names ?? [] } : {}),
    // Whole minutes: the answer (and its ETag) then stays the same for a minute unless something changes.
    uptime_s: Number.isFinite(started) ? Math.max(0, Math.floor((ctx.now() - started) / 60_000) * 60) : null,
    ups: running && h.ups_state === "running" ? Math.round(h.ups ?? 0) : null,
    paused: running && h.ups_state === "paused",
    address: settings.public_address || (running ? `${status.address}:${status.port}` : ""),
  };
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

const STATE_WORD: Record<string, string> = {
  running: "Online",
  starting: "Starting",
  stopping: "Stopping",
  stopped: "Offline",
};

function page(p: PublicStatus): string {
  const title = p.name || "Factorio server";
  const players = p.players_online === null
    ? "—"
    : `${p.players_online}${p.players && p.players.length ? `: ${p.players.join(", ")}` : ""}`;
  const row = (k: string, v: string) => `<dt>${k}</dt><dd>${escapeHtml(v)}</dd>`;
  const colour = p.state === "running" ? "#5eb663" : p.state === "stopped" ? "#e0473a" : "#ffa200";
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>
body{margin:0;background:#1b1b1b;color:#f2f2f2;font:16px/1.5 system-ui,sans-serif;display:flex;justify-content:center}
main{background:#313031;border:2px solid #0e0e0e;box-shadow:inset 0 0 0 2px #484748;margin:24px 12px;padding:16px 20px;max-width:560px;width:100%;box-sizing:border-box}
h1{font-size:1.4rem;margin:0 0 12px;color:#ffe6c0;overflow-wrap:anywhere}dl{display:grid;grid-template-columns:max-content 1fr;gap:6px 20px;margin:0}
dt{color:#bdbdbd}dd{margin:0;font-weight:600;overflow-wrap:anywhere}.state{color:${colour}}
</style></head><body><main><h1>${escapeHtml(title)}</h1><dl>
<dt>Status</dt><dd class="state" data-testid="public-state">${STATE_WORD[p.state] ?? p.state}${
    p.paused ? " (paused)" : ""
  }</dd>
${row("Players online", players)}${row("Version", p.version || "—")}${
    row("Uptime", p.uptime_s === null ? "—" : formatUptime(p.uptime_s * 1000))
  }${p.ups !== null ? row("UPS", String(p.ups)) : ""}${row("Join address", p.address || "—")}
</dl></main></body></html>`;
}

function badge(p: PublicStatus): string {
  const left = "factorio";
  const right = p.state === "running"
    ? `online${p.players_online !== null ? ` · ${p.players_online}` : ""}`
    : STATE_WORD[p.state]?.toLowerCase() ?? p.state;
  const colour = p.state === "running" ? "#4c1" : p.state === "stopped" ? "#e05d44" : "#dfb317";
  // Widths from a 7 px average glyph: enough for these short words in Verdana 11 px.
  const lw = left.length * 7 + 10, rw = right.length * 7 + 10;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${
    lw + rw
  }" height="20" role="img" aria-label="${left}: ${escapeHtml(right)}">` +
    `<title>${left}: ${
      escapeHtml(right)
    }</title><rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${rw}" height="20" fill="${colour}"/>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">` +
    `<text x="${lw / 2}" y="14">${left}</text><text x="${lw + rw / 2}" y="14">${
      escapeHtml(right)
    }</text></g></svg>`;
}

/** GET /status/:file: the server's public status as JSON, a page or a badge; 404 unless opted in. */
export function publicStatusHandler(ctx: AppContext) {
  return (c: Context<Env>) => {
    const m = /^([a-z0-9-]+)(\.json|\.svg)?$/.exec(c.req.param("file") ?? "");
    const server: Server | undefined = m
      ? ctx.servers.all().find((s) => s.health.sampler.server.id === m[1])
      : undefined;
    if (!m || !server || !server.health.settings.get().public_status) {
      return c.text("This server has no public status page.", 404, { "Cache-Control": "no-store" });
    }
    const p = publicStatus(serverContext(ctx, server), server.health.sampler.server);
    const [body, type] = m[2] === ".json"
      ? [JSON.stringify(p), "application/json"]
      : m[2] === ".svg"
      ? [badge(p), "image/svg+xml"]
      : [page(p), "text/html; charset=utf-8"];
    const etag = `"${createHash("sha1").update(body).digest("base64url")}"`;
    // Cached for 10 s (the sampling interval) by browsers and proxies: a monitor polling often costs little.
    // The page and the badge carry no script and load nothing: a policy that allows neither.
    const headers = {
      "Cache-Control": "public, max-age=10",
      ETag: etag,
      "Content-Type": type,
      "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors *",
    };
    if (c.req.header("if-none-match") === etag) return new Response(null, { status: 304, headers });
    return new Response(body, { headers });
  };
}
