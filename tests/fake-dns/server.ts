// Local doubles of the DNS services the panel's DNS-01 check talks to, on one real socket, after their
// public API documentation:
//
//   DuckDNS     GET  <url>/duckdns/update?domains=<sub>&token=<t>&txt=<v>[&clear=true][&verbose=true]
//               -> "OK" (verbose: "OK\n<txt>\nUPDATED") or "KO" for a wrong token or subdomain
//   Cloudflare  GET    <url>/cloudflare/client/v4/zones?name=<zone>                 (Bearer token)
//               POST   <url>/cloudflare/client/v4/zones/<id>/dns_records  {type: "TXT", name, content, ttl}
//               DELETE <url>/cloudflare/client/v4/zones/<id>/dns_records/<record id>
//               -> {success, errors: [{code, message}], messages: [], result}
//
// What a real service would publish, they put into pebble-challtestsrv's mock DNS (/set-txt, /clear-txt),
// so pebble's check finds the record. Every request is recorded (with the token it carried), so tests can see
// what went where. `dropRecords` accepts updates but publishes nothing (the CA then finds no record).

export interface DnsCall {
  service: "duckdns" | "cloudflare";
  method: string;
  path: string;
  /** The token the request carried (query or Authorization), "" without one. */
  token: string;
  /** The TXT name and value set or cleared. */
  name?: string;
  value?: string;
}

export interface FakeDnsOptions {
  /** pebble-challtestsrv's management API. */
  challtestsrv: string;
  duckdnsToken: string;
  /** Subdomains of duckdns.org the DuckDNS token owns. */
  duckdnsDomains: string[];
  cloudflareToken: string;
  /** Cloudflare zones the token may edit: name -> zone id. */
  cloudflareZones: Record<string, string>;
}

export interface FakeDns {
  /** --duckdns-url */
  duckdnsUrl: string;
  /** --cloudflare-api-url */
  cloudflareUrl: string;
  calls: DnsCall[];
  /** TXT records published now, by name (without the trailing dot). */
  published: Map<string, string[]>;
  /** Accept updates but publish nothing. */
  dropRecords: boolean;
  close(): Promise<void>;
}

export function startFakeDns(o: FakeDnsOptions): FakeDns {
  const calls: DnsCall[] = [];
  const published = new Map<string, string[]>();
  const records = new Map<string, { name: string; value: string }>();
  let nextId = 1;
  const state = { dropRecords: false };

  const challtest = async (path: string, body: unknown) => {
    const res = await fetch(`${o.challtestsrv}${path}`, { method: "POST", body: JSON.stringify(body) });
    await res.body?.cancel();
    if (!res.ok) throw new Error(`challtestsrv ${path}: HTTP ${res.status}`);
  };
  const publish = async (name: string, value: string) => {
    if (state.dropRecords) return;
    published.set(name, [...published.get(name) ?? [], value]);
    await challtest("/set-txt", { host: `${name}.`, value });
  };
  const unpublish = async (name: string, value: string) => {
    const left = (published.get(name) ?? []).filter((v) => v !== value);
    if (left.length) published.set(name, left);
    else published.delete(name);
    // challtestsrv clears a name's values together: put back the ones that stay.
    await challtest("/clear-txt", { host: `${name}.` });
    for (const v of left) await challtest("/set-txt", { host: `${name}.`, value: v });
  };

  const cf = (status: number, result: unknown, errors: { code: number; message: string }[] = []) =>
    Response.json({ success: errors.length === 0, errors, messages: [], result }, { status });

  const duckdns = async (url: URL): Promise<Response> => {
    const q = url.searchParams;
    const token = q.get("token") ?? "";
    const sub = q.get("domains") ?? "";
    const name = `_acme-challenge.${sub}.duckdns.org`;
    const clear = q.get("clear") === "true";
    const value = q.get("txt") ?? "";
    calls.push({
      service: "duckdns",
      method: "GET",
      path: url.pathname,
      token,
      name,
      value: clear ? "" : value,
    });
    if (token !== o.duckdnsToken || !o.duckdnsDomains.includes(sub)) return new Response("KO");
    // DuckDNS holds one TXT value per subdomain.
    for (const v of published.get(name) ?? []) await unpublish(name, v);
    if (!clear) await publish(name, value);
    return new Response(q.get("verbose") === "true" ? `OK\n${clear ? "" : value}\nUPDATED` : "OK");
  };

  const cloudflare = async (req: Request, path: string): Promise<Response> => {
    const token = (req.headers.get("authorization") ?? "").replace(/^Bearer /, "");
    const call: DnsCall = { service: "cloudflare", method: req.method, path, token };
    calls.push(call);
    if (token !== o.cloudflareToken) return cf(403, null, [{ code: 10000, message: "Authentication error" }]);
    const zones = Object.entries(o.cloudflareZones);
    if (req.method === "GET" && path === "/zones") {
      const name = new URL(req.url).searchParams.get("name");
      return cf(200, zones.filter(([n]) => n === name).map(([n, id]) => ({ id, name: n, status: "active" })));
    }
    const m = /^\/zones\/([^/]+)\/dns_records(?:\/([^/]+))?$/.exec(path);
    if (!m || !zones.some(([, id]) => id === m[1])) {
      return cf(404, null, [{ code: 7003, message: "Could not route to " + path }]);
    }
    if (req.method === "POST" && !m[2]) {
      const body = await req.json() as { type?: string; name?: string; content?: string };
      if (body.type !== "TXT" || !body.name || !body.content) {
        return cf(400, null, [{ code: 9000, message: "Invalid record" }]);
      }
      const id = `rec${nextId++}`;
      records.set(id, { name: body.name, value: body.content });
      Object.assign(call, { name: body.name, value: body.content });
      await publish(body.name, body.content);
      return cf(200, { id, type: "TXT", name: body.name, content: body.content });
    }
    if (req.method === "DELETE" && m[2]) {
      const record = records.get(m[2]);
      if (!record) return cf(404, null, [{ code: 81044, message: "Record does not exist." }]);
      records.delete(m[2]);
      Object.assign(call, { name: record.name, value: record.value });
      await unpublish(record.name, record.value);
      return cf(200, { id: m[2] });
    }
    return cf(405, null, [{ code: 10000, message: "Method not allowed" }]);
  };

  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/duckdns/update") return duckdns(url);
    if (url.pathname.startsWith("/cloudflare/client/v4/")) {
      return cloudflare(req, url.pathname.slice("/cloudflare/client/v4".length));
    }
    return new Response("not found", { status: 404 });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    duckdnsUrl: `${base}/duckdns`,
    cloudflareUrl: `${base}/cloudflare/client/v4`,
    calls,
    published,
    get dropRecords() {
      return state.dropRecords;
    },
    set dropRecords(v: boolean) {
      state.dropRecords = v;
    },
    close: () => server.shutdown(),
  };
}
