// A local double of the three Factorio services the Mods page talks to, on real sockets:
//
//   portal  GET /api/mods?page_size=max, /api/mods/<name>, /api/mods/<name>/full,
//           GET /download/<name>/<id>?username=&token=  -> 403 for a bad token, else 302 to the CDN
//   auth    POST /api-login (form: username, password, api_version, require_game_ownership); errors come
//           with HTTP 200 and {error, message} as with api_version >= 4; too many failures -> 429
//   cdn     GET /files/<id>/<file>  (a second server: another origin, like the real CDN)
//
// Every request is recorded, so tests can check what went where (the token must never reach the CDN).
// rateLimit(n) makes the next n portal requests answer 429 with a Retry-After.

import { buildCatalog, type FakeMod, type ListEntry, syntheticEntries } from "./catalog.ts";

export interface FakeUser {
  username: string;
  email: string;
  password: string;
  token: string;
}

export const USERS: FakeUser[] = [
  {
    username: "engineer",
    email: "engineer@example.org",
    password: "correct horse battery",
    token: "fake-token-engineer-0001",
  },
];
/** A user whose account asks for an e-mail code (the panel cannot pass one on). */
export const NEEDS_EMAIL_CODE = { username: "careful", password: "careful password" };

export interface RecordedRequest {
  server: "portal" | "cdn";
  method: string;
  path: string;
  query: string;
  body: string;
}

export interface FakePortalOptions {
  /** List-only entries added to the mod list (for the search benchmark). */
  extraMods?: number;
  /** Failed logins after which the auth server answers 429. */
  loginFailureLimit?: number;
  port?: number;
  hostname?: string;
}

export interface FakePortal {
  /** Base URL of the portal and of the auth server (the same server). */
  url: string;
  cdnUrl: string;
  mods: FakeMod[];
  requests: RecordedRequest[];
  /** The next `count` portal requests answer 429 with Retry-After: `retryAfter` seconds. */
  rateLimit(count: number, retryAfter?: number): void;
  /** Every portal request (not the auth server's, not the CDN's) answers `status` until down(null). */
  down(status: number | null): void;
  /**
   * CDN files from now on arrive in pieces of `chunk` bytes every `everyMs` (a slow line); with `stallAfter`,
   * the body stops for good after that many bytes (a dead connection). null: at full speed again.
   */
  pace(p: { chunk: number; everyMs: number; stallAfter?: number } | null): void;
  /** Requests to the portal (not the CDN) whose path starts with `prefix`. */
  hits(prefix: string): RecordedRequest[];
  close(): Promise<void>;
}

function json(data: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(data), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

function shortRecord(mod: FakeMod, full: boolean) {
  return {
    name: mod.name,
    title: mod.title,
    owner: mod.owner,
    summary: mod.summary,
    downloads_count: mod.downloads_count,
    category: "utilities",
    releases: mod.releases.map((r) => ({
      download_url: `/download/${mod.name}/${r.id}`,
      file_name: r.file_name,
      info_json: full
        ? { factorio_version: r.factorio_version, dependencies: r.dependencies }
        : { factorio_version: r.factorio_version },
      released_at: r.released_at,
      sha1: r.sha1,
      version: r.version,
    })),
    ...(full
      ? { changelog: "", homepage: "", license: { name: "MIT" }, created_at: "2020-01-01T00:00:00Z" }
      : {}),
  };
}

export async function startFakePortal(opts: FakePortalOptions = {}): Promise<FakePortal> {
  const mods = await buildCatalog();
  const extra: ListEntry[] = syntheticEntries(opts.extraMods ?? 0);
  const requests: RecordedRequest[] = [];
  let limited = 0;
  let outage: number | null = null;
  let limitedFor = 1;
  let loginFailures = 0;
  let pacing: { chunk: number; everyMs: number; stallAfter?: number } | null = null;
  const loginLimit = opts.loginFailureLimit ?? 5;
  const hostname = opts.hostname ?? "127.0.0.1";

  const cdn = Deno.serve({ port: 0, hostname, onListen: () => {} }, (req) => {
    const url = new URL(req.url);
    requests.push({ server: "cdn", method: req.method, path: url.pathname, query: url.search, body: "" });
    const m = /^\/files\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    const release = m &&
      mods.flatMap((mod) => mod.releases).find((r) =>
        r.id === m[1] && r.file_name === decodeURIComponent(m[2])
      );
    if (!release) return new Response("Not found", { status: 404 });
    const bytes = release.bytes;
    const pace = pacing;
    if (pace) {
      let sent = 0;
      let timer: ReturnType<typeof setTimeout> | undefined;
      let stalled: (() => void) | undefined;
      const body = new ReadableStream<Uint8Array>({
        pull: (ctrl) =>
          new Promise<void>((done) => {
            if (pace.stallAfter !== undefined && sent >= pace.stallAfter) {
              stalled = done; // nothing more until the client gives up
              return;
            }
            timer = setTimeout(() => {
              const piece = bytes.subarray(sent, sent + pace.chunk);
              sent += piece.length;
              if (piece.length) ctrl.enqueue(piece);
              if (sent >= bytes.length) ctrl.close();
              done();
            }, pace.everyMs);
          }),
        cancel: () => {
          clearTimeout(timer);
          stalled?.(); // lets the server shut down
        },
      });
      return new Response(body, {
        headers: { "Content-Type": "application/zip", "Content-Length": String(bytes.length) },
      });
    }
    return new Response(release.bytes as BodyInit, {
      headers: { "Content-Type": "application/zip", "Content-Length": String(release.bytes.length) },
    });
  });
  const cdnUrl = `http://${hostname}:${cdn.addr.port}`;

  const list = () => {
    const results = [
      ...mods.map((m) => {
        const { releases, ...rest } = shortRecord(m, false);
        return { ...rest, latest_release: releases.at(-1) };
      }),
      ...extra,
    ];
    return {
      pagination: { count: results.length, page: 1, page_count: 1, page_size: results.length, links: {} },
      results,
    };
  };

  const portal = Deno.serve({ port: opts.port ?? 0, hostname, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    const body = req.method === "POST" ? await req.text() : "";
    requests.push({ server: "portal", method: req.method, path: url.pathname, query: url.search, body });

    if (req.method === "POST" && url.pathname === "/api-login") {
      if (loginFailures >= loginLimit) {
        return json({ error: "too-many-requests", message: "Too many attempts" }, 429, {
          "Retry-After": "120",
        });
      }
      const form = new URLSearchParams(body);
      const who = form.get("username") ?? "";
      const user = USERS.find((u) => u.username === who || u.email === who);
      if (user && form.get("password") === user.password) {
        if (form.get("api_version") !== "6") return json([user.token]); // the old answer: a bare array
        return json({ token: user.token, username: user.username });
      }
      if (who === NEEDS_EMAIL_CODE.username && form.get("password") === NEEDS_EMAIL_CODE.password) {
        return json({
          error: "email-authentication-required",
          message: "Please enter the code sent to your e-mail.",
        });
      }
      loginFailures++;
      return json({ error: "login-failed", message: "Username or password is incorrect." });
    }

    if (outage !== null) return json({ message: "Service unavailable" }, outage);
    if (limited > 0) {
      limited--;
      return json({ message: "Too many requests" }, 429, { "Retry-After": String(limitedFor) });
    }

    if (req.method === "GET" && url.pathname === "/api/mods") return json(list());
    const details = /^\/api\/mods\/([^/]+)(\/full)?$/.exec(url.pathname);
    if (req.method === "GET" && details) {
      const mod = mods.find((m) => m.name === decodeURIComponent(details[1]));
      if (!mod) return json({ message: "Mod not found" }, 404);
      return json(shortRecord(mod, details[2] !== undefined));
    }
    const download = /^\/download\/([^/]+)\/([^/]+)$/.exec(url.pathname);
    if (req.method === "GET" && download) {
      const user = USERS.find((u) =>
        u.username === url.searchParams.get("username") && u.token === url.searchParams.get("token")
      );
      if (!user) return new Response("Forbidden", { status: 403 });
      const mod = mods.find((m) => m.name === decodeURIComponent(download[1]));
      const release = mod?.releases.find((r) => r.id === download[2]);
      if (!release) return new Response("Not found", { status: 404 });
      return new Response(null, {
        status: 302,
        headers: {
          Location: `${cdnUrl}/files/${release.id}/${
            encodeURIComponent(release.file_name)
          }?expires=9999999999`,
        },
      });
    }
    return json({ message: "Not found" }, 404);
  });
  const url = `http://${hostname}:${portal.addr.port}`;

  return {
    url,
    cdnUrl,
    mods,
    requests,
    pace(p) {
      pacing = p;
    },
    rateLimit(count, retryAfter = 1) {
      limited = count;
      limitedFor = retryAfter;
    },
    down(status) {
      outage = status;
    },
    hits: (prefix) => requests.filter((r) => r.server === "portal" && r.path.startsWith(prefix)),
    close: async () => {
      await Promise.all([portal.shutdown(), cdn.shutdown()]);
    },
  };
}
