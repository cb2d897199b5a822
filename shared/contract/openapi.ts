// The OpenAPI 3.1 document of the API, made from the contract: for scripts and API-token users. Schemas
// are the contract's zod schemas as JSON Schema (draft 2020-12, which OpenAPI 3.1 uses); those with an id
// (`.meta({ id })`) become components, referred to by every route that uses them.

import { z } from "zod";
import { AREAS } from "./index.ts";
import { isFileAnswer, type Method, type RouteDef, routeList } from "./route.ts";
import { SESSION_COOKIE } from "../access.ts";

type Json = Record<string, unknown>;

const DESCRIPTION = [
  "The API of Factorio Panel, compatible with the old panel's: answers have no envelope, and every error is a JSON",
  "string in words. Sign in with POST /api/login (a session cookie), or send an API token (Account, API Tokens) as",
  "`Authorization: Bearer <token>`. Each route names the weakest role that may call it (`x-role`: viewer reads,",
  "operator runs the game, admin manages users and secrets). A route with `x-requires-stopped` changes the game's",
  "directory: it answers 423 while the game runs. State changes from a browser must come from the panel's own",
  "pages (Origin); scripts send no Origin.",
].join(" ");

/** "GET /api/mods/packs/:pack/list" -> "getModsPacksByPackList". */
function operationId(method: Method, path: string): string {
  const words = path.replace(/^\/api\//, "").split(/[/\-]/).filter(Boolean)
    .map((w) => w.startsWith(":") ? `By${cap(w.slice(1))}` : cap(w));
  return method.toLowerCase() + words.join("");
}

function cap(w: string): string {
  return w.charAt(0).toUpperCase() + w.slice(1);
}

/**
 * Collects the schemas with an id as components. An id is converted once per direction: a request body
 * (input: unknown keys allowed) and an answer (output: none beyond the contract's) may differ; then the
 * body's is named "<id>Input".
 */
class Components {
  readonly schemas: Record<string, Json> = {};

  /** `schema` as JSON Schema whose named parts refer to components. */
  add(schema: z.ZodType, io: "input" | "output"): Json {
    const { $defs = {}, $schema: _, ...root } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as
      & Json
      & {
        $defs?: Record<string, Json>;
      };
    const names = new Map<string, string>();
    for (const id of Object.keys($defs)) {
      if (id.startsWith("__schema")) {
        throw new Error(`a recursive schema without an id: give it .meta({ id })`);
      }
      names.set(id, id);
    }
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (typeof value !== "object" || value === null) return value;
      const out: Json = {};
      for (const [k, v] of Object.entries(value)) {
        out[k] = k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/")
          ? `#/components/schemas/${names.get(v.slice("#/$defs/".length))}`
          : rewrite(v);
      }
      return out;
    };
    // A part that differs from the component of its id takes the other name; then those referring to it
    // differ too, until nothing changes.
    for (let changed = true; changed;) {
      changed = false;
      for (const [id, def] of Object.entries($defs)) {
        const known = this.schemas[names.get(id)!];
        if (known === undefined || JSON.stringify(known) === JSON.stringify(rewrite(def))) continue;
        if (names.get(id) !== id) throw new Error(`${id} has more than two forms`);
        names.set(id, `${id}Input`);
        changed = true;
      }
    }
    for (const [id, def] of Object.entries($defs)) this.schemas[names.get(id)!] = rewrite(def) as Json;
    return rewrite(root) as Json;
  }
}

const ERROR = { $ref: "#/components/responses/Error" };

function operation(method: Method, path: string, def: RouteDef, tag: string, components: Components): Json {
  const op: Json = { operationId: operationId(method, path), summary: def.summary, tags: [tag] };
  if (def.public) op.security = [];
  else {
    op["x-role"] = def.role;
    if (def.interactive) {
      // A person signed in: a script's token may not manage tokens, sessions, passwords or second factors.
      op.security = [{ session: [] }];
    }
  }
  if (def.requiresStopped) op["x-requires-stopped"] = def.requiresStopped;
  const parameters: Json[] = [...path.matchAll(/:(\w+)/g)].map((m) => ({
    name: m[1],
    in: "path",
    required: true,
    schema: { type: "string" },
  }));
  if (def.query) {
    for (const [name, field] of Object.entries(def.query.shape)) {
      parameters.push({
        name,
        in: "query",
        required: !field.safeParse(undefined).success,
        schema: components.add(field, "input"),
      });
    }
  }
  if (parameters.length > 0) op.parameters = parameters;
  if (def.body) {
    op.requestBody = {
      required: true,
      content: { "application/json": { schema: components.add(def.body, "input") } },
    };
  } else if (def.upload) {
    op.requestBody = {
      required: true,
      content: {
        "multipart/form-data": {
          schema: {
            type: "object",
            properties: { [def.upload]: { type: "string", contentMediaType: "application/octet-stream" } },
            required: [def.upload],
          },
        },
      },
    };
  }
  const content = isFileAnswer(def.answer)
    ? { [def.answer.file]: {} }
    : { "application/json": { schema: components.add(def.answer, "output") } };
  const responses: Json = {};
  for (const status of def.status ?? [200]) {
    responses[status] = { description: status === 202 ? "Under way" : "Done", content };
  }
  for (const [status, schema] of Object.entries(def.errors ?? {})) {
    responses[status] = {
      description: "Failed, with details",
      content: { "application/json": { schema: components.add(schema, "output") } },
    };
  }
  if (def.requiresStopped) responses[423] = { ...ERROR, description: "The game is not stopped" };
  responses.default = ERROR;
  op.responses = responses;
  return op;
}

/** The OpenAPI 3.1 document of every route of the contract. */
export function openApiDocument(version: string): Json {
  const components = new Components();
  const paths: Record<string, Json> = {};
  const tags: Json[] = [];
  for (const [tag, routes] of Object.entries(AREAS)) {
    tags.push({ name: tag });
    for (const { method, path, def } of routeList(routes)) {
      const key = path.replace(/:(\w+)/g, "{$1}");
      paths[key] ??= {};
      paths[key][method.toLowerCase()] = operation(method, path, def, tag, components);
    }
  }
  return {
    openapi: "3.1.0",
    info: { title: "Factorio Panel API", version, description: DESCRIPTION },
    tags,
    security: [{ session: [] }, { token: [] }],
    paths,
    components: {
      securitySchemes: {
        session: {
          type: "apiKey",
          in: "cookie",
          name: SESSION_COOKIE,
          description: "The session of POST /api/login.",
        },
        token: { type: "http", scheme: "bearer", description: "An API token (Account, API Tokens)." },
      },
      responses: {
        Error: {
          description: "Refused or failed: the reason in words, as a JSON string",
          content: { "application/json": { schema: { type: "string" } } },
        },
      },
      schemas: components.schemas,
    },
  };
}
