// Shared bits of the benchmark scripts: start a real panel process and read its memory.

import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { DENO, PANEL_PERMISSIONS, ROOT, spawnPanel } from "../scripts/launcher.mjs";

export { DENO, PANEL_PERMISSIONS, ROOT };

/** Starts the panel as `npm start` does (the launcher's command) on a free port; resolves once it prints its URL. */
export function startPanel({ dataDir, args = [], env = {} } = {}) {
  const dir = dataDir ?? mkdtempSync(join(tmpdir(), "panel-bench-"));
  const started = performance.now();
  const child = spawnPanel(["--port", "0", "--bind", "127.0.0.1", "--data-dir", dir, ...args], {
    env: { ...process.env, PANEL_ADMIN_PASSWORD: "bench-password", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  return new Promise((ok, fail) => {
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (https?:\/\/\S+)/.exec(out);
      if (m) ok({ url: m[1], child, started, dataDir: dir, ownDir: !dataDir, output: () => out });
    });
    child.stderr.on("data", (d) => (out += d));
    child.on("exit", (code) => fail(new Error(`panel exited (${code}): ${out}`)));
  });
}

/**
 * For a bench written against the backend's TypeScript: under Node, runs `file` (its import.meta.url)
 * again under Deno with the panel's permissions and the same arguments, then exits with its status.
 * Under Deno it returns at once.
 */
export function rerunUnderDeno(file) {
  if (typeof Deno !== "undefined") return;
  const r = spawnSync(DENO, ["run", ...PANEL_PERMISSIONS, fileURLToPath(file), ...process.argv.slice(2)], {
    cwd: ROOT,
    stdio: "inherit",
  });
  process.exit(r.status ?? 1);
}

/** A JSON client for a bench panel that keeps the session cookie and sends the panel's own Origin. */
export function panelClient(panel) {
  let cookie = "";
  return async function api(method, path, body) {
    const res = await fetch(panel.url + path, {
      method,
      headers: { Origin: panel.url, Cookie: cookie, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const set = res.headers.get("set-cookie");
    if (set) cookie = set.split(";")[0];
    const data = await res.json();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(data)}`);
    return data;
  };
}

export async function stopPanel(p) {
  const exited = new Promise((r) => p.child.once("exit", r));
  p.child.kill("SIGTERM");
  await exited;
  if (p.ownDir) rmSync(p.dataDir, { recursive: true, force: true });
}

/** Resident memory of a process in MiB, from /proc. */
export function rssMiB(pid, field = "VmRSS") {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

export function median(values) {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export function percentile(values, p) {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

/**
 * Writes a zip to `path` in one pass, streaming each entry's chunks (an async iterable of Buffers), stored
 * or deflated, with data descriptors. Enough for saves under 4 GiB; returns the file size.
 */
export async function writeZip(path, entries) {
  const { open } = await import("node:fs/promises");
  const zlib = await import("node:zlib");
  const fh = await open(path, "w");
  let offset = 0;
  const write = async (buf) => {
    await fh.write(buf);
    offset += buf.length;
  };
  const central = [];
  for (const { name, chunks, method = "store" } of entries) {
    const nameBuf = Buffer.from(name);
    const start = offset;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0808, 6); // data descriptor, UTF-8 name
    local.writeUInt16LE(method === "deflate" ? 8 : 0, 8);
    local.writeUInt16LE(nameBuf.length, 26);
    await write(Buffer.concat([local, nameBuf]));
    let crc = 0;
    let size = 0;
    let csize = 0;
    if (method === "deflate") {
      const deflater = zlib.createDeflateRaw({ level: 1 });
      const done = (async () => {
        for await (const out of deflater) {
          csize += out.length;
          await write(out);
        }
      })();
      for await (const chunk of chunks()) {
        crc = zlib.crc32(chunk, crc);
        size += chunk.length;
        if (!deflater.write(chunk)) await new Promise((r) => deflater.once("drain", r));
      }
      deflater.end();
      await done;
    } else {
      for await (const chunk of chunks()) {
        crc = zlib.crc32(chunk, crc);
        size += chunk.length;
        csize += chunk.length;
        await write(chunk);
      }
    }
    const descriptor = Buffer.alloc(16);
    descriptor.writeUInt32LE(0x08074b50, 0);
    descriptor.writeUInt32LE(crc >>> 0, 4);
    descriptor.writeUInt32LE(csize, 8);
    descriptor.writeUInt32LE(size, 12);
    await write(descriptor);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0x0808, 8);
    c.writeUInt16LE(method === "deflate" ? 8 : 0, 10);
    c.writeUInt32LE(crc >>> 0, 16);
    c.writeUInt32LE(csize, 20);
    c.writeUInt32LE(size, 24);
    c.writeUInt16LE(nameBuf.length, 28);
    c.writeUInt32LE(start, 42);
    central.push(Buffer.concat([c, nameBuf]));
  }
  const cdStart = offset;
  const cd = Buffer.concat(central);
  await write(cd);
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(central.length, 8);
  eocd.writeUInt16LE(central.length, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(cdStart, 16);
  await write(eocd);
  await fh.close();
  return offset;
}

/** `total` bytes of data that does not compress (like a map), in 1 MiB chunks. */
export async function* filler(total, chunk = 1024 * 1024) {
  const { randomBytes } = await import("node:crypto");
  const base = randomBytes(chunk);
  for (let left = total, i = 0; left > 0; left -= chunk, i++) {
    const b = Buffer.from(base.subarray(0, Math.min(chunk, left)));
    b.writeUInt32LE(i, 0);
    yield b;
  }
}

/** Signs in as the bench admin and returns the session cookie. */
export async function benchLogin(url) {
  const r = await fetch(url + "/api/login", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ username: "admin", password: "bench-password" }),
  });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${await r.text()}`);
  return r.headers.getSetCookie().map((c) => c.split(";")[0]).find((c) => c.startsWith("authentication="));
}

/**
 * The headers a panel answer carries beyond Content-Type that a bare server would not send by itself
 * (Cache-Control, X-Content-Type-Options, ...): for a reference answering exactly as the panel does.
 */
export function panelHeaders(res) {
  // Framing and the date: every server sends those, the bare one too.
  const skip = new Set(["content-type", "content-length", "date", "connection", "keep-alive"]);
  return Object.fromEntries([...res.headers].filter(([k]) => !skip.has(k)));
}

/**
 * Starts bench/bare-server.ts answering `body` (a string) to every request; resolves to { url, child }.
 * `headers`: more headers on each answer (panelHeaders()). `sink`: a folder POST bodies are written to.
 * `tls`: { cert, key } files, to serve HTTPS.
 */
export function startBare(
  body,
  contentType = "application/json",
  { sink = null, headers = {}, tls = null } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), "bench-bare-"));
  const file = join(dir, "body");
  writeFileSync(file, body);
  const child = spawn(DENO, [
    "run",
    ...PANEL_PERMISSIONS,
    "bench/bare-server.ts",
    file,
    contentType,
    ...(sink ? ["--sink", sink] : []),
    ...(tls ? ["--tls", tls.cert, tls.key] : []),
    ...Object.entries(headers).flatMap(([k, v]) => ["--header", `${k}: ${v}`]),
  ], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" },
  });
  return listening(child, "bare server").then((url) => ({ url, child, dir }));
}

/** The URL a started server prints ("listening on URL") on its stdout; rejects if it exits first. */
export function listening(child, name) {
  let out = "";
  return new Promise((ok, fail) => {
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening on (\S+)/.exec(out);
      if (m) ok(m[1]);
    });
    child.on("exit", (code) => fail(new Error(`${name} exited (${code}): ${out}`)));
  });
}

/** Stops a server of startBare() and removes the folder of its body. */
export async function stopBare(b) {
  const exited = new Promise((r) => b.child.once("exit", r));
  b.child.kill("SIGTERM");
  await exited;
  rmSync(b.dir, { recursive: true, force: true });
}

/**
 * Runs Debian's wrk (apt-get install wrk) against `url` for `seconds` with `connections`, and returns
 * { rps, p50, p99 } (ms). Bounded: 127.0.0.1 only, a fixed duration.
 */
export function wrk(url, { connections = 50, seconds = 5, threads = 2, headers = {} } = {}) {
  if (!/^http:\/\/127\.0\.0\.1:/.test(url)) throw new Error("wrk runs against 127.0.0.1 only");
  const args = ["-t", String(threads), "-c", String(connections), "-d", `${seconds}s`, "--latency"];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
  const r = spawnSync("wrk", [...args, url], { encoding: "utf8" });
  if (r.error) throw new Error(`wrk: ${r.error.message} (apt-get install wrk)`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(r.stdout)?.[1]);
  const unit = (v, u) => Number(v) * ({ us: 0.001, ms: 1, s: 1000 }[u] ?? 1);
  const lat = (p) => {
    const m = new RegExp(`\\s${p}%\\s+([\\d.]+)(us|ms|s)`).exec(r.stdout);
    return m ? unit(m[1], m[2]) : NaN;
  };
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(r.stdout);
  if (non2xx) throw new Error(`wrk: ${non2xx[1]} failed answers from ${url}`);
  return { rps, p50: lat(50), p99: lat(99) };
}
