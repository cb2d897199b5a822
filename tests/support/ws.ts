// A /ws client for tests: carries the session cookie on the upgrade (Deno's WebSocket accepts headers)
// and collects what the server sends, with waits that fail with a clear message instead of hanging.

import type { Client } from "./harness.ts";
import type { ServerMessage } from "../../shared/ws.ts";

export class TestSocket {
  readonly messages: ServerMessage[] = [];
  closed: { code: number; reason: string } | null = null;
  #waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.onmessage = (e) => {
      try {
        this.messages.push(JSON.parse(e.data));
      } catch {
        this.messages.push({ room_name: "gamelog", message: `<<non-JSON: ${e.data}>>`, server: 0 });
      }
      this.#wake();
    };
    ws.onclose = (e) => {
      this.closed = { code: e.code, reason: e.reason };
      this.#wake();
    };
  }

  static async connect(client: Client, origin = client.origin): Promise<TestSocket> {
    const url = client.base.replace(/^http/, "ws") + "/ws";
    // A script's client (testing/roles.ts TokenClient) sends its API token instead of a cookie.
    const token = (client as { token?: string }).token;
    const headers = token
      ? { Authorization: `Bearer ${token}` }
      : { Cookie: client.cookie ?? "", Origin: origin };
    // deno-lint-ignore no-explicit-any
    const ws = new (WebSocket as any)(url, { headers }) as WebSocket;
    const socket = new TestSocket(ws);
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => resolve();
      ws.onerror = (e) => reject(new Error(`WebSocket failed: ${(e as ErrorEvent).message ?? e.type}`));
    });
    return socket;
  }

  send(data: unknown): void {
    this.ws.send(typeof data === "string" ? data : JSON.stringify(data));
  }

  /** `batch`: take several gamelog lines per message, as the PWA does. */
  subscribe(room: string, opts: { batch?: boolean } = {}): void {
    this.send({
      room_name: "",
      controls: { type: "subscribe", value: room, ...(opts.batch ? { batch: true } : {}) },
    });
  }

  unsubscribe(room: string): void {
    this.send({ room_name: "", controls: { type: "unsubscribe", value: room } });
  }

  command(text: string): void {
    this.send({ room_name: "", controls: { type: "command", value: text } });
  }

  /** Waits until `predicate` holds for the messages so far (or the socket state). */
  async waitFor(predicate: (s: TestSocket) => boolean, what: string, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this)) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`Timed out waiting for ${what}; got ${JSON.stringify(this.messages.slice(-10))}`);
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Waits for a message in `room` matching `match` and returns it. */
  async waitForMessage(room: string, match: (message: string) => boolean, timeoutMs = 5000): Promise<string> {
    let found: string | undefined;
    await this.waitFor(
      (s) => {
        found = s.messages.find((m) => m.room_name === room && match(m.message))?.message;
        return found !== undefined;
      },
      `a ${room} message`,
      timeoutMs,
    );
    return found!;
  }

  async close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return;
    const done = new Promise<void>((r) => this.#waiters.push(() => this.closed && r()));
    this.ws.close();
    await Promise.race([done, new Promise((r) => setTimeout(r, 1000))]);
  }

  #wake() {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}
