// Where an answer ends and which first requests allow a handover: the framer must never call an answer
// finished early (the client would get the rest from nowhere) nor miss its end.

import assert from "node:assert/strict";
import fc from "fast-check";

import { AnswerFramer, firstRequestBody } from "./handover.ts";

const enc = new TextEncoder();

function feedAll(method: string, parts: string[]): AnswerFramer {
  const f = new AnswerFramer(method);
  for (const p of parts) f.feed(enc.encode(p));
  return f;
}

Deno.test("the framer finds the end of length, chunked and bodiless answers, after interim ones", () => {
  const length = "HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello";
  assert.equal(feedAll("GET", [length]).state, "done");
  assert.equal(feedAll("GET", [length.slice(0, -1)]).state, "length");
  const chunked = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\na\r\n0123456789\r\n0\r\nx-trailer: 1\r\n\r\n";
  assert.equal(feedAll("GET", [chunked]).state, "done");
  assert.equal(feedAll("GET", [chunked.slice(0, -2)]).state, "trailer");
  assert.equal(feedAll("HEAD", ["HTTP/1.1 200 OK\r\ncontent-length: 900\r\n\r\n"]).state, "done");
  assert.equal(feedAll("GET", ["HTTP/1.1 304 Not Modified\r\netag: x\r\n\r\n"]).state, "done");
  assert.equal(feedAll("GET", ["HTTP/1.1 204 No Content\r\n\r\n"]).state, "done");
  assert.equal(feedAll("POST", ["HTTP/1.1 100 Continue\r\n\r\n", "HTTP/1.1 201 Created\r\ncontent-length: 2\r\n\r\nok"]).state, "done");
  assert.equal(feedAll("POST", ["HTTP/1.1 100 Continue\r\n\r\n"]).state, "head");
});

Deno.test("answers that end with the connection, or that the framer cannot read, are never handed over", () => {
  for (const answer of [
    "HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok",
    "HTTP/1.1 200 OK\r\n\r\nuntil the end",
    "HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nok",
    "HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n",
    "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n",
    "HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\nok",
    "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n",
    // A second answer to one request.
    "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokHTTP/1.1 200 OK\r\n",
  ]) {
    assert.equal(feedAll("GET", [answer]).state, "unframed", answer);
  }
  assert.equal(feedAll("GET", ["HTTP/1.1 200 OK\r\nx: " + "a".repeat(20_000)]).state, "unframed");
});

Deno.test("however an answer is cut into reads, the framer is done exactly at its last byte", () => {
  const answer = fc.oneof(
    fc.tuple(fc.uint8Array({ maxLength: 300 }), fc.constantFrom("GET", "POST")).map(([body, m]) => ({
      method: m,
      bytes: [...enc.encode(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`), ...body],
    })),
    fc.array(fc.uint8Array({ minLength: 1, maxLength: 100 }), { maxLength: 6 }).map((chunks) => ({
      method: "GET",
      bytes: [
        ...enc.encode("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"),
        ...chunks.flatMap((c) => [...enc.encode(c.length.toString(16) + "\r\n"), ...c, 13, 10]),
        ...enc.encode("0\r\n\r\n"),
      ],
    })),
  );
  fc.assert(fc.property(answer, fc.array(fc.nat(), { maxLength: 8 }), ({ method, bytes }, cuts) => {
    const all = Uint8Array.from(bytes);
    const points = [...new Set(cuts.map((c) => c % all.length))].sort((a, b) => a - b);
    const f = new AnswerFramer(method);
    let at = 0;
    for (const p of [...points, all.length]) {
      assert.equal(f.done, false, "done before the last byte");
      f.feed(all.subarray(at, p));
      at = p;
    }
    assert.equal(f.state, "done");
  }));
});

Deno.test("a first request is handed over only with a known body length and no wish to close or upgrade", () => {
  const head = (lines: string[]) => enc.encode(lines.join("\r\n") + "\r\n\r\n");
  assert.deepEqual(firstRequestBody(head(["GET / HTTP/1.1", "Host: x"])), { bodyLength: 0, method: "GET" });
  assert.deepEqual(firstRequestBody(head(["POST /api/login HTTP/1.1", "Content-Length: 42"])), { bodyLength: 42, method: "POST" });
  for (const lines of [
    ["POST / HTTP/1.1", "Transfer-Encoding: chunked"],
    ["GET / HTTP/1.1", "Connection: close"],
    ["GET / HTTP/1.1", "Connection: keep-alive, Upgrade", "Upgrade: h2c"],
    ["GET / HTTP/1.0"],
    ["POST / HTTP/1.1", "Content-Length: 1", "Content-Length: 2"],
    ["POST / HTTP/1.1", "Content-Length: -1"],
  ]) {
    assert.equal(firstRequestBody(head(lines)), null, lines.join(" | "));
  }
});
