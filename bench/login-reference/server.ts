// Serves bench/login-reference (the minimal SPA) and answers its two API calls, gzip like the panel's
// precompressed files. Started with the panel's permission flags by bench/login.mjs.
import { gzipSync } from "node:zlib";
const dir = new URL(".", import.meta.url).pathname;
const files: Record<string, [Uint8Array, string]> = {
  "/": [gzipSync(Deno.readFileSync(dir + "index.html")), "text/html; charset=utf-8"],
  "/login": [gzipSync(Deno.readFileSync(dir + "index.html")), "text/html; charset=utf-8"],
  "/app.js": [gzipSync(Deno.readFileSync(dir + "app.js")), "text/javascript"],
};
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}`),
}, (req) => {
  const path = new URL(req.url).pathname;
  if (path === "/api/login") return Response.json({ username: "admin" });
  if (path === "/api/server/status") return Response.json({ status: "stopped", running: false });
  const f = files[path];
  if (!f) return new Response("not found", { status: 404 });
  return new Response(f[0], { headers: { "Content-Type": f[1], "Content-Encoding": "gzip" } });
});
