// mod-settings.dat of the live mods folder: read it as JSON, change values, replace it with an upload.
// Every write is atomic and runs under the mods folder's lock (the same one mod changes take), so it never
// interleaves with a mod install or "delete all". Values the request leaves alone keep their bytes. The
// file an upload replaces is kept (one copy, in the data dir) and can be put back; that swaps the two.

import { existsSync, readFileSync, statSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import type {
  ModSettingDefinitions,
  ModSettingKind,
  ModSettingSection,
  ModSettingsState,
} from "../../../shared/modsettings.ts";
import { checkSettingValue, MOD_SETTING_SECTIONS } from "../../../shared/modsettings.ts";
import { parseVersion } from "../../../shared/versions.ts";
import { Conflict, Invalid, NotFound } from "../../lib/errors.ts";
import { writeFileAtomic } from "../../lib/fsutil.ts";
import { type ModDir, withLock } from "../mods/moddir.ts";
import { installedDefinitions } from "./definitions.ts";
import {
  decodeModSettings,
  encodeModSettings,
  type ModSettingsFile,
  PropertyTreeError,
  type PTree,
} from "./propertytree.ts";
import { dict, entry, jsonEqual, kindOfTree, treeToJson, valueToTree } from "./values.ts";

/** Far above any real file (a few hundred KiB with hundreds of mods); bounds what is read into memory. */
export const MAX_MOD_SETTINGS_BYTES = 16 * 1024 * 1024;

type DictTree = Extract<PTree, { type: "dict" }>;

function versionString(v: number[]): string {
  return v.join(".");
}

function findEntry(d: DictTree, key: string) {
  return d.entries.find((e) => e.key === key);
}

/** The "value" node of a setting's entry ({"value": ...}); null for shapes the game does not write. */
function valueNode(setting: PTree): PTree | null {
  if (setting.type !== "dict") return null;
  return findEntry(setting, "value")?.value ?? null;
}

export class ModSettingsService {
  /** `previousPath`: where the file an upload replaced is kept. */
  constructor(
    private readonly dir: ModDir,
    private readonly gameVersion: () => string | null,
    private readonly previousPath: string,
  ) {}

  get path(): string {
    return this.dir.modSettingsPath;
  }

  exists(): boolean {
    return existsSync(this.path);
  }

  /** The file as read, or a new empty one for the installed game when there is none. */
  private load(): ModSettingsFile {
    let bytes: Uint8Array;
    try {
      if (statSync(this.path).size > MAX_MOD_SETTINGS_BYTES) {
        throw new Conflict("mod-settings.dat is too large to be a settings file.");
      }
      bytes = readFileSync(this.path);
    } catch (e) {
      if ((e as { code?: string }).code !== "ENOENT") throw e;
      const game = parseVersion(this.gameVersion() ?? "");
      if (!game) {
        throw new Conflict(
          "There is no mod-settings.dat yet, and the game's version cannot be read to start one.",
        );
      }
      return {
        version: [game[0], game[1], game[2], 0],
        flag: 0,
        tree: dict(MOD_SETTING_SECTIONS.map((s) => entry(s, dict([])))),
      };
    }
    try {
      return decodeModSettings(bytes);
    } catch (e) {
      if (!(e instanceof PropertyTreeError)) throw e;
      throw new Conflict(
        `mod-settings.dat cannot be read (${e.message}). Upload a good one, or delete it and let the game write a new one.`,
      );
    }
  }

  read(): ModSettingsState {
    return this.#state(this.load());
  }

  #state(file: ModSettingsFile): ModSettingsState {
    return { ...toState(file), previous: this.#previous() };
  }

  /** The kept file's time and version (its header), or null when there is none or it is not readable. */
  #previous(): ModSettingsState["previous"] {
    try {
      const bytes = readFileSync(this.previousPath);
      return {
        replaced: new Date(statSync(this.previousPath).mtimeMs).toISOString(),
        version: versionString(decodeModSettings(bytes).version),
      };
    } catch {
      return null;
    }
  }

  definitions(): Promise<ModSettingDefinitions> {
    return installedDefinitions(this.dir);
  }

  /**
   * Applies `body` ({"settings": {section: {name: {"value": v} | null}}}): each named value is set (null
   * removes the setting, so the game uses the mod's default). Values keep their stored type; a setting not
   * in the file needs a definition from an installed mod. Nothing is written unless every change is valid.
   */
  async update(body: unknown): Promise<ModSettingsState> {
    const changes = parseUpdate(body);
    const { definitions } = await this.definitions();
    return await withLock(this.dir.dir, () => {
      const file = this.load();
      const intsAsDoubles = file.version[0] < 2;
      const root = file.tree as DictTree;
      const problems: string[] = [];
      for (const [section, name, value] of changes) {
        let sectionEntry = findEntry(root, section);
        if (!sectionEntry) {
          sectionEntry = entry(section, dict([]));
          root.entries.push(sectionEntry);
        }
        const settings = sectionEntry.value;
        if (settings.type !== "dict") {
          problems.push(`The ${section} section of mod-settings.dat is not a list of settings.`);
          continue;
        }
        const i = settings.entries.findIndex((e) => e.key === name);
        if (value === null) {
          if (i >= 0) settings.entries.splice(i, 1);
          continue;
        }
        const stored = i >= 0 ? valueNode(settings.entries[i].value) : null;
        const def = definitions.find((d) => d.name === name && d.setting_type === section);
        const kind: ModSettingKind | null = def?.type ?? (stored ? kindOfTree(stored) : null);
        const label = `${name} (${section})`;
        if (kind === null) {
          problems.push(
            stored
              ? `${label} holds a value the panel cannot edit.`
              : `${label}: no installed mod defines this setting.`,
          );
          continue;
        }
        if (!(stored && jsonEqual(treeToJson(stored), value)) && def) {
          const why = checkSettingValue(def, value);
          if (why) {
            problems.push(`${label} ${why}.`);
            continue;
          }
        }
        const node = valueToTree(value, stored, kind, intsAsDoubles);
        if (typeof node === "string") {
          problems.push(`${label} ${node}.`);
          continue;
        }
        if (node === stored) continue;
        const setting = dict([entry("value", node)]);
        if (i >= 0) {
          // Keep any other keys the game wrote beside "value".
          const old = settings.entries[i].value;
          if (old.type === "dict") {
            const v = findEntry(old, "value");
            if (v) v.value = node;
            else old.entries.push(entry("value", node));
          } else settings.entries[i].value = setting;
        } else settings.entries.push(entry(name, setting));
      }
      if (problems.length > 0) throw new Invalid(problems.join(" "));
      writeFileAtomic(this.path, encodeModSettings(file));
      return this.#state(file);
    });
  }

  /**
   * Puts an uploaded file in place after checking that it decodes; otherwise removes it (400). The file it
   * replaces is kept first (restorePrevious brings it back).
   */
  async replaceWith(tempPath: string): Promise<ModSettingsState> {
    try {
      let file: ModSettingsFile;
      try {
        file = decodeModSettings(readFileSync(tempPath));
      } catch (e) {
        if (!(e instanceof PropertyTreeError)) throw e;
        throw new Invalid(`The file is not a readable mod-settings.dat: ${e.message}.`);
      }
      await withLock(this.dir.dir, async () => {
        if (existsSync(this.path)) writeFileAtomic(this.previousPath, readFileSync(this.path));
        await rename(tempPath, this.path);
      });
      return this.#state(file);
    } finally {
      await rm(tempPath, { force: true });
    }
  }

  /** Puts the kept file back, keeping the one it replaces in its place (so this can be undone the same way). */
  restorePrevious(): Promise<ModSettingsState> {
    return withLock(this.dir.dir, () => {
      let kept: Uint8Array;
      try {
        kept = readFileSync(this.previousPath);
      } catch {
        throw new NotFound(
          "There is no earlier mod-settings.dat to restore: it is kept when an upload replaces the file.",
        );
      }
      let file: ModSettingsFile;
      try {
        file = decodeModSettings(kept);
      } catch (e) {
        if (!(e instanceof PropertyTreeError)) throw e;
        throw new Conflict(`The kept mod-settings.dat cannot be read (${e.message}).`);
      }
      const current = existsSync(this.path) ? readFileSync(this.path) : null;
      writeFileAtomic(this.path, kept);
      if (current) writeFileAtomic(this.previousPath, current);
      return this.#state(file);
    });
  }
}

function toState(file: ModSettingsFile): Omit<ModSettingsState, "previous"> {
  const state: Omit<ModSettingsState, "previous"> = {
    version: versionString(file.version),
    settings: { "startup": {}, "runtime-global": {}, "runtime-per-user": {} },
  };
  for (const section of (file.tree as DictTree).entries) {
    if (section.key === null || section.value.type !== "dict") continue;
    const out: Record<string, { value: unknown }> =
      (state.settings as Record<string, Record<string, { value: unknown }>>)[section.key] ??= {};
    for (const s of section.value.entries) {
      if (s.key === null) continue;
      const v = valueNode(s.value);
      out[s.key] = { value: v ? treeToJson(v) : null };
    }
  }
  return state;
}

const MAX_CHANGES = 10_000;

function parseUpdate(body: unknown): [ModSettingSection, string, unknown][] {
  const shape = 'Send {"settings": {"startup": {"setting-name": {"value": ...}}}}.';
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw new Invalid(shape);
  const settings = (body as Record<string, unknown>).settings;
  if (typeof settings !== "object" || settings === null || Array.isArray(settings)) throw new Invalid(shape);
  const out: [ModSettingSection, string, unknown][] = [];
  for (const [section, names] of Object.entries(settings)) {
    if (!MOD_SETTING_SECTIONS.includes(section as ModSettingSection)) {
      throw new Invalid(`Unknown section "${section}": mod settings are ${MOD_SETTING_SECTIONS.join(", ")}.`);
    }
    if (typeof names !== "object" || names === null || Array.isArray(names)) throw new Invalid(shape);
    for (const [name, v] of Object.entries(names)) {
      if (name === "" || name.length > 200) {
        throw new Invalid(`"${name.slice(0, 40)}" is not a setting name.`);
      }
      if (v === null) out.push([section as ModSettingSection, name, null]);
      else if (
        typeof v === "object" && !Array.isArray(v) && "value" in v && (v as { value: unknown }).value !== null
      ) {
        out.push([section as ModSettingSection, name, (v as { value: unknown }).value]);
      } else throw new Invalid(`${name}: give the setting as {"value": ...}, or null to remove it.`);
      if (out.length > MAX_CHANGES) throw new Invalid(`At most ${MAX_CHANGES} settings at once.`);
    }
  }
  return out;
}
