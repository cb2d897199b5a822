// One request header, read without building them all. A request served by Deno.serve keeps its headers
// in Rust until `request.headers` is first touched, which copies every header into a Headers object:
// ~4 µs of a small answer's cost with a browser's dozen headers (bench/lists.mjs, "that also reading the
// session cookie"). Deno's own request object can answer for one header (its `header(name)`, one call
// into Rust); every request the panel serves has it, and Deno is pinned (stack.md). A Request made in
// JavaScript (the gate's direct answers, tests) has no such method: its Headers are read as usual.
// `reqheader_test.ts` checks both, so a Deno that changes this is seen in the tests, not by users.

import { parse } from "hono/utils/cookie";

interface InnerRequest {
  header?: (name: string) => string | null;
}

/** Deno's key for a Request's inner request, shared by every Request (null if this Deno has none). */
const INNER = Object.getOwnPropertySymbols(new Request("http://localhost/")).find((s) => s.description === "request") ?? null;

function innerOf(req: Request): InnerRequest | undefined {
  return INNER ? (req as unknown as Record<symbol, InnerRequest | undefined>)[INNER] : undefined;
}

/** Whether `req` can be read a header at a time (a request served by Deno). */
export function readsOneHeader(req: Request): boolean {
  return typeof innerOf(req)?.header === "function";
}

/**
 * The value of header `name` (lower case), or undefined. For a header sent more than once, Deno's one-header
 * read gives the first value where Headers join them all with ", ". So it is only for headers a browser
 * sends once (Host, Cookie, Authorization, Origin, Sec-Fetch-Site), never for X-Forwarded-* (a proxy may
 * add its own line after the client's).
 */
export function requestHeader(req: Request, name: string): string | undefined {
  const inner = innerOf(req);
  const value = typeof inner?.header === "function" ? inner.header(name) : req.headers.get(name);
  return value ?? undefined;
}

/** The last Cookie header parsed, for which name, and what it held: a browser sends the same one each time. */
let lastCookie = { header: "", name: "", value: undefined as string | undefined };

/**
 * The value of cookie `name` as Hono's getCookie parses it, from the request's Cookie header. Parsing
 * checks every name and value against a pattern (~1.1 µs a request with a browser's cookies); a header
 * seen just before is answered from then.
 */
export function requestCookie(req: Request, name: string): string | undefined {
  const header = requestHeader(req, "cookie");
  if (!header) return undefined;
  const last = lastCookie;
  if (last.header === header && last.name === name) return last.value;
  const value = parse(header, name)[name];
  lastCookie = { header, name, value };
  return value;
}
