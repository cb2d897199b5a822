import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { Hono } from "hono";
import { FLUSH_STEP, receiveUpload } from "./upload.ts";
import { HttpError, Invalid } from "../lib/errors.ts";
import { until } from "../../tests/support/until.ts";

/** A tiny server with one upload route, and a directory to watch. */
async function withUploadServer(
  fn: (url: string, dir: string) => Promise<void>,
  check?: (tempPath: string) => void,
  maxBytes = 1024 * 1024,
) {
  const dir = mkdtempSync(join(tmpdir(), "upload-"));
  const app = new Hono();
  app.onError((err, c) => c.json(err.message, (err instanceof HttpError ? err.status : 500) as 400));
  app.post("/up", async (c) => {
    const file = await receiveUpload(c, {
      field: "savefile",
      dir,
      maxBytes,
      missingMessage: "Savefile is required",
    });
    try {
      check?.(file.tempPath);
    } catch (e) {
      await file.discard();
      throw e;
    }
    await file.commit(join(dir, file.filename));
    return c.json({ name: file.filename, size: file.size });
  });
  const server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: () => {} }, app.fetch);
  try {
    await fn(`http://127.0.0.1:${server.addr.port}`, dir);
  } finally {
    await server.shutdown();
    rmSync(dir, { recursive: true, force: true });
  }
}

function form(field: string, name: string, bytes: Uint8Array): FormData {
  const f = new FormData();
  f.append("note", "hello");
  f.append(field, new File([bytes as BlobPart], name));
  return f;
}

Deno.test("a file streams to a temp file and is renamed into place only when complete", async () => {
  await withUploadServer(async (url, dir) => {
    const bytes = new Uint8Array(200_000).map((_, i) => (i * 31 + 7) % 256);
    const r = await fetch(url + "/up", {
      method: "POST",
      body: form("savefile", "../../evil/world.zip", bytes),
    });
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { name: "world.zip", size: 200_000 }, "the client's path is dropped");
    assert.deepEqual(readdirSync(dir), ["world.zip"]);
    assert.deepEqual(new Uint8Array(readFileSync(join(dir, "world.zip"))), bytes);
  });
});

Deno.test("a non-ASCII file name arrives as the browser sent it (UTF-8)", async () => {
  await withUploadServer(async (url, dir) => {
    const r = await fetch(url + "/up", {
      method: "POST",
      body: form("savefile", "été à Noël 工厂.zip", new Uint8Array(10)),
    });
    assert.equal(r.status, 200);
    assert.deepEqual(await r.json(), { name: "été à Noël 工厂.zip", size: 10 });
    assert.deepEqual(readdirSync(dir), ["été à Noël 工厂.zip"]);
  });
});

Deno.test("uploads that fail leave nothing behind and keep an existing file", async () => {
  await withUploadServer(async (url, dir) => {
    writeFileSync(join(dir, "world.zip"), "old");
    const cases: [RequestInit, number, RegExp][] = [
      [{ body: form("wrongfield", "world.zip", new Uint8Array(10)) }, 400, /Savefile is required/],
      [{ body: form("savefile", "world.zip", new Uint8Array(0)) }, 400, /Savefile is required/],
      [
        { body: form("savefile", "world.zip", new Uint8Array(2 * 1024 * 1024)) },
        413,
        /too large \(limit 1 MiB\)/,
      ],
      [{ body: "plain", headers: { "Content-Type": "text/plain" } }, 415, /multipart\/form-data/],
      [{ body: "x", headers: { "Content-Type": "multipart/form-data" } }, 415, /boundary/],
      [
        { body: "--b\r\nbroken", headers: { "Content-Type": "multipart/form-data; boundary=b" } },
        400,
        /incomplete or malformed/,
      ],
    ];
    for (const [init, status, message] of cases) {
      const r = await fetch(url + "/up", { method: "POST", ...init });
      assert.equal(r.status, status, String(message));
      assert.match(await r.json(), message);
      assert.deepEqual(readdirSync(dir), ["world.zip"], String(message));
      assert.equal(readFileSync(join(dir, "world.zip"), "utf8"), "old");
    }
  });
});

Deno.test("a failed content check discards the temp file", async () => {
  await withUploadServer(async (url, dir) => {
    const r = await fetch(url + "/up", {
      method: "POST",
      body: form("savefile", "x.zip", new Uint8Array(100)),
    });
    assert.equal(r.status, 400);
    assert.deepEqual(readdirSync(dir), []);
  }, () => {
    throw new Invalid("not a save");
  });
});

/** Opens a connection and sends an upload's request head and the file part's headers, promising `fileBytes` more. */
async function startUpload(url: string, fileBytes: number): Promise<Deno.Conn> {
  const { port } = new URL(url);
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: Number(port) });
  const boundary = "cutcutcut";
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="savefile"; filename="cut.zip"\r\n` +
    "Content-Type: application/zip\r\n\r\n";
  const request =
    `POST /up HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\n` +
    `Content-Length: ${head.length + fileBytes}\r\n\r\n${head}`;
  await conn.write(new TextEncoder().encode(request));
  return conn;
}

Deno.test("a connection cut mid-body leaves no file, not even a temp file", async () => {
  await withUploadServer(async (url, dir) => {
    const conn = await startUpload(url, 500_000);
    await conn.write(new Uint8Array(100_000));
    // Give the server time to start writing the temp file, then vanish.
    for (let i = 0; i < 50 && readdirSync(dir).length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(readdirSync(dir).length, 1, "the temp file existed while the upload ran");
    conn.close();
    for (let i = 0; i < 100 && readdirSync(dir).length > 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(readdirSync(dir), []);
  });
});

/**
 * The files under `dir` this process still has open, as `ls` lists /proc/<pid>/fd (Deno reads /proc/self
 * only with every permission, which the tests do not have).
 */
function openIn(dir: string): string[] {
  const { stdout } = new Deno.Command("ls", {
    args: ["-l", `/proc/${Deno.pid}/fd`],
    stdout: "piped",
    stderr: "null",
  }).outputSync();
  return new TextDecoder().decode(stdout).split("\n").map((l) => l.split(" -> ")[1] ?? "").filter((t) =>
    t.startsWith(dir + "/")
  );
}

Deno.test("a file longer than the flush step arrives whole, and both handles on it are closed", async () => {
  // Over two flush steps: flushes run (on their own handle) while the body still comes.
  const bytes = new Uint8Array(2 * FLUSH_STEP + 12_345).map((_, i) => (i * 131 + (i >> 20)) % 251);
  await withUploadServer(
    async (url, dir) => {
      const r = await fetch(url + "/up", { method: "POST", body: form("savefile", "big.zip", bytes) });
      assert.equal(r.status, 200);
      assert.deepEqual(await r.json(), { name: "big.zip", size: bytes.length });
      assert.deepEqual(readdirSync(dir), ["big.zip"]);
      assert.ok(readFileSync(join(dir, "big.zip")).equals(bytes), "the file holds the bytes sent");
      assert.deepEqual(openIn(dir), [], "no handle on the file stays open");
    },
    undefined,
    3 * FLUSH_STEP,
  );
});

Deno.test("a connection cut while a flush step is under way leaves no file", async () => {
  await withUploadServer(
    async (url, dir) => {
      const conn = await startUpload(url, 2 * FLUSH_STEP);
      const piece = new Uint8Array(1024 * 1024).fill(7);
      // Well past the first step: Deno's server may leave the last few MiB a paused client sent unread
      // until more comes.
      for (let sent = 0; sent < FLUSH_STEP + 16 * piece.length; sent += piece.length) await conn.write(piece);
      // Past the first flush step: wait until the temp file holds more than that, then vanish.
      const size = () => readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
      await until("the temp file to grow past the first flush step", () => size() > FLUSH_STEP, 5_000);
      conn.close();
      await until(
        "the temp file and its handles to go",
        () => readdirSync(dir).length === 0 && openIn(dir).length === 0,
        5_000,
      )
        .catch(() => {});
      assert.deepEqual(readdirSync(dir), []);
      assert.deepEqual(openIn(dir), [], "no handle on the removed temp file stays open");
    },
    undefined,
    3 * FLUSH_STEP,
  );
});
