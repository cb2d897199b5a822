// A panel for mod tests: a simulated Factorio directory of the wanted version, the fake mod portal on its
// own port (portal, auth server and CDN), and a clock the test can move (for the portal list cache).

import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { installFakeFactorio, type SimulatedVersion } from "../fake-factorio/install.ts";
import { type FakePortal, startFakePortal, USERS } from "../fake-portal/server.ts";
import type { ServerState } from "../../shared/api.ts";
import { type Client, startPanel, type TestPanel } from "./harness.ts";

export const MOD_FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), "../fixtures");

export interface ModPanel {
  panel: TestPanel;
  fake: FakePortal;
  /** Signed-in admin. */
  c: Client;
  factorioDir: string;
  modsDir: string;
  clock: { t: number };
  /** What ctx.serverState() answers (the game-server area owns the real one). */
  state: { value: ServerState };
  /** Copies a fixture mod zip into the mods dir (under another name when given). */
  addFixture(file: string, as?: string): void;
  /** Logs the admin's panel in to the (fake) mod portal. */
  portalLogin(): Promise<void>;
  modList(): { mods: { name: string; enabled: boolean }[]; [key: string]: unknown };
}

export interface ModPanelOptions {
  version?: SimulatedVersion;
  /** Pretend the game is this version (rewrites data/base/info.json), e.g. "1.0.0". */
  baseVersion?: string;
  extraArgs?: string[];
}

export function withModPanel(
  fn: (m: ModPanel) => Promise<void>,
  opts: ModPanelOptions = {},
): () => Promise<void> {
  return async () => {
    const fake = await startFakePortal();
    const factorioDir = mkdtempSync(join(tmpdir(), "panel-mods-"));
    installFakeFactorio(factorioDir, opts.version ?? "1.1");
    if (opts.baseVersion) {
      const infoPath = join(factorioDir, "data", "base", "info.json");
      const info = JSON.parse(readFileSync(infoPath, "utf8"));
      writeFileSync(
        infoPath,
        JSON.stringify({
          ...info,
          version: opts.baseVersion,
          factorio_version: opts.baseVersion.split(".").slice(0, 2).join("."),
        }),
      );
    }
    const clock = { t: Date.now() };
    const state = { value: "stopped" as ServerState };
    const panel = await startPanel({
      args: [
        "--factorio-dir",
        factorioDir,
        "--mod-portal-url",
        fake.url,
        "--auth-url",
        fake.url,
        ...(opts.extraArgs ?? []),
      ],
      now: () => clock.t,
      prepare: (ctx) => {
        ctx.serverState = () => state.value;
      },
    });
    const modsDir = join(factorioDir, "mods");
    const m: ModPanel = {
      panel,
      fake,
      c: await panel.login(),
      factorioDir,
      modsDir,
      clock,
      state,
      addFixture: (file, as) => copyFileSync(join(MOD_FIXTURES, "mods", file), join(modsDir, as ?? file)),
      portalLogin: async () => {
        const r = await m.c.post("/api/mods/portal/login", {
          username: USERS[0].username,
          password: USERS[0].password,
        });
        if (r.status !== 200) throw new Error(`portal login failed: ${r.status} ${r.text}`);
      },
      modList: () => JSON.parse(readFileSync(join(modsDir, "mod-list.json"), "utf8")),
    };
    try {
      await fn(m);
    } finally {
      await panel.close();
      await fake.close();
      rmSync(factorioDir, { recursive: true, force: true });
    }
  };
}
