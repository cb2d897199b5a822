// The first-run import (an empty panel takes over an old panel's directory or an export archive): the
// answers of /api/import/* and their texts.

export interface ImportStatus {
  /** True while nobody has set the panel up: only the first-start admin, still with its generated password. */
  available: boolean;
}

export interface ImportResult {
  /** What was (or, for a preview, would be) imported, one line each. */
  lines: string[];
  /** New passwords of imported users who came without one: shown once. */
  passwords: { username: string; password: string }[];
  /** The signed-in first-start admin now has the imported password (this session stays signed in). */
  admin_password_replaced: boolean;
}

export const TRANSFER_MSG = {
  notFresh:
    "This panel is already set up, so the import is not offered here. Import on the command line with --import FILE --import-merge.",
  dirRequired: "Enter the folder of the old panel (the one holding its conf.json).",
  archiveRequired: "Choose the export archive (.zip) to import.",
  archiveUnusable: (why: string) => `The archive cannot be imported: ${why}. Nothing was changed.`,
  oldPanelUnusable: (why: string) => `Nothing was imported. ${why}`,
};
