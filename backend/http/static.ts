// Serves the built PWA: files from the static dir, and index.html for every extension-less path (the app's
// own routes), so a reload of /mods works signed in or not. /api and /ws never reach this.

import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { extname, join, normalize, resolve, sep } from "node:path";
import type { Ctx } from "./routes.ts";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".webmanifest": "application/manifest+json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".woff": "font/woff",
  ".txt": "text/plain; charset=utf-8",
  ".map": "application/json; charset=utf-8",
};

/** Files that must be revalidated on every load, so a new deployment is picked up. */
function revalidate(path: string): boolean {
  return path.endsWith(".html") || path.endsWith("sw.js") || path.endsWith(".webmanifest") ||
    path.includes("workbox-");
}

export const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'", // emotion (MUI) injects style tags
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "manifest-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join("; ");

/**
 * The SHA-256 (base64) of each inline script in an HTML text, as a browser computes it for a CSP hash
 * source: the element's text as written, with the line breaks the HTML parser normalises to LF.
 */
function inlineScriptHashes(html: string): string[] {
  return [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)]
    .filter(([, attrs, text]) => text !== "" && !/\bsrc\s*=/i.test(attrs))
    .map(([, , text]) => createHash("sha256").update(text.replace(/\r\n?/g, "\n")).digest("base64"));
}

/** Per HTML file, its policy while its size and mtime stay (`key`). */
const policies = new Map<string, { key: string; csp: string }>();

/**
 * The Content-Security-Policy of a built HTML file: CSP, with its own inline scripts allowed by their
 * hashes (login.html carries the sign-in form's script inline, scripts/prerender.mjs). Only a script
 * whose text is in the file the panel serves runs; one injected into the page later does not.
 */
function policyOf(file: string, key: string): string {
  const kept = policies.get(file);
  if (kept?.key === key) return kept.csp;
  const hashes = inlineScriptHashes(Deno.readTextFileSync(file));
  const csp = hashes.length === 0
    ? CSP
    : CSP.replace("script-src 'self'", `script-src 'self' ${hashes.map((h) => `'sha256-${h}'`).join(" ")}`);
  policies.set(file, { key, csp });
  return csp;
}

/** Whether an Accept-Encoding header takes `coding` (listed, and not with q=0). */
export function accepts(header: string | undefined, coding: string): boolean {
  if (!header) return false;
  for (const part of header.toLowerCase().split(",")) {
    const [name, ...params] = part.trim().split(";");
    if (name.trim() !== coding) continue;
    const q = params.map((x) => x.trim()).find((x) => x.startsWith("q="));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}

/**
 * The precompressed copy the build wrote beside a file (scripts/compress.mjs), when the client takes it
 * and it is at least as new as the file (a copy left over from an older build is never served).
 */
async function precompressed(
  file: string,
  mtime: number,
  acceptEncoding: string | undefined,
): Promise<{ path: string; size: number; encoding: string } | null> {
  for (const [encoding, ext] of [["br", ".br"], ["gzip", ".gz"]]) {
    if (!accepts(acceptEncoding, encoding)) continue;
    try {
      const st = await Deno.stat(file + ext);
      // The build gives the copy its file's mtime; setting it loses the sub-millisecond part, hence the slack.
      if (st.isFile && (st.mtime?.getTime() ?? 0) >= mtime - 1000) {
        return { path: file + ext, size: st.size, encoding };
      }
    } catch {
      // no such copy: try the next coding, or send the file as it is
    }
  }
  return null;
}

/** Whether a conditional GET can be answered 304: If-None-Match wins over If-Modified-Since (RFC 9110). */
function notModified(c: Ctx, etag: string, mtime: Date): boolean {
  const inm = c.req.header("if-none-match");
  if (inm !== undefined) {
    return inm.trim() === "*" ||
      inm.split(",").some((t) => t.trim().replace(/^W\//, "") === etag.replace(/^W\//, ""));
  }
  const ims = c.req.header("if-modified-since");
  if (ims === undefined) return false;
  const since = Date.parse(ims);
  // Last-Modified has whole seconds.
  return !Number.isNaN(since) && Math.floor(mtime.getTime() / 1000) * 1000 <= since;
}

export function staticHandler(staticDir: string) {
  const root = resolve(staticDir);
  return async (c: Ctx): Promise<Response> => {
    let path: string;
    try {
      path = decodeURIComponent(new URL(c.req.url).pathname);
    } catch {
      return c.text("Bad path", 400);
    }
    if (path.includes("\0")) return c.text("Bad path", 400);
    const wanted = normalize(join(root, path));
    if (wanted !== root && !wanted.startsWith(root + sep)) return c.text("Not found", 404);
    const isAppRoute = extname(path) === "";
    // /login has its own page with the sign-in card already in it (scripts/prerender.mjs), when built.
    const file = path === "/login" && existsSync(join(root, "login.html"))
      ? join(root, "login.html")
      : isAppRoute
      ? join(root, "index.html")
      : wanted;
    try {
      const stat = await Deno.stat(file);
      if (!stat.isFile) throw new Error("not a file");
      const mtime = stat.mtime ?? new Date(0);
      // Weak: the same validator for the plain and the compressed copies of one file.
      const etag = `W/"${stat.size.toString(36)}-${mtime.getTime().toString(36)}"`;
      const variant = await precompressed(file, mtime.getTime(), c.req.header("accept-encoding"));
      const headers: Record<string, string> = {
        "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
        "Content-Length": String(variant?.size ?? stat.size),
        "Cache-Control": revalidate(file)
          ? "no-cache"
          : file.includes(`${sep}assets${sep}`)
          ? "public, max-age=31536000, immutable"
          : "public, max-age=3600",
        "Last-Modified": mtime.toUTCString(),
        ETag: etag,
        // Caches must keep the plain and the compressed answers apart, even when this one is plain.
        Vary: "Accept-Encoding",
      };
      if (variant) headers["Content-Encoding"] = variant.encoding;
      if (file.endsWith(".html")) headers["Content-Security-Policy"] = policyOf(file, etag);
      if (notModified(c, etag, mtime)) {
        delete headers["Content-Length"];
        delete headers["Content-Encoding"];
        return new Response(null, { status: 304, headers });
      }
      if (c.req.method === "HEAD") return new Response(null, { headers });
      const fh = await Deno.open(variant?.path ?? file, { read: true });
      // The readable closes the file when it is done or cancelled.
      return new Response(fh.readable, { headers });
    } catch {
      if (isAppRoute) {
        return c.text(
          "The web app is not built yet. Start the panel with `npm start`, which builds it.",
          503,
        );
      }
      return c.text("Not found", 404);
    }
  };
}
