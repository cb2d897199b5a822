// Facts about the game that both sides need.

/**
 * Mods that ship with the game inside data/ and must never be downloaded from the portal or deleted:
 * base (and core) always; elevated-rails, quality and space-age since 2.0; recycler since 2.1.
 */
export const BUILT_IN_MODS = ["base", "core", "elevated-rails", "quality", "space-age", "recycler"] as const;

export function isBuiltInMod(name: string): boolean {
  return (BUILT_IN_MODS as readonly string[]).includes(name);
}

/**
 * config.ini sections that only the game's client reads (graphics, sound, controls ...), and the lobby
 * defaults for hosting from the game's menu, which a dedicated server takes from server-settings.json.
 */
export const CLIENT_ONLY_CONFIG_SECTIONS = [
  "interface",
  "controls",
  "sound",
  "map-view",
  "debug",
  "graphics",
  "multiplayer-lobby",
] as const;

export function isClientOnlyConfigSection(name: string): boolean {
  return (CLIENT_ONLY_CONFIG_SECTIONS as readonly string[]).includes(name);
}
