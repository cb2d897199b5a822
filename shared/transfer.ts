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
};
