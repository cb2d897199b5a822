// Reading small JSON request bodies: the content type must be JSON (a cross-site form cannot send that
// without a preflight) and the size is capped while reading, before anything is parsed. A request with
// no body at all is a request without fields, for every route: the old panel's UI and scripts send
// "Content-Type: application/json" on body-less POSTs (delete all mods, ...), and the old panel ignored
// the missing body. A route that needs fields then says which one is missing.

import type { Ctx } from "./routes.ts";
import { Invalid, PayloadTooLarge, UnsupportedMediaType } from "../errors.ts";
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
  if (type !== "" && !type.startsWith("application/json")) throw new UnsupportedMediaType(PANEL_MSG.jsonExpected);
  const declared = Number(c.req.header("content-length"));
  if (Number.isFinite(declared) && declared > limit) throw new PayloadTooLarge(PANEL_MSG.bodyTooLarge(formatBytes(limit)));
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

/** A JSON object body (not an array, string or null); {} when the request has no body. */
export async function readObject(c: Ctx, limit = JSON_LIMIT): Promise<Record<string, unknown>> {
  const data = await readJson(c, limit);
  if (data === undefined) return {};
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new Invalid("The request body must be a JSON object.");
  }
  return data as Record<string, unknown>;
}
