// A local double of the parts of factorio.com the panel uses to install the game, on a real socket:
//
//   GET /api/latest-releases                      {"stable":{"alpha","demo","expansion","headless"},"experimental":{...}}
//   GET /download/archive/                        HTML: one <a href="/download/archive/x.y.z" class="... version-button-stable">
//                                                 per version, newest first (the real page has no JSON)
//   GET /download/sha256sums/                     "<sha256>  <file>" lines; 2.x files are named
//                                                 factorio-headless_linux_<v>.tar.xz, older ones factorio_headless_x64_<v>.tar.xz;
//                                                 2.1 and later also have factorio-headless_linux-arm64_<v>.tar.xz
//   GET /get-download/<v|stable|latest>/headless/linux64   302 to /cdn/<file> (the real one redirects to a CDN)
//   GET /get-download/<v|stable|latest>/headless/linux-arm64   the native ARM64 build (2.1 and later; bin/arm64 inside)
//   GET /cdn/<file>                               the tarball (built from the simulator at that version)
//
// HTTP is written by hand over Deno.listen, so the failure modes can do what a broken network does:
// a Content-Length the body never reaches (truncated), a body that trickles (slow), a size no disk holds.
// Modes per version (setMode): wrong-checksum, missing-checksum, truncated, stall (half, then silence),
// slow, 404, huge, and the
// archive kinds of tarball.ts (crash, wrong-inside, dotdot, absolute, link).
// Every request is recorded (path and headers) so tests can see that no credential is ever sent.

import { buildTarball, type TarballKind } from "./tarball.ts";

export type Channel = "stable" | "experimental";
export type Mode =
  | "ok"
  | "wrong-checksum"
  | "missing-checksum"
  | "truncated"
  | "stall"
  | "slow"
  | "404"
  | "huge"
  | Exclude<TarballKind, "normal">;

export interface Release {
  version: string;
  channel: Channel;
}

export interface FakeFactorioComOptions {
  /** Releases, any order. Default: 1.1.110 and 2.0.76/2.0.77 stable, 2.1.12 experimental. */
  releases?: Release[];
  cacheDir: string;
  port?: number;
  /** Incompressible bytes in every tarball (the bench uses ~60 MB). */
  paddingBytes?: number;
  /** Bytes per second of a "slow" body. */
  slowBytesPerSecond?: number;
}

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
}

export interface FakeFactorioCom {
  url: string;
  requests: RecordedRequest[];
  releases: Release[];
  setMode(version: string, mode: Mode): void;
  /** Publishes a new release (it becomes the channel's latest when newer). */
  release(version: string, channel: Channel): void;
  /** The tarball served for `version` (built on first use), of the x64 build unless `arch` says arm64. */
  tarball(version: string, arch?: Arch): Promise<{ path: string; size: number; sha256: string }>;
  close(): Promise<void>;
}

export const DEFAULT_RELEASES: Release[] = [
  { version: "1.1.110", channel: "stable" },
  { version: "2.0.76", channel: "stable" },
  { version: "2.0.77", channel: "stable" },
  { version: "2.1.12", channel: "experimental" },
];

const ARCHIVE_KINDS = new Set<Mode>(["crash", "wrong-inside", "dotdot", "absolute", "link"]);

function cmp(a: string, b: string): number {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i] - pb[i];
  return 0;
}

export type Arch = "x64" | "arm64";

export function tarballName(version: string, arch: Arch = "x64"): string {
  if (arch === "arm64") return `factorio-headless_linux-arm64_${version}.tar.xz`;
  return Number(version.split(".")[0]) >= 2
    ? `factorio-headless_linux_${version}.tar.xz`
    : `factorio_headless_x64_${version}.tar.xz`;
}

/** Factorio ships a native ARM64 headless build from 2.1 on. */
export function hasArm64Build(version: string): boolean {
  const [major, minor] = version.split(".").map(Number);
  return major > 2 || (major === 2 && minor >= 1);
}

export function startFakeFactorioCom(opts: FakeFactorioComOptions): FakeFactorioCom {
  const releases = [...(opts.releases ?? DEFAULT_RELEASES)];
  const modes = new Map<string, Mode>();
  const requests: RecordedRequest[] = [];
  const encoder = new TextEncoder();
  const listener = Deno.listen({ hostname: "127.0.0.1", port: opts.port ?? 0 });
  const url = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  const conns = new Set<Deno.Conn>();
  const stalls = new Set<() => void>();

  const latest = (channel: Channel) => {
    // Experimental is the newest release of any channel: every stable release was experimental first.
    const pool = channel === "stable" ? releases.filter((r) => r.channel === "stable") : releases;
    return pool.map((r) => r.version).sort(cmp).at(-1) ?? "";
  };
  const tarball = (version: string, arch: Arch = "x64") => {
    const mode = modes.get(version) ?? "ok";
    const kind: TarballKind = ARCHIVE_KINDS.has(mode) ? (mode as TarballKind) : "normal";
    return buildTarball(opts.cacheDir, version, kind, { paddingBytes: opts.paddingBytes, arch });
  };

  async function writeAll(conn: Deno.Conn, bytes: Uint8Array): Promise<void> {
    let off = 0;
    while (off < bytes.length) off += await conn.write(bytes.subarray(off));
  }
  async function head(
    conn: Deno.Conn,
    status: string,
    headers: Record<string, string | number>,
  ): Promise<void> {
    const lines = [
      `HTTP/1.1 ${status}`,
      "Connection: close",
      ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    ];
    await writeAll(conn, encoder.encode(lines.join("\r\n") + "\r\n\r\n"));
  }
  async function text(
    conn: Deno.Conn,
    status: string,
    body: string,
    type = "text/plain; charset=utf-8",
  ): Promise<void> {
    const bytes = encoder.encode(body);
    await head(conn, status, { "Content-Type": type, "Content-Length": bytes.length });
    await writeAll(conn, bytes);
  }

  async function serveFile(conn: Deno.Conn, version: string, arch: Arch): Promise<void> {
    const mode = modes.get(version) ?? "ok";
    if (mode === "404") return text(conn, "404 Not Found", "Not found");
    const file = await tarball(version, arch);
    if (mode === "huge") {
      // A size no disk here has room for; the panel must refuse before writing anything.
      await head(conn, "200 OK", { "Content-Type": "application/x-xz", "Content-Length": 2 ** 50 });
      return;
    }
    await head(conn, "200 OK", { "Content-Type": "application/x-xz", "Content-Length": file.size });
    const limit = mode === "truncated" || mode === "stall" ? Math.floor(file.size / 2) : file.size;
    const rate = opts.slowBytesPerSecond ?? 64 * 1024;
    using f = await Deno.open(file.path);
    const buf = new Uint8Array(mode === "slow" ? Math.max(16, Math.floor(rate / 10)) : 256 * 1024);
    let sent = 0;
    while (sent < limit) {
      const n = await f.read(buf.subarray(0, Math.min(buf.length, limit - sent)));
      if (n === null) break;
      await writeAll(conn, buf.subarray(0, n));
      sent += n;
      if (mode === "slow") await new Promise((r) => setTimeout(r, 100));
    }
    // A connection that stays open and sends nothing more, until the client gives up (or the double closes).
    if (mode === "stall") await new Promise<void>((r) => stalls.add(r));
  }

  async function handle(conn: Deno.Conn): Promise<void> {
    let raw = "";
    const buf = new Uint8Array(8192);
    while (!raw.includes("\r\n\r\n")) {
      const n = await conn.read(buf);
      if (n === null) return;
      raw += new TextDecoder().decode(buf.subarray(0, n));
      if (raw.length > 65536) return;
    }
    const [requestLine, ...headerLines] = raw.slice(0, raw.indexOf("\r\n\r\n")).split("\r\n");
    const [method, target] = requestLine.split(" ");
    const headers: Record<string, string> = {};
    for (const l of headerLines) {
      const i = l.indexOf(":");
      if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
    }
    const path = new URL(target, url).pathname;
    requests.push({ method, path, headers });

    if (path === "/api/latest-releases") {
      const set = (v: string) => ({ alpha: v, demo: "1.1.110", expansion: v, headless: v });
      return text(
        conn,
        "200 OK",
        JSON.stringify({ experimental: set(latest("experimental")), stable: set(latest("stable")) }),
        "application/json",
      );
    }
    if (path === "/download/archive/" || path === "/download/archive") {
      const links = releases
        .map((r) => r.version)
        .sort((a, b) => cmp(b, a))
        .map((v) => {
          const channel = releases.find((r) => r.version === v)!.channel;
          return `        <a href="/download/archive/${v}" class="slot-button-inline version-button-${channel}">${v}</a>`;
        });
      return text(
        conn,
        "200 OK",
        `<!DOCTYPE html>\n<html><body>\n<h2>Download archive</h2>\n<div class="panel">\n${
          links.join("\n")
        }\n</div>\n</body></html>\n`,
        "text/html; charset=utf-8",
      );
    }
    if (path === "/download/sha256sums/" || path === "/download/sha256sums") {
      const lines: string[] = [];
      for (const r of [...releases].sort((a, b) => cmp(a.version, b.version))) {
        const mode = modes.get(r.version) ?? "ok";
        // Other builds of the same release share the list, as on the real site.
        lines.push(`${"0".repeat(63)}1  factorio_linux_${r.version}.tar.xz`);
        if (mode === "missing-checksum") continue;
        // Each build has its own line (and its own sum); a mode applies to every build of the version.
        for (const arch of hasArm64Build(r.version) ? ["x64", "arm64"] as const : ["x64"] as const) {
          const sum = (await tarball(r.version, arch)).sha256;
          lines.push(
            `${mode === "wrong-checksum" ? sum.replace(/^./, (c) => (c === "0" ? "1" : "0")) : sum}  ${
              tarballName(r.version, arch)
            }`,
          );
        }
      }
      return text(conn, "200 OK", lines.join("\n") + "\n");
    }
    // Test control for a double running as its own process (e2e): POST /_fake/release?version=&channel=,
    // POST /_fake/mode?version=&mode=.
    if (method === "POST" && path.startsWith("/_fake/")) {
      const q = new URL(target, url).searchParams;
      const version = q.get("version") ?? "";
      if (path === "/_fake/release") api.release(version, (q.get("channel") ?? "stable") as Channel);
      else if (path === "/_fake/mode") api.setMode(version, (q.get("mode") ?? "ok") as Mode);
      else return text(conn, "404 Not Found", "Not found");
      return text(conn, "200 OK", "ok");
    }
    const get = /^\/get-download\/([^/]+)\/headless\/(linux64|linux-arm64)$/.exec(path);
    if (get) {
      const wanted = get[1] === "stable"
        ? latest("stable")
        : get[1] === "latest"
        ? latest("experimental")
        : get[1];
      const arch: Arch = get[2] === "linux-arm64" ? "arm64" : "x64";
      if (!releases.some((r) => r.version === wanted)) return text(conn, "404 Not Found", "Not found");
      if (arch === "arm64" && !hasArm64Build(wanted)) return text(conn, "404 Not Found", "Not found");
      await head(conn, "302 Found", {
        Location: `${url}/cdn/${tarballName(wanted, arch)}?expires=1&sig=fake`,
        "Content-Length": 0,
      });
      return;
    }
    const cdn =
      /^\/cdn\/factorio(-headless_linux-arm64|-headless_linux|_headless_x64)_(\d+\.\d+\.\d+)\.tar\.xz$/.exec(
        path,
      );
    if (cdn && releases.some((r) => r.version === cdn[2])) {
      const arch: Arch = cdn[1] === "-headless_linux-arm64" ? "arm64" : "x64";
      if (arch === "arm64" && !hasArm64Build(cdn[2])) return text(conn, "404 Not Found", "Not found");
      return serveFile(conn, cdn[2], arch);
    }
    return text(conn, "404 Not Found", "Not found");
  }

  (async () => {
    for await (const conn of listener) {
      conns.add(conn);
      handle(conn)
        .catch(() => {})
        .finally(() => {
          conns.delete(conn);
          try {
            conn.close();
          } catch {
            // closed by the peer
          }
        });
    }
  })().catch(() => {});

  const api: FakeFactorioCom = {
    url,
    requests,
    releases,
    setMode: (version, mode) => void modes.set(version, mode),
    release: (version, channel) => {
      if (!releases.some((r) => r.version === version)) releases.push({ version, channel });
    },
    tarball: (version, arch) => tarball(version, arch),
    close: async () => {
      listener.close();
      for (const r of stalls) r();
      for (const c of conns) {
        try {
          c.close();
        } catch {
          // already closed
        }
      }
      conns.clear();
      await new Promise((r) => setTimeout(r, 0));
    },
  };
  return api;
}
