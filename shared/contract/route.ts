// What a route of the API is, as data: the key "METHOD /path" (the path as the route table writes it,
// ":name" for a parameter) and what it takes, answers and needs. The wire format is the old panel's
// (docs/architecture.md): answers have no envelope, and every error is a JSON string of words.

import { z } from "zod";
import type { Role } from "../api.ts";

/** An answer that is not JSON: a file or a stream of the given media type. */
export interface FileAnswer {
  file: string;
}

export function file(type: string): FileAnswer {
  return { file: type };
}

export function isFileAnswer(a: unknown): a is FileAnswer {
  return typeof a === "object" && a !== null && typeof (a as FileAnswer).file === "string";
}

interface Common {
  /** One line for the reference (OpenAPI summary). */
  summary: string;
  /**
   * A GET that changes state (the old API has some: stop, kill, saves rm/create, logout, portal logout): it
   * gets the cross-site refusal every other method gets.
   */
  changesState?: true;
  /**
   * The route changes the game directory: it answers 423 unless the game is stopped, and the game does not
   * start until it is done (409 naming this, in words).
   */
  requiresStopped?: string;
  /** Only for a signed-in browser session, not an API token. */
  interactive?: true;
  /** The query string's parameters (all text on the wire). */
  query?: z.ZodObject;
  /** The JSON request body. A route without one ignores a body. */
  body?: z.ZodType;
  /** A multipart/form-data upload: the name of its file field. */
  upload?: string;
  /** The answer on success: JSON of this schema, or a file. */
  answer: z.ZodType | FileAnswer;
  /** The success statuses when not just 200 (a start answers 200 once hosting, 202 while it is on its way). */
  status?: readonly number[];
  /** Answers with a body of their own for an error status (every other error is a JSON string). */
  errors?: Readonly<Record<number, z.ZodType>>;
}

/** A route: public (the sign-in steps), or for a signed-in caller with at least `role`. */
export type RouteDef = Common & ({ public: true; role?: never } | { public?: never; role: Role });

export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Routes by their key, "METHOD /path". */
export type Routes = Record<`${Method} /api/${string}`, RouteDef>;

/** A route of the contract with its method and path taken apart. */
export interface ContractRoute {
  method: Method;
  path: string;
  def: RouteDef;
}

export function routeList(routes: Routes): ContractRoute[] {
  return Object.entries(routes).map(([key, def]) => {
    const space = key.indexOf(" ");
    return { method: key.slice(0, space) as Method, path: key.slice(space + 1), def: def as RouteDef };
  });
}

/** A message in words: what most changes answer, and every error. */
export const Message = z.string().meta({
  id: "Message",
  description: "A message in words (every error is one too).",
});

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export const JsonValue: z.ZodType<JsonValue> = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.null(),
  z.array(z.lazy(() => JsonValue)),
  z.record(z.string(), z.lazy(() => JsonValue)),
]).meta({ id: "JsonValue" });

/** A JSON object of any keys (a settings file of the game). */
export const JsonObject = z.record(z.string(), z.unknown());
