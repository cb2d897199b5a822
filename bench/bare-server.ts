// The reference the HTTP benches compare the panel with: a bare Deno.serve answering one fixed body (the
// same JSON the panel answered), started with the panel's own permission flags.
//   deno run <flags> bench/bare-server.ts <body-file> [content-type]

const body = Deno.readFileSync(Deno.args[0]);
const type = Deno.args[1] ?? "application/json";
Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => console.log(`listening on http://127.0.0.1:${port}`),
}, () => new Response(body, { headers: { "Content-Type": type } }));
