// The API contract (shared/contract/) against the route table the panel serves: the same routes, each
// with the same method, path, role, public, requiresStopped, changesState and interactive.

import assert from "node:assert/strict";
import { startPanel } from "../../tests/support/harness.ts";
import { changesState, requiredRole, type Route } from "./routes.ts";
import { AREAS, contract, contractRoutes } from "../../shared/contract/index.ts";
import type { RouteDef } from "../../shared/contract/route.ts";

/** What the contract says of a route, in the route table's terms. */
function declared(def: RouteDef) {
  return {
    public: def.public === true,
    role: def.public ? null : def.role,
    requiresStopped: def.requiresStopped ?? null,
    changesState: def.changesState === true,
    interactive: def.interactive === true,
  };
}

function served(r: Route) {
  return {
    public: r.public === true,
    role: r.public ? null : requiredRole(r),
    requiresStopped: r.requiresStopped ?? null,
    // Every non-GET changes state anyway: the contract marks only the GETs that do.
    changesState: r.method === "GET" && changesState(r),
    interactive: r.interactive === true,
  };
}

Deno.test("the contract has every route of the table, and no other, with the same access rules", async () => {
  const p = await startPanel();
  try {
    const table = new Map(p.routes.map((r) => [`${r.method} ${r.path}`, r]));
    assert.equal(table.size, p.routes.length, "the route table declares a route twice");
    const keys = new Set(contractRoutes.map((r) => `${r.method} ${r.path}`));
    assert.deepEqual(
      [...table.keys()].filter((k) => !keys.has(k)),
      [],
      "routes of the table missing from the contract",
    );
    assert.deepEqual(
      [...keys].filter((k) => !table.has(k)),
      [],
      "routes of the contract the panel does not serve",
    );
    for (const { method, path, def } of contractRoutes) {
      const key = `${method} ${path}`;
      assert.deepEqual(declared(def), served(table.get(key)!), key);
    }
  } finally {
    await p.close();
  }
});

Deno.test("each route of the contract is in one area only", () => {
  const inAreas = Object.values(AREAS).flatMap((area) => Object.keys(area));
  assert.equal(
    inAreas.length,
    new Set(inAreas).size,
    "a route is in two areas: the contract keeps only one of them",
  );
  assert.deepEqual(new Set(inAreas), new Set(Object.keys(contract)));
});

Deno.test("GET /api/openapi.json: signed-in callers get an OpenAPI 3.1 document of every mounted route", async () => {
  const p = await startPanel();
  try {
    const anonymous = await p.client().request("GET", "/api/openapi.json");
    assert.equal(anonymous.status, 401, "the reference is for signed-in callers");
    const res = await (await p.login()).request("GET", "/api/openapi.json");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
    const doc = res.body;
    assert.equal(doc.openapi, "3.1.0");
    assert.equal(typeof doc.info.title, "string");
    assert.ok(doc.components.securitySchemes.session && doc.components.securitySchemes.token);
    const served = new Set<string>();
    for (
      const [path, methods] of Object.entries(
        doc.paths as Record<string, Record<string, { responses: object }>>,
      )
    ) {
      assert.ok(path.startsWith("/api/"), path);
      for (const [method, op] of Object.entries(methods)) {
        assert.ok(["get", "post", "put", "patch", "delete"].includes(method), `${method} ${path}`);
        assert.ok(op.responses && Object.keys(op.responses).length > 0, `${method} ${path} has answers`);
        served.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ":$1")}`);
      }
    }
    assert.deepEqual([...served].sort(), p.routes.map((r) => `${r.method} ${r.path}`).sort());
    // Every reference points at a schema the document has.
    for (const ref of JSON.stringify(doc).matchAll(/"\$ref":"#\/components\/(\w+)\/(\w+)"/g)) {
      assert.ok(doc.components[ref[1]]?.[ref[2]], ref[0]);
    }
  } finally {
    await p.close();
  }
});
