// The multipart reader against bodies made by the runtime's own FormData encoder (the one fetch uses),
// cut into chunks at random places, through both ways of reading (BYOB, as Deno.serve's bodies, and chunk
// by chunk), with data full of near-boundaries; and truncated or hostile bodies, which must end in a
// MultipartError, never a hang, a crash or a wrong part.

import assert from "node:assert/strict";
import fc from "fast-check";
import { boundaryOf, MultipartError, readMultipart } from "./multipart.ts";

interface Part {
  name: string;
  filename: string | null;
  data: Uint8Array;
}

/** The body and boundary the runtime makes for these parts. */
async function encode(parts: Part[]): Promise<{ body: Uint8Array; boundary: string }> {
  const form = new FormData();
  for (const p of parts) {
    if (p.filename === null) form.append(p.name, new TextDecoder().decode(p.data));
    else form.append(p.name, new File([p.data as BlobPart], p.filename));
  }
  const r = new Response(form);
  const boundary = boundaryOf(r.headers.get("content-type")!);
  assert.ok(boundary);
  return { body: new Uint8Array(await r.arrayBuffer()), boundary };
}

/** A stream of `body` cut at `cuts`; a byte stream (BYOB) or a plain one. */
function streamOf(body: Uint8Array, cuts: number[], bytes: boolean): ReadableStream<Uint8Array> {
  const points = [...new Set(cuts.map((c) => c % (body.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let at = 0;
  for (const p of [...points, body.length]) {
    if (p > at) pieces.push(body.slice(at, p));
    at = Math.max(at, p);
  }
  if (bytes) {
    return new ReadableStream({
      type: "bytes",
      pull(controller) {
        const next = pieces.shift();
        if (next) controller.enqueue(next);
        else {
          controller.close();
          controller.byobRequest?.respond(0);
        }
      },
    });
  }
  return new ReadableStream({
    pull(controller) {
      const next = pieces.shift();
      if (next) controller.enqueue(next);
      else controller.close();
    },
  });
}

/** The parts with their pieces joined. */
function joined(found: { name: string; filename: string | null; chunks: Uint8Array[] }[]): Part[] {
  return found.map(({ name, filename, chunks }) => {
    const data = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
    let at = 0;
    for (const c of chunks) {
      data.set(c, at);
      at += c.length;
    }
    return { name, filename, data };
  });
}

async function decode(stream: ReadableStream<Uint8Array>, boundary: string): Promise<Part[]> {
  const found: { name: string; filename: string | null; chunks: Uint8Array[] }[] = [];
  await readMultipart(stream, boundary, (info) => {
    const part = { ...info, chunks: [] as Uint8Array[] };
    found.push(part);
    return (bytes) => void part.chunks.push(bytes.slice()); // the piece is only valid during the call
  });
  return joined(found);
}

/** Byte equality without node:assert's element-by-element deep walk (slow on 700 KB). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// Data that keeps nearly matching a delimiter: CR, LF, dashes, and the letters boundaries are made of.
const tricky = fc.oneof(
  fc.uint8Array({ maxLength: 3000 }),
  fc.array(fc.constantFrom(13, 10, 45, 45, 45, 87, 101, 98, 75, 105, 116), { maxLength: 3000 }).map((a) =>
    new Uint8Array(a)
  ),
  fc.integer({ min: 200_000, max: 700_000 }).map((n) => new Uint8Array(n).map((_, i) => (i * 131) % 251)),
);
const partArb = fc.record({
  name: fc.string({ minLength: 1, maxLength: 20 }).filter((s) => !/[\r\n"%\\]/.test(s)),
  filename: fc.option(fc.string({ minLength: 1, maxLength: 30 }).filter((s) => !/[\r\n"%\\/]/.test(s)), {
    nil: null,
  }),
  data: tricky,
}).map((p) =>
  // A text field is text, and the encoder writes its line breaks as CRLF (the HTML form rules).
  p.filename === null
    ? {
      ...p,
      data: new TextEncoder().encode(new TextDecoder().decode(p.data).replace(/\r\n|\r|\n/g, "\r\n")),
    }
    : p
);

Deno.test("every part comes out as the runtime's FormData put it in, however the body is cut and read", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(partArb, { minLength: 1, maxLength: 4 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      fc.boolean(),
      async (parts, cuts, bytes) => {
        const { body, boundary } = await encode(parts);
        const got = await decode(streamOf(body, cuts, bytes), boundary);
        assert.equal(got.length, parts.length);
        for (const [i, p] of parts.entries()) {
          assert.equal(got[i].name, p.name);
          assert.equal(got[i].filename, p.filename);
          assert.ok(
            sameBytes(got[i].data, p.data),
            `part ${i}: ${got[i].data.length} bytes, sent ${p.data.length}`,
          );
        }
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("a body cut anywhere before the closing boundary is an error, never a shorter part", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(partArb, { minLength: 1, maxLength: 3 }),
      fc.nat(),
      fc.boolean(),
      async (parts, at, bytes) => {
        const { body, boundary } = await encode(parts);
        // The closing "--" of the last delimiter is what says the form is whole.
        const end = body.length - 4; // ...--boundary--\r\n
        const cut = body.slice(0, at % end);
        await assert.rejects(decode(streamOf(cut, [], bytes), boundary), MultipartError);
      },
    ),
    { numRuns: 60 },
  );
});

Deno.test("hostile bodies end in a MultipartError: garbage, endless headers, a header without a name", async () => {
  const bad = [
    new TextEncoder().encode("no boundary anywhere"),
    new TextEncoder().encode("--b\r\n" + "X-Long: " + "a".repeat(100_000)),
    new TextEncoder().encode("--b\r\nno colon here\r\n\r\ndata\r\n--b--\r\n"),
    new TextEncoder().encode("--b\r\nContent-Type: text/plain\r\n\r\ndata\r\n--b--\r\n"),
    new TextEncoder().encode("--b trailing junk\r\nContent-Disposition: form-data; name=x\r\n\r\nd\r\n--b--"),
    new TextEncoder().encode("--b\r\nContent-Disposition: form-data; filename=x\r\n\r\nd\r\n--b--"),
  ];
  for (const body of bad) {
    for (const bytes of [true, false]) {
      await assert.rejects(
        decode(streamOf(body, [7, 300, 5000], bytes), "b"),
        MultipartError,
        new TextDecoder().decode(body.slice(0, 40)),
      );
    }
  }
  await fc.assert(
    fc.asyncProperty(fc.uint8Array({ maxLength: 5000 }), async (junk) => {
      await assert.rejects(decode(streamOf(junk, [], true), "boundary-not-in-there"), MultipartError);
    }),
    { numRuns: 100 },
  );
});

Deno.test("boundaries: quoted or not, at most 70 characters", () => {
  assert.equal(boundaryOf("multipart/form-data; boundary=abc"), "abc");
  assert.equal(boundaryOf('multipart/form-data; charset=utf-8; boundary="a b;c"'), "a b;c");
  assert.equal(boundaryOf("multipart/form-data"), null);
  assert.equal(boundaryOf(`multipart/form-data; boundary=${"x".repeat(71)}`), null);
});

Deno.test("file names: RFC 5987 filename* wins, paths are kept for the caller to drop", async () => {
  const body = new TextEncoder().encode(
    '--b\r\nContent-Disposition: form-data; name="f"; filename="a.zip"; filename*=UTF-8\'\'%C3%A9t%C3%A9.zip\r\n\r\nx\r\n' +
      '--b\r\nContent-Disposition: form-data; name="g"; filename="dir/b.zip"\r\n\r\ny\r\n--b--\r\n',
  );
  const got = await decode(streamOf(body, [], true), "b");
  assert.deepEqual(got.map((p) => p.filename), ["été.zip", "dir/b.zip"]);
});

/** Reads with a sink that takes its time (as a file write does) and checks what the reader promises it. */
async function decodeSlowly(
  stream: ReadableStream<Uint8Array>,
  boundary: string,
  failAt = -1,
): Promise<Part[]> {
  const found: { name: string; filename: string | null; chunks: Uint8Array[] }[] = [];
  let inFlight = 0;
  let calls = 0;
  await readMultipart(stream, boundary, (info) => {
    assert.equal(inFlight, 0, "a new part began while a piece of the last one was still being taken");
    const part = { ...info, chunks: [] as Uint8Array[] };
    found.push(part);
    return async (bytes) => {
      assert.equal(inFlight, 0, "two pieces were handed out at once");
      if (calls++ === failAt) throw new Error("the sink failed");
      inFlight++;
      const copy = bytes.slice();
      // The reader reads on meanwhile; the piece must stay as it was until this settles.
      await new Promise((r) => setTimeout(r, 0));
      assert.ok(sameBytes(bytes, copy), "a piece changed before its sink was done with it");
      part.chunks.push(copy);
      inFlight--;
    };
  });
  assert.equal(inFlight, 0, "the reader finished before the last piece was taken");
  return joined(found);
}

Deno.test("a sink that takes its time gets every piece in order, one at a time, unchanged until it is done", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(partArb, { minLength: 1, maxLength: 3 }),
      fc.array(fc.nat(), { maxLength: 12 }),
      fc.boolean(),
      async (parts, cuts, bytes) => {
        const { body, boundary } = await encode(parts);
        const got = await decodeSlowly(streamOf(body, cuts, bytes), boundary);
        assert.equal(got.length, parts.length);
        for (const [i, p] of parts.entries()) assert.ok(sameBytes(got[i].data, p.data), `part ${i}`);
      },
    ),
    { numRuns: 30 },
  );
});

Deno.test("a sink that fails while the reader reads on ends the read with its own error", async () => {
  const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 131) % 251);
  const { body, boundary } = await encode([{ name: "savefile", filename: "a.zip", data: big }, {
    name: "x",
    filename: null,
    data: new Uint8Array([65]),
  }]);
  for (const failAt of [0, 1, 5]) {
    await assert.rejects(
      decodeSlowly(streamOf(body, [70_000, 300_000, 1_000_000, 2_000_000], true), boundary, failAt),
      /the sink failed/,
    );
  }
});

Deno.test("what follows the closing boundary is read to the end; a body cut there still gives whole parts", async () => {
  const { body, boundary } = await encode([{
    name: "savefile",
    filename: "a.zip",
    data: new Uint8Array(5000).fill(1),
  }]);
  const withEpilogue = new Uint8Array([...body, ...new TextEncoder().encode("\r\nsome epilogue\r\n")]);
  let finished = false;
  const counted = streamOf(withEpilogue, [4000, body.length + 3], true).pipeThrough(
    new TransformStream({ flush: () => void (finished = true) }),
  );
  const got = await decode(counted, boundary);
  assert.equal(got[0].data.length, 5000);
  assert.ok(finished, "the body was left unread after the closing boundary");
  // The connection goes away right after the closing boundary: the form was whole.
  let sent = false;
  const cut = new ReadableStream<Uint8Array>({
    pull(c) {
      if (!sent) {
        sent = true;
        c.enqueue(body);
      } else c.error(new Error("connection reset"));
    },
  });
  assert.equal((await decode(cut, boundary))[0].data.length, 5000);
});
