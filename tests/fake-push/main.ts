// The fake push service as its own process, for tests and benchmarks that run under Node (Playwright,
// bench/*.mjs). It prints one JSON line {"origin", "control", "caFile"} and then serves:
//   the push service itself on `origin` (HTTPS, certificate from tls/, trust it with --push-ca-file), and
//   a control API on `control` (plain HTTP, loopback):
//     POST /subscriptions {applicationServerKey}        -> a subscription, as PushSubscription.toJSON() + id
//     POST /subscriptions/:id/respond {status, times?}  -> answer the next messages with that status
//     GET  /received?after=SEQ&wait=MS                  -> attempts after SEQ; waits up to MS for one
//   deno run -A tests/fake-push/main.ts

import { CA_FILE, FakePushService } from "./service.ts";

const fake = await FakePushService.start();

async function control(req: Request): Promise<Response> {
  const url = new URL(req.url);
  const json = (data: unknown, status = 200) => Response.json(data, { status });
  if (req.method === "POST" && url.pathname === "/subscriptions") {
    const { applicationServerKey } = await req.json();
    if (typeof applicationServerKey !== "string") return json("applicationServerKey required", 400);
    return json(fake.subscribe(applicationServerKey));
  }
  const respond = /^\/subscriptions\/([\w-]+)\/respond$/.exec(url.pathname);
  if (req.method === "POST" && respond) {
    const { status, times } = await req.json();
    fake.respondWith(respond[1], Number(status), times === undefined ? Infinity : Number(times));
    return json(true);
  }
  if (req.method === "GET" && url.pathname === "/received") {
    const after = Number(url.searchParams.get("after") ?? 0);
    const wait = Math.min(Number(url.searchParams.get("wait") ?? 0), 120_000);
    if (wait > 0) await fake.waitFor(() => true, { afterSeq: after, timeoutMs: wait }).catch(() => {});
    return json(fake.received().filter((r) => r.seq > after));
  }
  return json("not found", 404);
}

const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, control);
console.log(
  JSON.stringify({ origin: fake.origin, control: `http://127.0.0.1:${server.addr.port}`, caFile: CA_FILE }),
);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  Deno.addSignalListener(signal, async () => {
    await Promise.all([fake.close(), server.shutdown()]);
    Deno.exit(0);
  });
}
