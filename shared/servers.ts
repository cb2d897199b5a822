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
  /** `what`: the program, when the panel could tell ("factorio, pid 812"). */
  portHeld: (port: number, what?: string) =>
    what ? `Port ${port} is held by another program (${what}).` : `Port ${port} is held by another program.`,
  portPrivileged: (port: number) =>
    `Port ${port} is below 1024, which only root may use. Choose a higher port.`,
  portsEqual: "The game port and the RCON port must differ.",
  noFreePort: (from: number) => `No free port is left from ${from}. Give the port yourself.`,
  folderRequired: "Name the Factorio folder to use.",
  folderNotAbsolute: (dir: string) => `${dir} is not a full path: give it from the root, like /srv/factorio.`,
  folderMissing: (dir: string) => `There is no folder ${dir} on the panel's machine.`,
  folderNotDirectory: (dir: string) => `${dir} is a file, not a folder.`,
  folderNotWritable: (dir: string) => `The panel may not write in ${dir}: let the panel's user write there.`,
  folderNotFactorio: (dir: string) =>
    `${dir} is not a Factorio directory: it has no saves, mods or config folder.`,
  folderOfServer: (dir: string, name: string) => `${dir} is already the Factorio directory of "${name}".`,
  folderInsideServer: (dir: string, name: string) => `${dir} is inside the Factorio directory of "${name}".`,
  folderHoldsServer: (dir: string, name: string) => `${dir} holds the Factorio directory of "${name}".`,
  folderExists: (dir: string) => `${dir} already exists: a new server gets a folder of its own.`,
  backupUnreadable: (file: string, why: string) => `The backup ${file} cannot be read: ${why}.`,
  sourceServerRequired: "Name the server to copy.",
  backupRequired: "Name the backup to start from.",
  backupNotFound: (id: string) => `There is no backup ${id}.`,
  sourceInvalid: 'Say where the server comes from: {"folder": path}, {"server": id} or {"backup": id}.',
  versionNotInstalled: (v: string) => `Factorio ${v} is not installed. Install it from Controls first.`,
  noSuchServer: (id: string | number) => `There is no server ${id}.`,
  firstServerStays: "The first server cannot be deleted: the panel's own addresses (/api/...) lead to it.",
  confirmName: (name: string) => `To delete without a backup, type the server's name ("${name}") to confirm.`,
  deleted: (name: string) => `The server "${name}" is deleted.`,
  deletedAfterBackup: (name: string, backup: string) =>
    `The server "${name}" is deleted. Its last backup is ${backup}, with its other backups in the first server's Backups.`,
  renamed: "The server is changed.",
  portsWhileRunning: "Stop the server first.",
  firstServerRcon: "The first server's RCON port is set with --rcon-port.",
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
    `The panel stops "${name}" and makes a backup of it first. Its backups, that one included, are kept ` +
    "with the first server's backups. Then it deletes the server: its saves, mods, settings, player lists " +
    "and logs, its schedules and its player history (a Factorio folder it used where it was stays on the disk).",
  deleteNoBackup:
    "Without that last backup, what changed since its last backup is lost; its earlier backups are kept.",
  deleteWithoutBackup: "Delete without a backup",
  deleteWithBackup: "Back up and delete",
  typeName: "The server's name",
  firstStays: "The first server stays: the panel's own addresses lead to it.",
  importTitle: "Import a server",
  importSays: "An archive of one server, made on the other panel with",
  importKeeps:
    'It becomes a new server here, beside these, and replaces nothing. It keeps its name (with " (2)" when ' +
    "one is taken), its game port when free and its game version when that is installed here.",
  importFile: "Server archive",
  importRequired: "Choose the server's archive (.zip) to import.",
  importButton: "Upload and import",
  importChecking: "checks and imports the server",
  imported: "Imported",
} as const;
