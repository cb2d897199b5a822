// Words and rules of the servers feature (several Factorio servers from one panel).

/** The first server: the one /api/R (without /servers/{id}) addresses (here, not in the contract: the app imports it). */
export const FIRST_SERVER = 1;
export const SERVER_NAME_MAX = 40;
/** The first game port offered, and the first RCON port. */
export const FIRST_GAME_PORT = 34197;
export const FIRST_RCON_PORT = 27015;

export const SERVERS_MSG = {
  nameRequired: "Give the server a name.",
  nameTooLong: `A server's name is at most ${SERVER_NAME_MAX} characters.`,
  nameTaken: (name: string) => `There is already a server named "${name}".`,
  portInvalid: "A port is a whole number from 1 to 65535.",
  portOfServer: (port: number, name: string) => `Port ${port} is already used by the server "${name}".`,
  portHeld: (port: number, what: string) => `Port ${port} is held by another program (${what}).`,
  folderRequired: "Name the Factorio folder to use.",
  folderNotFactorio: (dir: string) =>
    `${dir} is not a Factorio directory: it has no saves, mods or config folder.`,
  folderOfServer: (dir: string, name: string) => `${dir} is already the Factorio directory of "${name}".`,
  sourceServerRequired: "Name the server to copy.",
  backupRequired: "Name the backup to start from.",
  sourceInvalid: 'Say where the server comes from: {"folder": path}, {"server": id} or {"backup": id}.',
  versionNotInstalled: (v: string) => `Factorio ${v} is not installed. Install it from Controls first.`,
  noSuchServer: (id: string | number) => `There is no server ${id}.`,
  firstServerStays: "The first server cannot be deleted: the panel's own addresses (/api/...) lead to it.",
  confirmName: (name: string) => `To delete without a backup, type the server's name ("${name}") to confirm.`,
  deleted: (name: string) => `The server "${name}" is deleted.`,
  deletedAfterBackup: (name: string, backup: string) =>
    `The server "${name}" is deleted. Its backup is ${backup}.`,
  renamed: "The server is changed.",
  portsWhileRunning: "Stop the server before changing its ports.",
} as const;

/** The app's words for servers (the switcher, the overview, the Servers page). */
export const SERVERS_UI = {
  switcherLabel: "Server shown",
  allServers: "All servers",
  manage: "Manage servers",
  overviewTitle: "Servers",
  adminTitle: "Servers",
  noServers: "No server is shared with you yet. An admin gives you a role on one.",
  notAnswering: (at: string) => `The panel is not answering: this is what it said at ${at}.`,
  uptime: "Up",
  players: "Players online",
  lastEvent: "Last event",
  nothingYet: "Nothing yet",
  start: "Start",
  saveAndStop: "Save & Stop",
  openControls: "Controls",
  noLastStart: "This server has not been started yet: choose its save on its Controls.",
  add: "Add server",
  rename: "Rename",
  remove: "Delete",
  name: "Name",
  port: "Game port",
  rconPort: "RCON port",
  nextFree: "next free",
  version: "Game version",
  versionDefault: "The first server's version",
  source: "Start from",
  sourceEmpty: "An empty server",
  sourceFolder: "A Factorio folder on this machine",
  sourceServer: "A copy of a server",
  sourceBackup: "A backup",
  folder: "Factorio folder",
  folderHint: "Used where it is: the panel does not move it.",
  copyOf: "Server to copy",
  backupOf: "Backups of",
  backup: "Backup",
  noBackups: "That server has no backups.",
  added: (name: string) => `The server "${name}" is added.`,
  deleteTitle: (name: string) => `Delete the server "${name}"`,
  deleteSays: (name: string) =>
    `The panel stops "${name}" and makes a backup of it first (kept with the panel's backups). Then it ` +
    "deletes the server: its saves, mods, settings, player lists and logs, its schedules and its player " +
    "history.",
  deleteNoBackup: "Without a backup, nothing of it is kept.",
  deleteWithoutBackup: "Delete without a backup",
  deleteWithBackup: "Back up and delete",
  typeName: "The server's name",
  firstStays: "The first server stays: the panel's own addresses lead to it.",
} as const;
