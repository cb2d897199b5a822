// The live socket against a stand-in WebSocket: after a reconnect the room is subscribed again and its
// replay replaces what a page kept, instead of being appended a second time.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LiveSocket } from "./socket.ts";

class FakeWebSocket {
  static OPEN = 1;
  static all: FakeWebSocket[] = [];
  readyState = 0;
  sent: unknown[] = [];
  onopen: (() => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  onerror: (() => void) | null = null;
  constructor(readonly url: string) {
    FakeWebSocket.all.push(this);
  }
  send(data: string) {
    this.sent.push(JSON.parse(data));
  }
  close() {
    this.readyState = 3;
    this.onclose?.({ code: 1006 });
  }
  open() {
    this.readyState = 1;
    this.onopen?.();
  }
  /** The server's replay of a room: what it sends after each subscribe. */
  replay(lines: string[]) {
    for (const message of lines) {
      this.onmessage?.({ data: JSON.stringify({ room_name: "gamelog", message }) });
    }
  }
}

beforeEach(() => {
  FakeWebSocket.all = [];
  vi.stubGlobal("WebSocket", FakeWebSocket);
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("LiveSocket", () => {
  it("a reconnect re-subscribes, and the replay replaces the lines a page kept", () => {
    const socket = new LiveSocket();
    let shown: string[] = [];
    socket.subscribe("gamelog", (line) => shown.push(line), () => (shown = []));
    socket.connect();
    const first = FakeWebSocket.all[0];
    first.open();
    expect(first.sent).toEqual([{
      room_name: "",
      controls: { type: "subscribe", value: "gamelog", batch: true },
    }]);
    first.replay(["line 1", "line 2"]);
    first.onmessage?.({ data: JSON.stringify({ room_name: "gamelog", message: "line 3" }) });
    first.close();
    vi.advanceTimersByTime(10_000);
    const second = FakeWebSocket.all[1];
    second.open();
    expect(second.sent).toEqual([{
      room_name: "",
      controls: { type: "subscribe", value: "gamelog", batch: true },
    }]);
    second.replay(["line 1", "line 2", "line 3"]);
    expect(shown).toEqual(["line 1", "line 2", "line 3"]);
  });

  it("asks for gamelog in batches and hands each line of a batch to the listener; other rooms stay whole", () => {
    const socket = new LiveSocket();
    const lines: string[] = [];
    const statuses: string[] = [];
    socket.subscribe("gamelog", (line) => lines.push(line));
    socket.subscribe("server_status", (m) => statuses.push(m));
    socket.connect();
    const ws = FakeWebSocket.all.at(-1)!;
    ws.open();
    expect(ws.sent).toContainEqual({
      room_name: "",
      controls: { type: "subscribe", value: "server_status" },
    });
    ws.onmessage?.({ data: JSON.stringify({ room_name: "gamelog", message: "one\ntwo\nthree" }) });
    ws.onmessage?.({ data: JSON.stringify({ room_name: "server_status", message: '{"a":"x\\ny"}' }) });
    expect(lines).toEqual(["one", "two", "three"]);
    expect(statuses).toEqual(['{"a":"x\\ny"}']);
  });
});

describe("LiveSocket with several servers", () => {
  it("a room of another server is asked for with its id (again after a reconnect); server 1 without", () => {
    const socket = new LiveSocket();
    socket.subscribe("server_status", () => {}, undefined, 1);
    socket.subscribe("server_status", () => {}, undefined, 2);
    socket.connect();
    FakeWebSocket.all[0].open();
    const asked = [
      { room_name: "", controls: { type: "subscribe", value: "server_status" } },
      { room_name: "", controls: { type: "subscribe", value: "server_status", server: 2 } },
    ];
    expect(FakeWebSocket.all[0].sent).toEqual(asked);
    FakeWebSocket.all[0].close();
    vi.advanceTimersByTime(10_000);
    FakeWebSocket.all[1].open();
    expect(FakeWebSocket.all[1].sent).toEqual(asked);
    expect(socket.command("/time", 3)).toBe(true);
    expect(FakeWebSocket.all[1].sent.at(-1)).toEqual({
      room_name: "",
      controls: { type: "command", value: "/time", server: 3 },
    });
  });

  it("a message goes to the listeners of the server it names; one without a server is server 1's", () => {
    const socket = new LiveSocket();
    const got: string[] = [];
    socket.subscribe("gamelog", (l) => got.push(`1:${l}`), undefined, 1);
    const stop = socket.subscribe("gamelog", (l) => got.push(`2:${l}`), undefined, 2);
    socket.connect();
    const ws = FakeWebSocket.all[0];
    ws.open();
    ws.onmessage?.({ data: JSON.stringify({ room_name: "gamelog", message: "a" }) });
    ws.onmessage?.({ data: JSON.stringify({ room_name: "gamelog", message: "b", server: 2 }) });
    ws.onmessage?.({ data: JSON.stringify({ room_name: "gamelog", message: "c", server: 3 }) });
    ws.onmessage?.({ data: JSON.stringify({ room_name: "gamelog", message: "d", server: 1 }) });
    expect(got).toEqual(["1:a", "2:b", "1:d"]);
    stop();
    expect(ws.sent.at(-1)).toEqual({
      room_name: "",
      controls: { type: "unsubscribe", value: "gamelog", server: 2 },
    });
  });
});
