// GET /api/openapi.json: the OpenAPI 3.1 document of the contract, for scripts and API-token users.
// Built once at start, like every other part of the app.

import { openApiDocument } from "../../shared/contract/openapi.ts";
import { PANEL_VERSION } from "../transfer/export.ts";
import { type Route, route } from "./routes.ts";

export function referenceRoutes(): Route[] {
  const document = openApiDocument(PANEL_VERSION);
  return [route("GET /api/openapi.json", () => document)];
}
