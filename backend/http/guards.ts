// Request guards applied from the route table: who the client is, which session it has, whether the
// request comes from our own pages.

import { getCookie } from "hono/cookie";
import { type Ctx, requiredRole, type Route } from "./routes.ts";
import type { Role } from "../../shared/api.ts";
import type { SessionInfo } from "../auth/accounts.ts";
import { roleAtLeast } from "../../shared/api.ts";
import { ACCESS_MSG, SESSION_COOKIE } from "../../shared/access.ts";
import type { Config } from "../boot/config.ts";
import type { Access, Resolved } from "../auth/access.ts";
import { PANEL_MSG } from "../../shared/messages.ts";

export { SESSION_COOKIE };

/** Who sent a request: the client's address, and whether it came over https as the browser sees it. */
export interface Client {
  address: string;
  secure: boolean;
}

/**
 * The client of a request (`info` is what Deno.serve gave the handler, undefined for app.request in unit
 * tests), also behind a trusted proxy. Secure means the request itself came over TLS: Deno.serve gives an
 * https: URL then (the panel serves plain HTTP until its first certificate, and again never after). A
 * client's X-Forwarded-Proto counts only behind a trusted proxy.
 */
export function clientOf(config: Config): (req: Request, info: unknown) => Client {
  return (req, info) => {
    const address =
      (info as Partial<Deno.ServeHandlerInfo<Deno.NetAddr>> | undefined)?.remoteAddr?.hostname ?? "unknown";
    const tls = overTls(req);
    if (!config.trustProxy) return { address, secure: tls };
    let client = address;
    let secure = tls;
    // Through Headers, which join a header sent more than once: a proxy may add its own line after the
    // client's, and the address it vouches for is the last one.
    const forwarded = req.headers.get("x-forwarded-for")?.split(",").map((s) => s.trim()).filter(Boolean);
    if (forwarded?.length) client = forwarded[forwarded.length - 1];
    const proto = req.headers.get("x-forwarded-proto")?.split(",")[0].trim();
    if (proto) secure = proto === "https";
    return { address: client, secure };
  };
}

/** Whether the request reached the panel over TLS (Deno.serve's URL says https: then). */
export function overTls(req: Request): boolean {
  return req.url.startsWith("https:");
}

/**
 * The host (name[:port]) the request was addressed to. From the URL Deno.serve built: over HTTP/2 there is
 * no Host header (the name comes as :authority, which the URL carries), over HTTP/1.1 the URL is made of it.
 */
export function requestHost(req: Request): string {
  try {
    return new URL(req.url).host;
  } catch {
    return "";
  }
}

/**
 * The host as it stands in the URL Deno.serve built (scheme://host/path), neither parsed nor normalized:
 * the host check asks it of every request and normalizes it itself (hostName). Parsing the URL there was
 * about a twentieth of the JavaScript time of GET /api/server/status.
 */
function urlHost(req: Request): string {
  const url = req.url;
  const start = url.indexOf("//") + 2;
  const end = url.indexOf("/", start);
  return end === -1 ? url.slice(start) : url.slice(start, end);
}

/** A JSON string answer as Hono's c.json makes it, for the guards that answer without a context. */
export function jsonMessage(message: string, status: number): Response {
  return new Response(JSON.stringify(message), { status, headers: JSON_TYPE });
}
const JSON_TYPE = { "Content-Type": "application/json" };

/** The session of a request from `address`, from its cookie or API token, or why it is refused. */
export function requestSession(access: Access): (c: Ctx, address: string) => Resolved {
  return (c, address) => access.resolve(getCookie(c, SESSION_COOKIE), c.req.header("authorization"), address);
}

/** The origin this request was addressed to, as the browser sees it. */
export function ownOrigin(c: Ctx, config: Config): string | null {
  const host = (config.trustProxy ? c.req.header("x-forwarded-host") : undefined) ?? requestHost(c.req.raw);
  if (!host) return null;
  return `${c.get("secure") ? "https" : "http"}://${host}`;
}

/**
 * True when the request may change state: it comes from our own pages, or from a client that is not a
 * browser (no Origin, no Sec-Fetch-Site; such a client cannot be tricked into carrying our cookie).
 */
export function fromOwnSite(c: Ctx, config: Config): boolean {
  const origin = c.req.header("origin");
  if (origin !== undefined) {
    if (origin === "null") return false;
    return origin === ownOrigin(c, config) || config.allowedOrigins.includes(origin);
  }
  const site = c.req.header("sec-fetch-site");
  if (site !== undefined) return site === "same-origin" || site === "none";
  return true;
}

/** Why a signed-in caller may not use `route` (a 403 message), or null when it may. */
export function authorize(route: Route, session: SessionInfo, role: Role = session.role): string | null {
  if (route.interactive && session.via === "token") return ACCESS_MSG.tokenNotAllowed;
  if (!roleAtLeast(role, requiredRole(route))) return ACCESS_MSG.roleTooWeak(requiredRole(route));
  if (session.mustEnrol && !route.beforeEnrolment) return ACCESS_MSG.enrolFirst;
  return null;
}

/**
 * Refuses requests addressed to a name the panel does not have (DNS rebinding: a site whose name
 * resolves to this machine would otherwise talk to the panel as its own origin). Accepted: IP addresses
 * (a browser on an IP is not being rebound), localhost, this machine's names, the hosts of
 * --allowed-origins, and the HTTPS names (`httpsNames`: --https-domain or those set on Settings > HTTPS; a
 * wildcard `*.example.org` covers the names one level under it). Behind a trusted reverse proxy the proxy
 * chooses which names reach the panel.
 */
export function hostRefusal(
  config: Config,
  httpsNames: () => string[] = () => config.httpsDomains,
): (req: Request) => Response | null {
  const names = new Set(["localhost", config.bind.toLowerCase()]);
  try {
    const host = Deno.hostname().toLowerCase();
    names.add(host);
    names.add(`${host}.local`);
    names.add(host.split(".")[0]);
  } catch {
    // no hostname permission: IPs and localhost still work
  }
  for (const origin of config.allowedOrigins) {
    try {
      names.add(new URL(origin).hostname.toLowerCase());
    } catch {
      // checked at start-up
    }
  }
  return (req) => {
    if (config.trustProxy) return null;
    const header = urlHost(req);
    const host = hostName(header);
    if (host === null || isIpLiteral(host) || names.has(host) || host.endsWith(".localhost")) return null;
    if (httpsNames().some((n) => httpsNameCovers(n.toLowerCase(), host))) return null;
    return jsonMessage(PANEL_MSG.unknownHost(host, header.trim()), 421);
  };
}

function httpsNameCovers(name: string, host: string): boolean {
  if (!name.startsWith("*.")) return name === host;
  const rest = host.slice(host.indexOf(".") + 1);
  return host.indexOf(".") > 0 && rest === name.slice(2);
}

/** The host name of a Host header, lower-case, without port or IPv6 brackets; null when malformed. */
function hostName(header: string): string | null {
  const h = header.trim().toLowerCase();
  if (h === "") return null;
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    return end === -1 ? h : h.slice(1, end);
  }
  return h.replace(/:\d*$/, "").replace(/\.$/, "");
}

function isIpLiteral(host: string): boolean {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return true;
  return host.includes(":") && /^[0-9a-f:.]+$/.test(host);
}
