// server-settings.json: the game's own file, read and edited in place. The panel keeps the file's key
// order, its layout, its _comment_ keys and every key it does not know; it never sends a secret back in
// clear; and it refuses a value the game would choke on, naming the key. Writes are atomic.

import { readFileSync } from "node:fs";
import { ensureServerSettingsFile, type FactorioPaths } from "../layout.ts";
import { updateJsonText } from "./jsonedit.ts";
import { writeFileAtomic } from "../../lib/fsutil.ts";
import { Conflict, Invalid, NotFound } from "../../lib/errors.ts";
import {
  ADMINS_COMMENT,
  ADMINS_KEY,
  COMMENT_PREFIX,
  isCommentKey,
  isSecretSetting,
  SECRET_MASK,
  type Settings,
  validateSettings,
} from "../../../shared/settings.ts";

/** The admin list lives in its own file; settings only shows and forwards it. */
export interface AdminListAccess {
  admins(): string[];
  setAdmins(names: string[]): Promise<unknown>;
  checkNames(names: string[]): void;
}

const MAX_FILE_BYTES = 1024 * 1024;

export class ServerSettings {
  constructor(private readonly paths: FactorioPaths, private readonly adminList: AdminListAccess) {}

  /** The file as stored (secrets in clear): for the panel itself, never for the API. */
  readStored(): { text: string; value: Settings } {
    if (!ensureServerSettingsFile(this.paths)) {
      throw new NotFound(
        `${this.paths.serverSettings} does not exist, and the game's example to create it from ` +
          `(${this.paths.serverSettingsExample}) was not found either. Check --factorio-dir.`,
      );
    }
    const bytes = readFileSync(this.paths.serverSettings);
    if (bytes.length > MAX_FILE_BYTES) {
      throw new Conflict(`${this.paths.serverSettings} is too large to be a settings file.`);
    }
    const text = new TextDecoder().decode(bytes);
    let value: unknown;
    try {
      value = JSON.parse(text.replace(/^\uFEFF/, ""));
    } catch (e) {
      throw new Conflict(
        `${this.paths.serverSettings} is not valid JSON (${(e as Error).message}). Fix or delete it.`,
      );
    }
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new Conflict(`${this.paths.serverSettings} must hold a JSON object.`);
    }
    return { text, value: value as Settings };
  }

  /** GET /api/settings: the flat object in file order, secrets masked, the admin list under `admins`. */
  get(): Settings {
    const { value } = this.readStored();
    const out: Settings = {};
    const placeAdmins = () => {
      out[COMMENT_PREFIX + ADMINS_KEY] = ADMINS_COMMENT;
      out[ADMINS_KEY] = this.adminList.admins();
    };
    for (const [key, v] of Object.entries(value)) {
      // A leftover `admins` key from an old panel is not the game's list: the list file is.
      if (key === ADMINS_KEY || key === COMMENT_PREFIX + ADMINS_KEY) continue;
      out[key] = isSecretSetting(key) && typeof v === "string" && v !== "" ? SECRET_MASK : v;
      if (key === "tags") placeAdmins();
    }
    if (!(ADMINS_KEY in out)) placeAdmins();
    return out;
  }

  /**
   * POST /api/settings/update: merges `body` into the file (keys left out stay as they are). Nothing is
   * written unless every key passes; `_comment_` keys are documentation and are never changed.
   */
  async update(body: Record<string, unknown>): Promise<void> {
    const { value: stored } = this.readStored();
    const errors = validateSettings(body, stored);
    const messages = Object.values(errors);
    if (messages.length > 0) throw new Invalid(messages.join(" "));

    let admins: string[] | undefined;
    if (ADMINS_KEY in body) {
      admins = body[ADMINS_KEY] as string[];
      this.adminList.checkNames(admins);
    }

    const next: Settings = { ...stored };
    for (const [key, v] of Object.entries(body)) {
      if (isCommentKey(key) || key === ADMINS_KEY) continue;
      if (isSecretSetting(key) && v === SECRET_MASK) continue;
      next[key] = v as Settings[string];
    }
    // The admin list first: while the game runs it goes over RCON and may be refused; then nothing of
    // this request has been written yet.
    const adminsBefore = this.adminList.admins();
    const adminsChange = admins && JSON.stringify(admins) !== JSON.stringify(adminsBefore);
    if (adminsChange) await this.adminList.setAdmins(admins!);
    try {
      // Re-read: the list change above may have awaited the game, and the file may have changed meanwhile.
      const current = this.readStored();
      const merged: Settings = { ...current.value };
      for (const key of Object.keys(next)) {
        if (JSON.stringify(next[key]) !== JSON.stringify(stored[key])) merged[key] = next[key];
      }
      // Owner-only: the file holds the factorio.com password or token and the game password.
      writeFileAtomic(this.paths.serverSettings, updateJsonText(current.text, merged), 0o600);
    } catch (e) {
      // The settings could not be written: the admin list goes back to what it was, so the request
      // changed nothing.
      if (adminsChange) await this.adminList.setAdmins(adminsBefore).catch(() => {});
      throw e;
    }
  }
}
