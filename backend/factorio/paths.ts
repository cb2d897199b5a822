// The one place where a name from a request becomes a file name. Every route that takes a save, mod, pack
// or file name passes it through safeName(); nothing else joins request input onto a directory.

import { join, resolve, sep } from "node:path";
import { Invalid } from "../lib/errors.ts";
import { unsafeTextError } from "../../shared/validation.ts";

export interface NameRules {
  /** Added when missing, e.g. ".zip" for saves. Compared case-insensitively. */
  ext?: string;
  /** Names the game reserves for its rotating autosaves; refused for saves the panel creates. */
  forbidAutosavePrefix?: boolean;
}

const MAX_NAME_BYTES = 200;

/**
 * Checks `input` as a single file name and returns it (with `rules.ext` added when missing).
 * `what` names the thing in the error message, e.g. "Save name".
 */
export function safeName(input: unknown, what: string, rules: NameRules = {}): string {
  if (typeof input !== "string" || input.trim() === "") throw new Invalid(`${what} is required`);
  // Checked before trimming: "s1\n" must not become "s1".
  const unsafe = unsafeTextError(input, what);
  if (unsafe) throw new Invalid(unsafe);
  let name = input.trim();
  if (name.includes("/") || name.includes("\\")) throw new Invalid(`${what} must not contain / or \\`);
  if (name === "." || name === ".." || name.includes("..")) {
    throw new Invalid(`${what} must not contain ".."`);
  }
  if (name.startsWith(".")) throw new Invalid(`${what} must not start with a dot`);
  if (/[<>:"|?*]/.test(name)) throw new Invalid(`${what} must not contain any of < > : " | ? *`);
  if (rules.ext && !name.toLowerCase().endsWith(rules.ext.toLowerCase())) name += rules.ext;
  if (rules.ext && name.length === rules.ext.length) throw new Invalid(`${what} is required`);
  if (new TextEncoder().encode(name).length > MAX_NAME_BYTES) {
    throw new Invalid(`${what} is too long (at most ${MAX_NAME_BYTES} bytes)`);
  }
  if (rules.forbidAutosavePrefix && name.toLowerCase().startsWith("_autosave")) {
    throw new Invalid(`${what} must not start with _autosave: the game keeps those names for its autosaves`);
  }
  return name;
}

/** Joins a checked name onto `dir`, and asserts the result really is directly inside it. */
export function inside(dir: string, name: string): string {
  const base = resolve(dir);
  const full = resolve(join(base, name));
  if (!full.startsWith(base + sep) || full.slice(base.length + 1).includes(sep)) {
    throw new Invalid(`"${name}" is not a plain file name`);
  }
  return full;
}

/** The save the old API lists first-class but which is not a file: "start from the newest save". */
const LOAD_LATEST_NAME = "load latest";

/**
 * A save's file name from a request, with the same rules on every route (create, upload, download, delete,
 * read mods): a plain name, ".zip" added when missing, never a name of the game's temp files (*.tmp.zip),
 * which listings leave out. `creating` also refuses the game's autosave names
 * and the "Load Latest" pseudo save, which a new file must not look like.
 */
export function saveFileName(input: unknown, opts: { what?: string; creating?: boolean } = {}): string {
  const what = opts.what ?? "Save name";
  const name = safeName(input, what, { ext: ".zip", forbidAutosavePrefix: opts.creating });
  if (name.toLowerCase().endsWith(".tmp.zip")) {
    throw new Invalid(
      `${what} must not end in .tmp.zip: the game uses such names for saves it is still writing`,
    );
  }
  if (opts.creating && name.slice(0, -".zip".length).trim().toLowerCase() === LOAD_LATEST_NAME) {
    throw new Invalid(
      `${what} must not be "Load Latest": that entry of the list means "start from the newest save"`,
    );
  }
  return name;
}
