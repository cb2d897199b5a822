// Reading small JSON request bodies: the content type must be JSON (a cross-site form cannot send that
// without a preflight) and the size is capped while reading, before anything is parsed. A request with
// no body at all is a request without fields, for every route: the old panel's UI and scripts send
// "Content-Type: application/json" on body-less POSTs (delete all mods, ...), and the old panel ignored
// the missing body. A route that needs fields then says which one is missing.

import { z } from "zod";
import type { Ctx } from "./routes.ts";
import type { RouteDef } from "../../shared/contract/route.ts";
import { Invalid, PayloadTooLarge, UnsupportedMediaType } from "../lib/errors.ts";
import { PANEL_MSG } from "../../shared/messages.ts";
import { formatBytes } from "../../shared/util.ts";

export const JSON_LIMIT = 1024 * 1024;

/** The body's bytes as text, refused once they pass `limit`. */
async function readText(c: Ctx, limit: number): Promise<string> {
  const body = c.req.raw.body;
  if (!body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  while (true) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw new PayloadTooLarge(PANEL_MSG.bodyTooLarge(formatBytes(limit)));
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(await new Blob(chunks as BlobPart[]).arrayBuffer());
}

/**
 * The parsed JSON body, or undefined when there is no body (empty, with a JSON content type or none).
 * Any other content type is refused (415), even without a body.
 */
export async function readJson(c: Ctx, limit = JSON_LIMIT): Promise<unknown> {
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  if (type !== "" && !type.startsWith("application/json")) {
    throw new UnsupportedMediaType(PANEL_MSG.jsonExpected);
  }
  const declared = Number(c.req.header("content-length"));
  if (Number.isFinite(declared) && declared > limit) {
    throw new PayloadTooLarge(PANEL_MSG.bodyTooLarge(formatBytes(limit)));
  }
  const text = await readText(c, limit);
  if (text.trim() === "") return undefined;
  // Bytes without a type: not JSON as far as the sender said.
  if (type === "") throw new UnsupportedMediaType(PANEL_MSG.jsonExpected);
  try {
    return JSON.parse(text);
  } catch {
    throw new Invalid(PANEL_MSG.jsonInvalid);
  }
}

/**
 * A route's body and query, checked at the edge with its contract schemas (shared/contract/) before the
 * handler runs: 400 with a sentence when they do not fit. A route without a body schema ignores any body;
 * a missing body is a body without fields. Keys match the schema's case-insensitively, as the old panel's
 * JSON decoder did ("filename" for "fileName").
 */
export async function readInput(
  c: Ctx,
  def: RouteDef,
  domainChecked = false,
): Promise<{ body: unknown; query: unknown }> {
  let body: unknown;
  if (def.body && domainChecked) body = await readJson(c);
  else if (def.body) {
    // No body is a body without fields; a JSON null is not.
    let data = await readJson(c);
    if (def.body instanceof z.ZodObject) data = matchKeys(objectBody(data), Object.keys(def.body.shape));
    else if (data === undefined) data = {};
    body = checked(def.body, data);
  }
  return { body, query: def.query ? checked(def.query, c.req.query()) : undefined };
}

/** A body that must be a JSON object: {} when there is none. */
export function objectBody(data: unknown): Record<string, unknown> {
  if (data === undefined) return {};
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new Invalid("The request body must be a JSON object.");
  }
  return data as Record<string, unknown>;
}

/** `data` with each key that differs from one of `keys` only in case renamed to it. */
function matchKeys(data: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out = { ...data };
  for (const key of keys) {
    if (key in out) continue;
    const other = Object.keys(out).find((k) => k.toLowerCase() === key.toLowerCase());
    if (other !== undefined) {
      out[key] = out[other];
      delete out[other];
    }
  }
  return out;
}

/** `data` parsed by `schema`, or a 400 with the first problem in words. */
function checked(schema: z.ZodType, data: unknown): unknown {
  // The schema's own message (the spec's words, where a field has one) comes first; this one otherwise.
  const parsed = schema.safeParse(data, { error: problem });
  // A record's parse rebuilds the object, where a key "__proto__" would be lost rather than refused by
  // the handler as unknown: the checked input itself goes on (a record transforms nothing).
  if (parsed.success) return schema instanceof z.ZodRecord ? data : parsed.data;
  throw new Invalid(parsed.error.issues[0].message);
}

const KINDS: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "an object",
  array: "a list",
};

/** A problem of a request's field, in words. */
function problem(issue: z.core.$ZodRawIssue): string {
  const field = issue.path?.length ? issue.path.join(".") : "The request body";
  if (issue.code === "invalid_type") {
    if (issue.input === undefined) return `${field} is required`;
    return `${field} must be ${KINDS[issue.expected] ?? issue.expected}`;
  }
  if (issue.code === "invalid_value") {
    return `${field} must be one of: ${issue.values.map(String).join(", ")}`;
  }
  if (issue.code === "invalid_union") return `${field} is not valid`;
  return `${field}: ${issue.message ?? "not valid"}`;
}
