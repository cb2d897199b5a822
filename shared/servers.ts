// Words and rules of the servers feature (several Factorio servers from one panel).

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
  backupNotFound: (id: string) => `There is no backup ${id}.`,
  sourceInvalid: 'Say where the server comes from: {"folder": path}, {"server": id} or {"backup": id}.',
  versionNotInstalled: (v: string) => `Factorio ${v} is not installed. Install it from Controls first.`,
  noSuchServer: (id: string | number) => `There is no server ${id}.`,
  firstServerStays: "The first server cannot be deleted: the panel's own addresses (/api/...) lead to it.",
  confirmName: (name: string) => `To delete without a backup, type the server's name ("${name}") to confirm.`,
  deleted: (name: string) => `The server "${name}" is deleted.`,
  deletedAfterBackup: (name: string, backup: string) =>
    `The server "${name}" is deleted. Its backup is ${backup}.`,
  renamed: "The server is changed.",
  portsWhileRunning: "Stop the server first.",
  firstServerRcon: "The first server's RCON port is set with --rcon-port.",
} as const;
