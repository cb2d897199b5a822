// New worlds: what the generator offers, previews rendered by the game, creating a world with settings, and
// map exchange strings. Previews and creating run the game on the game directory, so they hold it
// (requiresStopped): 423 while the server runs, and the server does not start meanwhile.

import type { AppContext } from "../boot/context.ts";
import { factorioPaths } from "../factorio/layout.ts";
import { gameInfo } from "../factorio/mods/moddir.ts";
import { parseWorldSettings, WorldGenerator } from "../factorio/world/generator.ts";
import type { GeneratorInfo } from "../../shared/world.ts";
import { completeForExchange } from "../factorio/world/complete.ts";
import { Invalid, Locked } from "../lib/errors.ts";

import { listScenarios } from "../factorio/world/scenarios.ts";
import { scenarioToSave } from "../factorio/world/scenario2map.ts";
import { saveFileName } from "../factorio/paths.ts";
import { LOAD_LATEST } from "../../shared/api.ts";
import { PANEL_MSG } from "../../shared/messages.ts";
import { parseStartRequest } from "./server.ts";
import { decodeExchangeString, encodeExchange, ExchangeError } from "../factorio/world/exchange.ts";
import { reply, type Route, route, sessionOf } from "./routes.ts";

const PREVIEW_SIZES = { min: 64, max: 1024, default: 512 };

/** Runs `fn` with the exchange-string codec; a string it cannot use is a 400 that says why. */
function exchange<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof ExchangeError) throw new Invalid(`Not a usable map exchange string: ${e.message}.`);
    throw e;
  }
}

export function worldRoutes(ctx: AppContext): Route[] {
  const paths = factorioPaths(ctx.config);
  const game = gameInfo(paths);
  const live = ctx.mods.live;
  const generator = new WorldGenerator({
    paths,
    dataDir: ctx.config.dataDir,
    log: ctx.log,
    gameVersion: () => game.version(),
    timeoutMs: ctx.config.saveCreateTimeout * 1000,
  });

  /** The scenario a request names, checked against the list the page shows. */
  async function knownScenario(name: unknown): Promise<string> {
    const scenarios = await listScenarios(paths, live);
    if (typeof name !== "string" || !scenarios.some((s) => s.name === name)) {
      throw new Invalid(`name must be one of the scenarios: ${scenarios.map((s) => s.name).join(", ")}`);
    }
    return name;
  }

  return [
    route("GET /api/world/generator", async () => {
      // The game's data dump needs the game directory; while the server runs, a dump made before is used.
      // Without one the page shows the example settings and says why: the server runs, or (stopped) the
      // game's dump failed, which is not the same advice.
      const examples = (info: GeneratorInfo, reason: string): GeneratorInfo =>
        info.source === "examples" ? { ...info, examples_reason: reason } : info;
      const running =
        "Presets and planets come from the game, which can be asked only while the server is stopped; " +
        "the form shows the game's example settings.";
      if (ctx.serverState() !== "stopped") return examples(await generator.info(false), running);
      try {
        const info = await ctx.game.whileStopped(
          "reading the world generator's data",
          () => generator.info(true),
        );
        return examples(
          info,
          "The game could not list its presets and planets (its data dump failed; the panel's log has the game's " +
            "output), so the form shows the game's example settings.",
        );
      } catch (e) {
        if ((e as { status?: number }).status === 423) return examples(await generator.info(false), running);
        throw e;
      }
    }),
    route("POST /api/world/preview", async (_c, { body }) => {
      const settings = parseWorldSettings(body.settings ?? {});
      const planet = body.planet ?? "nauvis";
      const known = (await generator.info(true)).planets.map((p) => p.name);
      if (!known.includes(planet)) {
        throw new Invalid(`planet must be one of this game's planets: ${known.join(", ")}`);
      }
      const size = body.size ?? PREVIEW_SIZES.default;
      if (!Number.isInteger(size) || size < PREVIEW_SIZES.min || size > PREVIEW_SIZES.max) {
        throw new Invalid(
          `size must be a whole number of pixels from ${PREVIEW_SIZES.min} to ${PREVIEW_SIZES.max}`,
        );
      }
      const png = await generator.preview(settings, planet, size);
      return new Response(png as BodyInit, {
        headers: { "Content-Type": "image/png", "Cache-Control": "private, max-age=3600" },
      });
    }),
    route("POST /api/world/create", async (_c, { body }) => {
      const settings = parseWorldSettings(body.settings ?? {});
      const { args, cleanup } = generator.settingsArgs(settings);
      try {
        const message = await ctx.saves.create(body.name, args);
        return message;
      } finally {
        cleanup();
      }
    }),
    route("GET /api/world/scenarios", async () => await listScenarios(paths, live)),
    route("POST /api/world/scenarios/start", async (c, { body }) => {
      if (ctx.serverState() !== "stopped") throw new Locked(PANEL_MSG.serverNotStopped);
      const scenario = await knownScenario(body.name);
      const request = { ...parseStartRequest({ ...body, savefile: LOAD_LATEST }), scenario };
      ctx.log.info("Start on a scenario requested", {
        user: sessionOf(c).user.username,
        scenario: body.name,
        port: request.port,
      });
      const { status, message } = await ctx.gameOps.run("start", () => ctx.game.start(request));
      // The game's own start message would name "Load Latest"; the scenario is what was started.
      return reply(
        c,
        status === 200 ? `Server started on the scenario ${body.name}, port ${request.port}.` : message,
        status as 200 | 202,
      );
    }),
    // {"name": scenario, "save": save name, "overwrite"?: true}: the game's --scenario2map, the map moved
    // to saves/<save>.zip (see world/scenario2map.ts).
    route("POST /api/world/scenarios/save", async (c, { body }) => {
      const scenario = await knownScenario(body.name);
      const save = saveFileName(body.save ?? scenario.split("/").pop(), {
        what: "Save name",
        creating: true,
      });
      ctx.log.info("Save from a scenario requested", { user: sessionOf(c).user.username, scenario, save });
      const options = {
        savesDir: paths.saves,
        modsDir: paths.mods,
        run: (args: string[]) => generator.runGame(args),
        log: ctx.log,
      };
      return await ctx.saves.making(
        save,
        () => scenarioToSave(options, scenario, save, body.overwrite === true),
      );
    }),
    route("POST /api/world/exchange-string/decode", async (_c, { body }) => {
      if (body.string.trim() === "") throw new Invalid(PANEL_MSG.exchangeStringMissing);
      return exchange(() => decodeExchangeString(body.string));
    }),
    route("POST /api/world/exchange-string/encode", async (_c, { body }) => {
      const version = body.version ?? game.version();
      if (typeof version !== "string") {
        throw new Invalid("version is required: the game's version could not be read");
      }
      // Settings from the form or the example files lack parts every string holds: the game's defaults fill them.
      const full = completeForExchange(version, body.map_gen_settings, body.map_settings);
      const { string, leftOut } = exchange(() => encodeExchange({ version, ...full }, true));
      return leftOut.length > 0 ? { string, left_out: leftOut } : { string };
    }),
  ];
}
