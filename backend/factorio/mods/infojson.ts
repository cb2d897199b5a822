// A mod's info.json, read from its zip (or its folder) without unpacking anything. The game packs a mod as
// "<name>_<version>.zip" holding one folder with info.json in it; some tools put info.json at the top.
// Anything else, or an info.json that does not say what the game needs, is a ModFileError: the caller
// lists such a file as broken instead of failing.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ZipError, ZipReader } from "../../lib/zip.ts";
import { parseVersion } from "../../../shared/versions.ts";

export class ModFileError extends Error {}

export interface ModInfoJson {
  name: string;
  version: string;
  title: string;
  author: string;
  /** As written ("1.1"); the game's default for mods that leave it out is 0.12. */
  factorio_version: string;
  dependencies: string[];
}

const INFO_MAX_BYTES = 1024 * 1024;

/** Mod names as the portal and the game allow them (old mods have spaces); never a path. */
const MOD_NAME = /^[A-Za-z0-9_\-+ ][A-Za-z0-9_.\-+ ]{0,99}$/;

export function isModName(name: unknown): name is string {
  return typeof name === "string" && MOD_NAME.test(name) && !name.includes("..") && name.trim() === name;
}

/** Checks the fields the game needs and fills in its defaults. */
export function parseInfoJson(text: string): ModInfoJson {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new ModFileError(`info.json is not valid JSON (${(e as Error).message})`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) {
    throw new ModFileError("info.json is not a JSON object");
  }
  const o = data as Record<string, unknown>;
  if (!isModName(o.name)) throw new ModFileError('info.json has no valid "name"');
  // The version becomes part of the file name: digits and dots only.
  if (typeof o.version !== "string" || !/^\d+(\.\d+){1,3}$/.test(o.version) || !parseVersion(o.version)) {
    throw new ModFileError('info.json has no valid "version"');
  }
  const factorioVersion = o.factorio_version ?? "0.12";
  if (typeof factorioVersion !== "string" || !parseVersion(factorioVersion)) {
    throw new ModFileError('info.json has an invalid "factorio_version"');
  }
  const deps = o.dependencies ?? ["base"];
  if (!Array.isArray(deps) || deps.some((d) => typeof d !== "string")) {
    throw new ModFileError('info.json has invalid "dependencies" (must be a list of strings)');
  }
  return {
    name: o.name,
    version: o.version,
    title: typeof o.title === "string" && o.title.trim() !== "" ? o.title : o.name,
    author: typeof o.author === "string" ? o.author : "",
    factorio_version: factorioVersion,
    dependencies: deps as string[],
  };
}

/** info.json of a mod zip: in its one top folder (as the game packs mods) or at the top of the zip. */
export async function readModZip(path: string): Promise<ModInfoJson> {
  let zip: ZipReader;
  try {
    zip = await ZipReader.open(path);
  } catch (e) {
    if (e instanceof ZipError) throw new ModFileError(`not a valid zip file (${e.message})`);
    throw e;
  }
  try {
    const entry = zip.entries.find((e) => /^[^/]+\/info\.json$/.test(e.name)) ?? zip.find("info.json");
    if (!entry) throw new ModFileError("the zip has no info.json (in its top folder)");
    const bytes = await zip.read(entry, INFO_MAX_BYTES);
    return parseInfoJson(new TextDecoder().decode(bytes));
  } catch (e) {
    if (e instanceof ZipError) throw new ModFileError(`info.json cannot be read (${e.message})`);
    throw e;
  } finally {
    await zip.close();
  }
}

/** info.json of an unpacked mod folder. */
export function readModFolder(dir: string): ModInfoJson {
  let text: string;
  try {
    text = readFileSync(join(dir, "info.json"), "utf8");
  } catch {
    throw new ModFileError("the folder has no info.json");
  }
  return parseInfoJson(text);
}
