// The API's own reference: the OpenAPI document made from this contract (openapi.ts).

import { JsonObject, type Routes } from "./route.ts";

export const referenceRoutes = {
  "GET /api/openapi.json": {
    summary: "This reference: the OpenAPI 3.1 document of every route",
    // A list of routes holds no secret, but the panel shows nothing before sign-in but the sign-in steps.
    role: "viewer",
    answer: JsonObject,
  },
} satisfies Routes;
