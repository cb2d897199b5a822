import { api, type RequestOptions, requestBlob } from "./client.ts";
import type { ExchangeStringData, GeneratorInfo, Scenario, WorldSettings } from "../../../shared/world.ts";

export const worldApi = {
  generator: () => api.get<GeneratorInfo>("/api/world/generator"),
  preview: (settings: WorldSettings, planet: string, size: number, opts?: RequestOptions) =>
    requestBlob("/api/world/preview", { settings, planet, size }, opts),
  create: (name: string, settings: WorldSettings, opts?: RequestOptions) => api.post<string>("/api/world/create", { name, settings }, opts),
  scenarios: () => api.get<Scenario[]>("/api/world/scenarios", { quiet: true }),
  startScenario: (name: string, bindip: string, port: number) => api.post<string>("/api/world/scenarios/start", { name, bindip, port }),
  scenarioToSave: (name: string, save: string, overwrite: boolean, opts?: RequestOptions) =>
    api.post<string>("/api/world/scenarios/save", { name, save, overwrite }, opts),
  decode: (string: string) => api.post<ExchangeStringData>("/api/world/exchange-string/decode", { string }),
  encode: (settings: WorldSettings) => api.post<{ string: string; left_out?: string[] }>("/api/world/exchange-string/encode", settings),
};
