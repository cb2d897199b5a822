// Byte-level helpers of the connection gate: writing whole buffers, and finding and reading the head of
// a connection's first HTTP request.

export function closeQuietly(conn: Deno.Conn): void {
  try {
    conn.close();
  } catch {
    // already closed
  }
}

export async function writeAll(conn: Deno.Conn, data: Uint8Array): Promise<void> {
  let off = 0;
  while (off < data.length) off += await conn.write(data.subarray(off));
}

export function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** Offset just past the blank line ending an HTTP head, or -1. */
export function headEnd(bytes: Uint8Array): number {
  for (let i = 3; i < bytes.length; i++) {
    if (bytes[i] === 10 && bytes[i - 1] === 13 && bytes[i - 2] === 10 && bytes[i - 3] === 13) return i + 1;
  }
  return -1;
}

export function isWebSocketRequest(head: Uint8Array): boolean {
  const text = new TextDecoder("latin1").decode(head);
  return text.startsWith("GET ") && /^upgrade:[ \t]*websocket[ \t]*\r?$/im.test(text);
}
