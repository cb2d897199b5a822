// The references the HTTP benches compare the panel with: a bare Deno.serve answering one fixed body (the
// same JSON the panel answered), started with the panel's own permission flags. With --gate, the same
// bare handler behind the panel's connection gate (backend/serve/gate.ts: the listener that caps
// connections, times out silent ones and limits WebSocket frames, relaying every byte through JS): the
// most the panel could answer with those protections in front, whatever its own handlers cost.
// With --header "Name: value" (repeatable), the answer carries those headers too: the panel's own, for a
// reference that differs from the panel only in what the panel does per request. Deno answers a 200 with a
// string body and no header but Content-Type on a fast path; any other header takes it off that path.
// With --read-cookie, the handler also reads the request's Cookie header, as every signed-in API answer must.
// With --sink <dir>, a POST's body is written as it comes to a new file in <dir> (the least a server can do
// with an upload: no form parsing, no checks), and the fixed body is the answer.
//   deno run <flags> bench/bare-server.ts <body-file> [content-type] [--gate] [--read-cookie] [--sink <dir>] [--header "N: v"]...

import { Gate } from "../backend/serve/gate.ts";
import { requestHeader } from "../backend/http/reqheader.ts";
import { SMALL_ANSWER } from "../backend/http/routes.ts";

const type = Deno.args[1] && !Deno.args[1].startsWith("--") ? Deno.args[1] : "application/json";
// Text bodies as text, as the panel sends its JSON: Deno copies a byte body into a new buffer for every
// response, and encodes a text body in Rust, which is the faster of the two.
const body = /json|text/.test(type) ? Deno.readTextFileSync(Deno.args[0]) : Deno.readFileSync(Deno.args[0]);
const sinkAt = Deno.args.indexOf("--sink");
const sinkDir = sinkAt >= 0 ? Deno.args[sinkAt + 1] : null;
let uploads = 0;
const headers: Record<string, string> = { "Content-Type": type };
Deno.args.forEach((arg, i) => {
  if (arg !== "--header") return;
  const [name, ...value] = Deno.args[i + 1].split(":");
  headers[name.trim()] = value.join(":").trim();
});
// Reads the Cookie header the way the panel's session check does (backend/http/reqheader.ts: one header
// from Deno's inner request, without building the whole header list).
const readCookie = Deno.args.includes("--read-cookie");
// Headers beyond Content-Type are given the way the panel gives them to a small answer (jsonText in
// backend/http/routes.ts: after the Response is made, which Deno sends faster than one made with them).
const extra = Object.entries(headers).filter(([k]) => k !== "Content-Type");
const small = typeof body === "string" && body.length <= SMALL_ANSWER && extra.length > 0;
const typeOnly = { "Content-Type": type };
const fixed = small
  ? () => {
    const res = new Response(body, { headers: typeOnly });
    const h = res.headers;
    for (const [k, v] of extra) h.set(k, v);
    return res;
  }
  : () => new Response(body, { headers });
const answer = (req?: Request) =>
  readCookie && req && requestHeader(req, "cookie") === undefined ? new Response("no session", { status: 401 }) : fixed();
// The fixed answer stays synchronous: an async handler costs Deno.serve more per request.
const handler = sinkDir
  ? async (req: Request) => {
    if (req.method === "POST" && req.body) {
      const file = await Deno.open(`${sinkDir}/upload-${++uploads}`, { write: true, createNew: true });
      await req.body.pipeTo(file.writable);
    }
    return answer(req);
  }
  : answer;
if (Deno.args.includes("--gate")) {
  const quiet = () => {};
  const gate = new Gate({ hostname: "127.0.0.1", port: 0, log: { debug: quiet, info: quiet, warn: quiet, error: quiet }, handler });
  console.log(`listening on http://127.0.0.1:${gate.addr.port}`);
} else {
  Deno.serve({
    hostname: "127.0.0.1",
    port: 0,
    onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}`),
  }, handler);
}
