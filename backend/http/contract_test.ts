// The API contract (shared/contract/) against the route table the panel serves: the same routes, each
// with the same method, path, role, public, requiresStopped, changesState and interactive.

import assert from "node:assert/strict";
import { startPanel } from "../testing/harness.ts";
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
