// The reference the HTTP benches compare the panel with: a bare Deno.serve answering one fixed body (the
// same JSON the panel answered), started with the panel's own permission flags.
// With --header "Name: value" (repeatable), the answer carries those headers too.
// With --sink <dir>, a POST's body is written as it comes to a new file in <dir> (the least a server can do
// with an upload: no form parsing, no checks), and the fixed body is the answer.
// With --tls <cert> <key>, it serves HTTPS (and so offers HTTP/2), as the panel does with --https-cert.
//   deno run <flags> bench/bare-server.ts <body-file> [content-type] [--sink <dir>] [--tls <cert> <key>] [--header "N: v"]...

const type = Deno.args[1] && !Deno.args[1].startsWith("--") ? Deno.args[1] : "application/json";
const body = /json|text/.test(type) ? Deno.readTextFileSync(Deno.args[0]) : Deno.readFileSync(Deno.args[0]);
const arg = (name: string, n = 1) => {
  const at = Deno.args.indexOf(name);
  return at >= 0 ? Deno.args.slice(at + 1, at + 1 + n) : null;
};
const sinkDir = arg("--sink")?.[0] ?? null;
const tlsFiles = arg("--tls", 2);
let uploads = 0;
const headers: Record<string, string> = { "Content-Type": type };
Deno.args.forEach((a, i) => {
  if (a !== "--header") return;
  const [name, ...value] = Deno.args[i + 1].split(":");
  headers[name.trim()] = value.join(":").trim();
});
const answer = () => new Response(body, { headers });
const handler = sinkDir
  ? async (req: Request) => {
    if (req.method === "POST" && req.body) {
      const file = await Deno.open(`${sinkDir}/upload-${++uploads}`, { write: true, createNew: true });
      await req.body.pipeTo(file.writable);
    }
    return answer();
  }
  : answer;
const tls = tlsFiles
  ? { cert: Deno.readTextFileSync(tlsFiles[0]), key: Deno.readTextFileSync(tlsFiles[1]) }
  : {};
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  ...tls,
  onListen: ({ port }) => console.log(`listening on ${tlsFiles ? "https" : "http"}://127.0.0.1:${port}`),
}, handler);
