// Where people report bugs and find help.
export const PROJECT_ISSUES_URL = "https://github.com/factorio-panel/factorio-panel/issues";
export const FACTORIO_MULTIPLAYER_WIKI_URL = "https://wiki.factorio.com/Multiplayer";
