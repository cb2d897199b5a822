// Serves the built PWA: files from the static dir, and index.html for every extension-less path (the app's
// own routes), so a reload of /mods works signed in or not. /api and /ws never reach this.

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
    const file = isAppRoute ? join(root, "index.html") : wanted;
    try {
      const fh = await Deno.open(file, { read: true });
      const stat = await fh.stat();
      if (!stat.isFile) {
        fh.close();
        throw new Error("not a file");
      }
      const headers: Record<string, string> = {
        "Content-Type": TYPES[extname(file)] ?? "application/octet-stream",
        "Content-Length": String(stat.size),
        "Cache-Control": revalidate(file)
          ? "no-cache"
          : file.includes(`${sep}assets${sep}`)
          ? "public, max-age=31536000, immutable"
          : "public, max-age=3600",
        "Last-Modified": (stat.mtime ?? new Date()).toUTCString(),
      };
      if (file.endsWith(".html")) headers["Content-Security-Policy"] = CSP;
      if (c.req.method === "HEAD") {
        fh.close();
        return new Response(null, { headers });
      }
      // The readable closes the file when it is done or cancelled.
      return new Response(fh.readable, { headers });
    } catch {
      if (isAppRoute) {
        return c.text("The web app is not built yet. Start the panel with `npm start`, which builds it.", 503);
      }
      return c.text("Not found", 404);
    }
  };
}
