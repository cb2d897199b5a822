// Large uploads through a real panel process started as `npm start` starts it: on a new connection (whose
// first request the gate answers itself, direct.ts) and on a connection that already carried a request (Deno's
// server after the hand-over), byte for byte; refusals leave nothing behind.

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startPanelProcess } from "../testing/process.ts";
import { zipStream } from "../factorio/zip.ts";

const PASSWORD = "upload test password";

/** A save zip of about `mib` MiB whose bytes are not all alike. */
async function saveZip(mib: number): Promise<Uint8Array<ArrayBuffer>> {
  const level = new Uint8Array(mib * 1024 * 1024).map((_, i) => (i * 131 + (i >> 11)) % 251);
  const head = new TextEncoder().encode("level-init");
  const stream = zipStream([
    { name: "world/level-init.dat", data: head, size: head.length },
    { name: "world/level.dat0", data: level, size: level.length },
  ]);
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function digest(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  return Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes)), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A multipart body as a browser sends it, with the file in the field "savefile". */
function form(file: Uint8Array, filename: string): { body: Uint8Array; type: string } {
  const boundary = "----panel-test-" + crypto.randomUUID();
  const enc = new TextEncoder();
  const head = enc.encode(
    `--${boundary}\r\nContent-Disposition: form-data; name="savefile"; filename="${filename}"\r\nContent-Type: application/zip\r\n\r\n`,
  );
  const tail = enc.encode(`\r\n--${boundary}--\r\n`);
  const body = new Uint8Array(head.length + file.length + tail.length);
  body.set(head);
  body.set(file, head.length);
  body.set(tail, head.length + file.length);
  return { body, type: `multipart/form-data; boundary=${boundary}` };
}

/** Sends raw requests on one connection and reads each answer's status and body (Content-Length framed). */
class RawConnection {
  #buf = new Uint8Array(0);
  private constructor(readonly conn: Deno.Conn) {}

  static async open(url: string): Promise<RawConnection> {
    return new RawConnection(await Deno.connect({ hostname: "127.0.0.1", port: Number(new URL(url).port) }));
  }

  async request(head: string, body: Uint8Array = new Uint8Array(0)): Promise<{ status: number; head: string; body: string }> {
    const bytes = new TextEncoder().encode(head);
    const all = new Uint8Array(bytes.length + body.length);
    all.set(bytes);
    all.set(body, bytes.length);
    for (let at = 0; at < all.length;) at += await this.conn.write(all.subarray(at, at + 256 * 1024));
    for (;;) {
      const text = new TextDecoder("latin1").decode(this.#buf);
      const end = text.indexOf("\r\n\r\n");
      if (end >= 0) {
        const answerHead = text.slice(0, end);
        if (/^HTTP\/1\.1 100 /.test(answerHead)) {
          this.#buf = this.#buf.subarray(end + 4);
          continue;
        }
        const length = Number(/content-length: (\d+)/i.exec(answerHead)?.[1] ?? NaN);
        assert.ok(Number.isFinite(length), `an answer without a length: ${answerHead}`);
        if (this.#buf.length >= end + 4 + length) {
          const answerBody = new TextDecoder().decode(this.#buf.subarray(end + 4, end + 4 + length));
          this.#buf = this.#buf.subarray(end + 4 + length);
          return { status: Number(answerHead.split(" ")[1]), head: answerHead, body: answerBody };
        }
      }
      const chunk = new Uint8Array(64 * 1024);
      const n = await this.conn.read(chunk);
      if (n === null) throw new Error(`the connection closed after: ${text.slice(0, 300)}`);
      const next = new Uint8Array(this.#buf.length + n);
      next.set(this.#buf);
      next.set(chunk.subarray(0, n), this.#buf.length);
      this.#buf = next;
    }
  }

  close(): void {
    try {
      this.conn.close();
    } catch {
      // already closed
    }
  }
}

Deno.test("large uploads arrive whole on a new connection and on a kept one; refusals leave nothing", async () => {
  const root = Deno.makeTempDirSync({ prefix: "panel-direct-" });
  const saves = join(root, "factorio", "saves");
  mkdirSync(saves, { recursive: true });
  const panel = await startPanelProcess({
    args: ["--port", "0", "--bind", "127.0.0.1", "--data-dir", join(root, "data"), "--factorio-dir", join(root, "factorio")],
    env: { PANEL_ADMIN_PASSWORD: PASSWORD },
  });
  const conns: RawConnection[] = [];
  try {
    const c = await panel.login("admin", PASSWORD);
    const cookie = c.cookie!;
    const host = new URL(panel.url).host;
    const zip = await saveZip(3);
    const upload = (name: string, extra = "") => {
      const f = form(zip, name);
      return {
        head: `POST /api/saves/upload HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${panel.url}\r\nCookie: ${cookie}\r\n` +
          `Content-Type: ${f.type}\r\nContent-Length: ${f.body.length}\r\n${extra}\r\n`,
        body: f.body,
      };
    };

    // The first request of a new connection, then more on it (handed over to Deno's server).
    const fresh = await RawConnection.open(panel.url);
    conns.push(fresh);
    let u = upload("fresh.zip");
    let r = await fresh.request(u.head, u.body);
    assert.equal(r.status, 200, r.body);
    const want = await digest(zip);
    assert.equal(await digest(Deno.readFileSync(join(saves, "fresh.zip"))), want);
    u = upload("kept.zip", "Expect: 100-continue\r\n");
    r = await fresh.request(u.head, u.body);
    assert.equal(r.status, 200, r.body);
    assert.equal(await digest(Deno.readFileSync(join(saves, "kept.zip"))), want);
    r = await fresh.request(`GET /api/saves/list HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n\r\n`);
    assert.deepEqual(JSON.parse(r.body).map((s: { name: string }) => s.name), ["fresh.zip", "kept.zip", "Load Latest"]);

    // A client that waits for 100 Continue, refused (no session): told at once, and the connection closes.
    const refused = await RawConnection.open(panel.url);
    conns.push(refused);
    const f = form(zip, "nobody.zip");
    await refused.conn.write(new TextEncoder().encode(
      `POST /api/saves/upload HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${panel.url}\r\nContent-Type: ${f.type}\r\n` +
        `Content-Length: ${f.body.length}\r\nExpect: 100-continue\r\n\r\n`,
    ));
    r = await refused.request("");
    assert.equal(r.status, 401);
    assert.match(r.head, /connection: close/i);
    await assert.rejects(refused.request(`GET /api/user/status HTTP/1.1\r\nHost: ${host}\r\n\r\n`), /closed/);

    // Not a save: refused after the whole body came (415), and the same connection goes on.
    const wrong = await RawConnection.open(panel.url);
    conns.push(wrong);
    const notZip = form(new Uint8Array(2 * 1024 * 1024).fill(7), "junk.zip");
    r = await wrong.request(
      `POST /api/saves/upload HTTP/1.1\r\nHost: ${host}\r\nOrigin: ${panel.url}\r\nCookie: ${cookie}\r\n` +
        `Content-Type: ${notZip.type}\r\nContent-Length: ${notZip.body.length}\r\n\r\n`,
      notZip.body,
    );
    assert.equal(r.status, 415, r.body);
    r = await wrong.request(`GET /api/user/status HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n\r\n`);
    assert.equal(r.status, 200);

    // A client that leaves mid-upload: no file, no temp file, and the panel answers on.
    const cut = await RawConnection.open(panel.url);
    u = upload("cut.zip");
    await cut.conn.write(new TextEncoder().encode(u.head));
    await cut.conn.write(u.body.subarray(0, 1024 * 1024));
    cut.close();
    await new Promise((r) => setTimeout(r, 500));
    r = await wrong.request(`GET /api/saves/list HTTP/1.1\r\nHost: ${host}\r\nCookie: ${cookie}\r\n\r\n`);
    assert.equal(r.status, 200);
    assert.deepEqual(readdirSync(saves).sort(), ["fresh.zip", "kept.zip"]);
    assert.ok(!existsSync(join(saves, "junk.zip")));
  } finally {
    for (const c of conns) c.close();
    await panel.stop();
    Deno.removeSync(root, { recursive: true });
  }
});
