// Import from the old panel (factorio-server-manager, "FSM"): its conf.json, its SQLite user table, its mod
// packs and its mod portal credentials (facts in fsm-behaviour.md sections 2.3, 5.3, 5.4, 8.3, 8.8).
//
// Users keep their names, e-mails and roles, and their passwords keep working: FSM stored
// base64(bcrypt(password)); the hash is kept as "fsm-bcrypt$<bcrypt>", checked with bcrypt at the user's
// next sign-in and then replaced by the panel's own scrypt hash (auth/password.ts). Nothing that exists is
// overwritten, so a second run imports nothing. Its Factorio directory, when it is on this machine,
// becomes a new server used where it is (not server 1, which is this panel's --factorio-dir and may be in
// use); the other settings FSM used (addresses, ports) are only offered: printed as the flags to start with.

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Buffer } from "node:buffer";
import type { Role } from "../../shared/api.ts";
import { bcryptHashProblem, FSM_HASH_PREFIX } from "../auth/password.ts";
import { usernameProblem, visibleText } from "../../shared/validation.ts";

export class FsmImportError extends Error {}

export interface FsmUser {
  username: string;
  email: string;
  /** FSM's role string as stored ("admin", often empty for users made in its UI). */
  fsmRole: string;
  /** The bcrypt hash ($2a$/$2b$...). */
  bcrypt: string;
}

export interface FsmSource {
  dir: string;
  confFile: string;
  databaseFile: string;
  users: FsmUser[];
  /** Users left behind: their names are ones this panel refuses (spaces, control characters...). */
  refused: { username: string; why: string }[];
  /** Mod pack folders: name and path. */
  packs: { name: string; path: string }[];
  credentials: { username: string; token: string } | null;
  /** What FSM ran with, to offer as this panel's settings. */
  settings: { factorioDir?: string; bind?: string; port?: number; rconPort?: number };
}

function str(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** Why a file could not be read, in words (not "ENOENT: no such file or directory, open ..."). */
function unreadable(file: string, e: unknown): string {
  const code = (e as { code?: string }).code;
  if (code === "EACCES" || code === "EPERM") {
    return `The panel may not read ${file} (permission denied). Let the panel's user read the old panel's folder, or copy the folder where it can.`;
  }
  if (code === "EISDIR") return `${file} is a folder, not the old panel's configuration file.`;
  if (e instanceof SyntaxError) {
    return `${file} is not the old panel's configuration: it is not valid JSON (${e.message}).`;
  }
  return `Cannot read ${file}: ${(e as Error).message}`;
}

/** Reads an FSM directory (the one holding conf.json). Throws FsmImportError with a message for people. */
export function readFsm(dir: string): FsmSource {
  let root = resolve(dir);
  // The path of conf.json itself stands for its folder.
  if (basename(root) === "conf.json" && existsSync(root) && statSync(root).isFile()) root = dirname(root);
  if (!existsSync(root)) throw new FsmImportError(`There is no folder ${root} on the panel's machine.`);
  if (!statSync(root).isDirectory()) {
    throw new FsmImportError(
      `${root} is a file, not the old panel's folder (the one holding its conf.json).`,
    );
  }
  const confFile = join(root, "conf.json");
  if (!existsSync(confFile)) {
    throw new FsmImportError(
      `There is no conf.json in ${root}, so it is not the old panel's folder. Give the folder factorio-server-manager runs from (it holds conf.json).`,
    );
  }
  let conf: Record<string, unknown>;
  try {
    conf = JSON.parse(readFileSync(confFile, "utf8"));
  } catch (e) {
    throw new FsmImportError(unreadable(confFile, e));
  }
  if (typeof conf !== "object" || conf === null || Array.isArray(conf)) {
    throw new FsmImportError(`${confFile} is not the old panel's configuration (a JSON object).`);
  }
  const at = (p: string) => (isAbsolute(p) ? p : join(root, p));
  const dbName = str(conf.sq_lite_database_file) || "sqlite.db";
  const databaseFile = at(dbName);
  const { users, refused } = readUsers(databaseFile);

  const packsDir = at(str(conf.mod_pack_dir) || "mod_packs");
  const packs: FsmSource["packs"] = [];
  if (existsSync(packsDir) && statSync(packsDir).isDirectory()) {
    for (const e of readdirSync(packsDir, { withFileTypes: true })) {
      if (e.isDirectory() && !e.name.startsWith(".")) {
        packs.push({ name: e.name, path: join(packsDir, e.name) });
      }
    }
    packs.sort((a, b) => a.name.localeCompare(b.name));
  }

  let credentials: FsmSource["credentials"] = null;
  const authFile = at(str(conf.factorio_credentials_file) || "factorio.auth");
  if (existsSync(authFile)) {
    try {
      const a = JSON.parse(readFileSync(authFile, "utf8"));
      if (str(a.username) && str(a.userkey)) credentials = { username: a.username, token: a.userkey };
    } catch {
      // an unreadable credentials file is not worth stopping for: the admin logs in to the portal again
    }
  }

  const settings: FsmSource["settings"] = {};
  if (str(conf.factorio_dir)) settings.factorioDir = at(str(conf.factorio_dir));
  if (str(conf.server_ip)) settings.bind = str(conf.server_ip);
  const port = Number(conf.server_port);
  if (Number.isInteger(port) && port > 0 && port < 65536) settings.port = port;
  const rconPort = Number(conf.rcon_port);
  if (Number.isInteger(rconPort) && rconPort > 0 && rconPort < 65536) settings.rconPort = rconPort;

  return { dir: root, confFile, databaseFile, users, refused, packs, credentials, settings };
}

function readUsers(file: string): Pick<FsmSource, "users" | "refused"> {
  if (!existsSync(file)) throw new FsmImportError(`The old panel's user database ${file} does not exist.`);
  let db: DatabaseSync;
  try {
    db = new DatabaseSync(file, { readOnly: true });
  } catch (e) {
    throw new FsmImportError(`Cannot open the old panel's user database ${file}: ${(e as Error).message}`);
  }
  try {
    let rows: Record<string, unknown>[];
    try {
      const columns = (db.prepare("PRAGMA table_info(users)").all() as { name: string }[]).map((c) => c.name);
      if (!columns.includes("username") || !columns.includes("password")) {
        throw new Error("it has no users table with usernames and passwords");
      }
      const alive = columns.includes("deleted_at") ? "WHERE deleted_at IS NULL" : "";
      rows = db.prepare(`SELECT * FROM users ${alive} ORDER BY id`).all() as Record<string, unknown>[];
    } catch (e) {
      throw new FsmImportError(
        `${file} is not a readable user database of the old panel: ${(e as Error).message}`,
      );
    }
    const users: FsmUser[] = [];
    const refused: FsmSource["refused"] = [];
    const seen = new Set<string>();
    for (const r of rows) {
      const username = str(r.username).trim();
      if (!username || seen.has(username.toLowerCase())) continue; // FSM allowed duplicates: the first wins
      // The same rule as a user added on the Users page: FSM took any name.
      const problem = usernameProblem(str(r.username));
      if (problem) {
        refused.push({ username, why: problem });
        continue;
      }
      seen.add(username.toLowerCase());
      const bcrypt = Buffer.from(str(r.password), "base64").toString("utf8");
      // The hash is checked at each sign-in with the cost it names: a dear one would cost every attempt.
      const hashProblem = bcryptHashProblem(bcrypt);
      if (hashProblem) throw new FsmImportError(`${file}: the password of ${username} ${hashProblem}.`);
      users.push({ username, email: str(r.email), fsmRole: str(r.role), bcrypt });
    }
    return { users, refused };
  } finally {
    db.close();
  }
}

/**
 * The panel's role for an FSM user. FSM stored a role but never checked it: every user could do
 * everything. "admin" stays admin; any other user keeps control of the game (operator) but not of panel
 * users, which FSM reserved to nobody in particular.
 */
export function roleFor(fsmRole: string): Role {
  return fsmRole.trim().toLowerCase() === "admin" ? "admin" : "operator";
}

export interface FsmImportTargets {
  /** Whether a user of this name exists (names compare without case, as the panel's do). */
  userExists(username: string): boolean;
  addUser(u: { username: string; passwordHash: string; role: Role; email: string }): void;
  /** Where mod packs live (<data-dir>/mod-packs). */
  packsDir: string;
  portalLoggedIn(): boolean;
  savePortalCredentials(username: string, token: string): void;
  /**
   * What the old panel's Factorio directory is to this panel: null when it is not on this machine, else
   * whether it can become a new server (used where it is), is a server's already, or cannot be used.
   */
  serverFolder(dir: string): ServerFolder | null;
  /** Adds the directory as a new server (used where it is); answers its id and name. */
  addServer(dir: string): Promise<{ id: number; name: string }>;
}

export type ServerFolder =
  | { action: "import" }
  | { action: "exists"; name: string }
  | { action: "unusable"; why: string };

/** The name the old panel's game gets as a server (with " (2)" ... when taken). */
export const OLD_PANEL_SERVER = "Old panel";

export interface FsmImportReport {
  users: { username: string; role: Role; action: "import" | "exists" }[];
  packs: { name: string; action: "import" | "exists" }[];
  credentials: "import" | "exists" | "none";
  /** The old panel's Factorio directory as a server of this panel (null: none on this machine). */
  server: (ServerFolder & { dir: string; id?: number; added?: string }) | null;
  /** The flags that would start this panel the way the old one ran. */
  offered: string[];
}

/** What an import of `src` would do to `to` (nothing is changed). */
export function planFsmImport(
  src: FsmSource,
  to: Pick<FsmImportTargets, "userExists" | "packsDir" | "portalLoggedIn" | "serverFolder">,
): FsmImportReport {
  const offered: string[] = [];
  const dir = src.settings.factorioDir;
  const folder = dir ? to.serverFolder(dir) : null;
  // Its game directory on this machine becomes a server; one elsewhere is only offered as the flag.
  if (dir && !folder) offered.push("--factorio-dir", dir);
  if (src.settings.bind) offered.push("--bind", src.settings.bind);
  if (src.settings.port) offered.push("--port", String(src.settings.port));
  if (src.settings.rconPort) offered.push("--rcon-port", String(src.settings.rconPort));
  return {
    users: src.users.map((u) => ({
      username: u.username,
      role: roleFor(u.fsmRole),
      action: to.userExists(u.username) ? "exists" : "import",
    })),
    packs: src.packs.map((p) => ({
      name: p.name,
      action: existsSync(join(to.packsDir, p.name)) ? "exists" : "import",
    })),
    credentials: !src.credentials ? "none" : to.portalLoggedIn() ? "exists" : "import",
    server: dir && folder ? { ...folder, dir } : null,
    offered,
  };
}

/** Imports what the plan says; returns the plan it carried out. */
export async function applyFsmImport(
  src: FsmSource,
  to: FsmImportTargets,
  copyPack: (from: string, to: string) => Promise<void>,
): Promise<FsmImportReport> {
  const plan = planFsmImport(src, to);
  for (const [i, u] of src.users.entries()) {
    if (plan.users[i].action !== "import") continue;
    to.addUser({
      username: u.username,
      passwordHash: FSM_HASH_PREFIX + u.bcrypt,
      role: plan.users[i].role,
      email: u.email,
    });
  }
  for (const [i, p] of src.packs.entries()) {
    if (plan.packs[i].action === "import") await copyPack(p.path, join(to.packsDir, p.name));
  }
  if (plan.credentials === "import" && src.credentials) {
    to.savePortalCredentials(src.credentials.username, src.credentials.token);
  }
  if (plan.server?.action === "import") {
    const added = await to.addServer(plan.server.dir);
    plan.server = { ...plan.server, id: added.id, added: added.name };
  }
  return plan;
}

/** The plan in words, one line each, for the console. */
export function describeFsmImport(src: FsmSource, plan: FsmImportReport, dryRun: boolean): string[] {
  const verb = (
    a: string,
  ) => (a === "import" ? (dryRun ? "would import" : "imported") : "already here, left as it is");
  const lines = [`Old panel in ${src.dir}:`];
  for (const u of plan.users) lines.push(`  user ${u.username} (${u.role}): ${verb(u.action)}`);
  // Written as \uXXXX, a name's line breaks and hidden characters show instead of acting.
  for (const u of src.refused) {
    lines.push(`  user "${visibleText(u.username)}": left out (${u.why}); add them again on the Users page`);
  }
  for (const p of plan.packs) lines.push(`  mod pack ${p.name}: ${verb(p.action)}`);
  if (plan.credentials !== "none") lines.push(`  mod portal login: ${verb(plan.credentials)}`);
  const server = plan.server;
  if (server?.action === "import") {
    lines.push(
      dryRun
        ? `  Factorio directory ${server.dir}: would become a new server ("${OLD_PANEL_SERVER}"), used where it is`
        : `  Factorio directory ${server.dir}: now server ${server.id} ("${server.added}"), used where it is; start it from its Controls`,
    );
  } else if (server?.action === "exists") {
    lines.push(`  Factorio directory ${server.dir}: already the server "${server.name}", left as it is`);
  } else if (server) lines.push(`  Factorio directory ${server.dir}: not added as a server. ${server.why}`);
  if (plan.offered.length) {
    lines.push(`  It ran with these settings; to use them here, start with: ${plan.offered.join(" ")}`);
  }
  const changes = plan.users.filter((u) => u.action === "import").length +
    plan.packs.filter((p) => p.action === "import").length +
    (plan.credentials === "import" ? 1 : 0) + (plan.server?.action === "import" ? 1 : 0);
  if (changes === 0) lines.push("  Nothing to import.");
  return lines;
}
