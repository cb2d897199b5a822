// The first-run import (an empty panel takes over an old panel's directory or an export archive): the
// answers of /api/import/* and their texts.

export type { ImportResult, ImportStatus } from "./contract/transfer.ts";

export const TRANSFER_MSG = {
  notFresh:
    "This panel is already set up, so the import is not offered here. Import on the command line with --import FILE --import-merge.",
  dirRequired: "Enter the folder of the old panel (the one holding its conf.json).",
  archiveRequired: "Choose the export archive (.zip) to import.",
  archiveUnusable: (why: string) => `The archive cannot be imported: ${why}. Nothing was changed.`,
  oldPanelUnusable: (why: string) => `Nothing was imported. ${why}`,
  /** A whole panel's archive given where one server's is imported. */
  panelArchive:
    "This archive holds a whole panel (made by --export without --export-server): import it into a new panel, on its first sign-in or with --import.",
  /** A server's archive (--export-server) given where a whole panel's is imported. */
  serverArchive: (name: string) =>
    `This archive holds one server ("${name}"), not a whole panel. Import it into a running panel as a new server, with POST /api/servers/import.`,
};
