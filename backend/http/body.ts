// Reading small JSON request bodies: the content type must be JSON (a cross-site form cannot send that
// without a preflight) and the size is capped while reading, before anything is parsed.

import type { Ctx } from "./routes.ts";
import { Invalid, PayloadTooLarge, UnsupportedMediaType } from "../errors.ts";
import { PANEL_MSG } from "../../shared/messages.ts";
import { formatBytes } from "../../shared/util.ts";

export const JSON_LIMIT = 1024 * 1024;

export async function readJson(c: Ctx, limit = JSON_LIMIT): Promise<unknown> {
  const type = (c.req.header("content-type") ?? "").toLowerCase();
  if (!type.startsWith("application/json")) throw new UnsupportedMediaType(PANEL_MSG.jsonExpected);
  const declared = Number(c.req.header("content-length"));
  if (Number.isFinite(declared) && declared > limit) throw new PayloadTooLarge(PANEL_MSG.bodyTooLarge(formatBytes(limit)));
  const body = c.req.raw.body;
  if (!body) throw new Invalid(PANEL_MSG.jsonInvalid);
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
  const text = new TextDecoder().decode(await new Blob(chunks as BlobPart[]).arrayBuffer());
  try {
    return JSON.parse(text);
  } catch {
    throw new Invalid(PANEL_MSG.jsonInvalid);
  }
}

/** A JSON object body (not an array, string or null). */
export async function readObject(c: Ctx, limit = JSON_LIMIT): Promise<Record<string, unknown>> {
  const data = await readJson(c, limit);
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new Invalid("The request body must be a JSON object.");
  }
  return data as Record<string, unknown>;
}
