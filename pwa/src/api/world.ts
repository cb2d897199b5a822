import { call, callForBlob, type RequestOptions } from "./client.ts";
import type { WorldSettings } from "../../../shared/world.ts";

export const worldApi = {
  generator: () => call("GET /api/world/generator"),
  preview: (settings: WorldSettings, planet: string, size: number, opts?: RequestOptions) =>
    callForBlob("POST /api/world/preview", { body: { settings, planet, size } }, opts),
  create: (name: string, settings: WorldSettings, opts?: RequestOptions) =>
    call("POST /api/world/create", { body: { name, settings } }, opts),
  scenarios: () => call("GET /api/world/scenarios", {}, { quiet: true }),
  startScenario: (name: string, bindip: string, port: number) =>
    call("POST /api/world/scenarios/start", { body: { name, bindip, port } }),
  scenarioToSave: (name: string, save: string, overwrite: boolean, opts?: RequestOptions) =>
    call("POST /api/world/scenarios/save", { body: { name, save, overwrite } }, opts),
  decode: (string: string) => call("POST /api/world/exchange-string/decode", { body: { string } }),
  encode: (settings: WorldSettings) => call("POST /api/world/exchange-string/encode", { body: settings }),
};
