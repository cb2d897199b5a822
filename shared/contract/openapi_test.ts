// The OpenAPI document made from the contract: every route once, with its role and security, and every
// reference resolving to a component.

import assert from "node:assert/strict";
import { openApiDocument } from "./openapi.ts";
import { contractRoutes } from "./index.ts";

// deno-lint-ignore no-explicit-any
const doc = openApiDocument("1.2.3") as any;

Deno.test("OpenAPI: 3.1, every route of the contract once, each with its role or none for the sign-in steps", () => {
  assert.equal(doc.openapi, "3.1.0");
  assert.equal(doc.info.version, "1.2.3");
  const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
    // deno-lint-ignore no-explicit-any
    Object.entries(methods as Record<string, any>).map(([method, op]) => ({
      key: `${method.toUpperCase()} ${path}`,
      op,
    }))
  );
  assert.equal(ops.length, contractRoutes.length);
  assert.equal(new Set(ops.map((o) => o.op.operationId)).size, ops.length, "operation ids are unique");
  for (const { method, path, def } of contractRoutes) {
    const op = doc.paths[path.replace(/:(\w+)/g, "{$1}")][method.toLowerCase()];
    assert.ok(op, `${method} ${path}`);
    if (def.public) assert.deepEqual([op.security, op["x-role"]], [[], undefined], path);
    else assert.equal(op["x-role"], def.role, path);
    if (def.interactive) assert.deepEqual(op.security, [{ session: [] }], `${path}: not for API tokens`);
    assert.equal(op["x-requires-stopped"], def.requiresStopped, path);
    for (const m of path.matchAll(/:(\w+)/g)) {
      assert.ok(
        op.parameters.some((p: { name: string; in: string }) => p.name === m[1] && p.in === "path"),
        `${path}: ${m[1]}`,
      );
    }
  }
  const login = doc.paths["/api/login"].post;
  assert.deepEqual(Object.keys(login.requestBody.content), ["application/json"]);
  assert.deepEqual(
    doc.paths["/api/saves/upload"].post.requestBody.content["multipart/form-data"].schema.required,
    ["savefile"],
  );
  assert.ok("application/zip" in doc.paths["/api/saves/dl/{name}"].get.responses[200].content);
});

Deno.test("OpenAPI: every reference resolves; named schemas are components", () => {
  const refs = new Set<string>();
  const walk = (v: unknown) => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (typeof v === "object" && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        if (k === "$ref") refs.add(x as string);
        else walk(x);
      }
    }
  };
  walk(doc);
  assert.ok(refs.size > 10);
  for (const ref of refs) {
    const [, section, kind, name] = ref.split("/");
    assert.equal(section, "components", ref);
    assert.ok(doc.components[kind]?.[name], `${ref} is not in the document`);
  }
  for (const name of ["ServerStatus", "Save", "Mod", "Backup", "Schedule", "User", "JsonValue"]) {
    assert.ok(doc.components.schemas[name], name);
  }
  // An answer allows nothing beyond the contract; a request body may carry more (the old clients' keys).
  assert.equal(doc.components.schemas.Save.additionalProperties, false);
  assert.notEqual(
    doc.paths["/api/saves/mods"].post.requestBody.content["application/json"].schema.additionalProperties,
    false,
  );
});
