// Importing an opened archive (archive.ts) into this panel. Nothing that exists is overwritten, so a second
// import of the same archive changes nothing. Into a panel that is already in use (users besides the
// untouched first-start admin) only with `merge`. Order, so a failure leaves nothing half-done: files are
// first streamed into hidden temp files and folders beside their places (swept at start-up if the
// panel is killed), then all rows go in one transaction, then the files are renamed into place.
//
// Users without a password hash in the archive (an export without secrets) get a generated password,
// answered once in the report. The first-start admin, while it still has its generated password, is taken
// over by an archive user of the same name (the archive's role, e-mail and, when there, password).

import { existsSync, mkdirSync, rmSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { dirname, join } from "node:path";
import { Buffer } from "node:buffer";
import type { AppContext } from "../boot/context.ts";
import { panelIsFresh } from "./fresh.ts";
import { transaction } from "../store/db.ts";
import { hashPassword, randomPassword } from "../auth/password.ts";
import { INITIAL_PASSWORD_FILE } from "../auth/accounts.ts";
import { tempPathFor, writeFileAtomic } from "../lib/fsutil.ts";
import { inside } from "../factorio/paths.ts";
import type { OpenedArchive } from "./archive.ts";
import type { ExportedUser } from "./format.ts";
import { ScheduleStore } from "../factorio/schedules/store.ts";
import { TRANSFER_MSG } from "../../shared/transfer.ts";

export { panelIsFresh };

export class ImportRefused extends Error {}

type Action = "import" | "exists";

export interface ImportPlan {
  users: { username: string; role: string; action: Action | "replace-first-admin" }[];
  schedules: { name: string; action: Action }[];
  channels: { name: string; action: Action }[];
  settings: { name: string; action: Action }[];
  packs: { name: string; action: Action }[];
  saves: { name: string; action: Action }[];
  backups: { name: string; action: Action }[];
}

export interface ImportReport extends ImportPlan {
  /** New passwords of users the archive brought without one: shown once, never stored in clear. */
  passwords: { username: string; password: string }[];
  /** The first-start admin now has the archive's password (its other sessions were ended). */
  adminPasswordReplaced: boolean;
}

/** What the plan compares the archive with: this panel's names, without changing anything. */
export interface PlanTarget {
  /** "first-admin": the untouched first-start admin of a panel nobody has set up yet. */
  user(name: string): "none" | "exists" | "first-admin";
  scheduleNames: Set<string>;
  /** "<type>\n<name>". */
  channelKeys: Set<string>;
  dataDir: string;
  packsDir: string;
  savesDir: string;
  backupsDir: string;
}

export function targetOf(ctx: AppContext): PlanTarget {
  const fresh = panelIsFresh(ctx);
  return {
    user: (name) => {
      const row = ctx.accounts.users.byName(name);
      return !row ? "none" : fresh && row.username === "admin" ? "first-admin" : "exists";
    },
    scheduleNames: new Set(new ScheduleStore(ctx.db).all().map((s) => s.name)),
    channelKeys: new Set(
      (ctx.db.prepare("SELECT type, name FROM alert_channels").all() as { type: string; name: string }[]).map(
        (c) => `${c.type}\n${c.name}`,
      ),
    ),
    dataDir: ctx.config.dataDir,
    packsDir: ctx.mods.packs.root,
    savesDir: ctx.paths.saves,
    backupsDir: ctx.config.backupsDir,
  };
}

export function planImport(t: PlanTarget, a: OpenedArchive): ImportPlan {
  const has = (b: boolean): Action => (b ? "exists" : "import");
  return {
    users: a.users.map((u) => {
      const state = t.user(u.username);
      return {
        username: u.username,
        role: u.role,
        action: state === "first-admin" ? "replace-first-admin" : has(state === "exists"),
      };
    }),
    schedules: a.schedules.map((s) => ({ name: s.name, action: has(t.scheduleNames.has(s.name)) })),
    channels: a.channels.map((c) => ({
      name: c.name,
      action: has(t.channelKeys.has(`${c.type}\n${c.name}`)),
    })),
    settings: [...a.settings.keys()].map((f) => ({ name: f, action: has(existsSync(join(t.dataDir, f))) })),
    packs: a.manifest.contents.mod_packs.map((p) => ({
      name: p,
      action: has(existsSync(join(t.packsDir, p))),
    })),
    saves: a.saves.map((s) => ({ name: s.name, action: has(existsSync(join(t.savesDir, s.name))) })),
    backups: a.backups.map((b) => ({ name: b.name, action: has(existsSync(join(t.backupsDir, b.name))) })),
  };
}

export function changes(plan: ImportPlan): number {
  const items = [
    plan.users,
    plan.schedules,
    plan.channels,
    plan.settings,
    plan.packs,
    plan.saves,
    plan.backups,
  ].flat();
  return items.filter((x: { action: string }) => x.action !== "exists").length;
}

interface Staged {
  temp: string;
  target: string;
}

/** Carries the plan out. Throws ImportRefused (nothing changed) for a panel in use without `merge`. */
/** `keepSession`: the session of the admin importing from the browser, which stays signed in. */
export async function applyImport(
  ctx: AppContext,
  a: OpenedArchive,
  opts: { merge: boolean; keepSession?: string },
): Promise<ImportReport> {
  if (a.manifest.server) throw new ImportRefused(TRANSFER_MSG.serverArchive(a.manifest.server.name));
  const plan = planImport(targetOf(ctx), a);
  const report: ImportReport = { ...plan, passwords: [], adminPasswordReplaced: false };
  if (changes(plan) === 0) return report;
  if (!opts.merge && !panelIsFresh(ctx)) {
    throw new ImportRefused(
      "This panel already has users, so nothing was imported. Import into a new panel (an empty --data-dir), or add --import-merge to add what is not here yet.",
    );
  }
  const hashes = new Map<string, string>();
  for (const [i, u] of a.users.entries()) {
    if (plan.users[i].action === "exists" || u.password_hash) continue;
    if (plan.users[i].action === "replace-first-admin") continue; // keeps the password it was signed in with
    const password = randomPassword();
    hashes.set(u.username, await hashPassword(password));
    report.passwords.push({ username: u.username, password });
  }

  const staged: Staged[] = [];
  const stagedDirs: Staged[] = [];
  try {
    const stageFile = async (
      entry: OpenedArchive["saves"][number]["entry"],
      target: string,
      mode = 0o644,
    ) => {
      mkdirSync(dirname(target), { recursive: true });
      const temp = tempPathFor(target);
      staged.push({ temp, target });
      await a.extract(entry, temp, mode);
    };
    for (const [i, s] of a.saves.entries()) {
      if (plan.saves[i].action === "import") await stageFile(s.entry, inside(ctx.paths.saves, s.name));
    }
    for (const [i, b] of a.backups.entries()) {
      if (plan.backups[i].action === "import") {
        await stageFile(b.entry, inside(ctx.config.backupsDir, b.name), 0o600);
      }
    }
    for (const p of plan.packs) {
      if (p.action !== "import") continue;
      const target = inside(ctx.mods.packs.root, p.name);
      // The name start-up's sweep knows for an unfinished pack copy (boot/tempfiles.ts STAGING).
      const temp = join(ctx.mods.packs.root, `.${p.name}.new-${randomBytes(6).toString("hex")}`);
      mkdirSync(temp, { recursive: true, mode: 0o755 });
      stagedDirs.push({ temp, target });
      for (const f of a.packs.get(p.name) ?? []) {
        const file = join(temp, ...f.rest.split("/"));
        mkdirSync(dirname(file), { recursive: true });
        await a.extract(f.entry, file);
      }
    }

    transaction(ctx.db, () => {
      const now = ctx.now();
      for (const [i, u] of a.users.entries()) {
        const action = plan.users[i].action;
        if (action === "exists") continue;
        if (action === "replace-first-admin") {
          const row = ctx.accounts.users.byName(u.username)!;
          // setRole: a viewer's or operator's role on server 1 follows.
          ctx.accounts.users.setRole(row.id, u.role, now);
          ctx.db.prepare("UPDATE users SET email = ? WHERE id = ?").run(u.email, row.id);
          if (u.password_hash) {
            ctx.accounts.users.setPassword(row.id, u.password_hash, now);
            report.adminPasswordReplaced = true;
          }
          addSecondFactors(ctx, row.id, u);
          continue;
        }
        const id = ctx.accounts.users.insert({
          username: u.username,
          passwordHash: u.password_hash ?? hashes.get(u.username)!,
          role: u.role,
          email: u.email,
        }, now);
        addSecondFactors(ctx, id, u);
      }
      for (const [i, s] of a.schedules.entries()) {
        if (plan.schedules[i].action === "import") new ScheduleStore(ctx.db).insert(s, now);
      }
      for (const [i, c] of a.channels.entries()) {
        if (plan.channels[i].action !== "import") continue;
        // Without its URL a channel cannot send: it comes disabled until the admin enters it again.
        const url = c.url ?? "";
        ctx.db.prepare(
          `INSERT INTO alert_channels (type, name, url, topic, priority, token, secret, events, enabled, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        ).run(
          c.type,
          c.name,
          url,
          c.topic ?? null,
          c.priority ?? null,
          c.token ?? null,
          c.type === "webhook" ? (c.secret ?? randomBytes(32).toString("base64url")) : null,
          c.events.join(","),
          url && c.enabled ? 1 : 0,
          now,
        );
      }
    });
  } catch (e) {
    for (const s of staged) rmSync(s.temp, { force: true });
    for (const s of stagedDirs) rmSync(s.temp, { recursive: true, force: true });
    throw e;
  }

  // The rows are in; the files follow. A name taken meanwhile keeps what is there.
  for (const s of [...staged, ...stagedDirs]) {
    if (existsSync(s.target)) await rm(s.temp, { recursive: true, force: true });
    else await rename(s.temp, s.target);
  }
  for (const [i, f] of [...a.settings.keys()].entries()) {
    if (plan.settings[i].action !== "import") continue;
    writeFileAtomic(join(ctx.config.dataDir, f), a.settings.get(f)!, f === "mod-portal.json" ? 0o600 : 0o644);
  }
  if (report.adminPasswordReplaced) {
    const admin = ctx.accounts.users.byName("admin")!;
    const ids = ctx.accounts.sessions.deleteForUser(admin.id, opts.keepSession);
    ctx.bus.emit("sessions.revoked", { sessionIds: ids });
    rmSync(join(ctx.config.dataDir, INITIAL_PASSWORD_FILE), { force: true });
  }
  if (plan.saves.some((s) => s.action === "import")) ctx.saves.changed();
  if (plan.backups.some((b) => b.action === "import")) await ctx.backups.index.repair(ctx.config.backupsDir);
  for (const u of plan.users) {
    if (u.action === "import") ctx.bus.emit("users.changed", { action: "added", username: u.username });
  }
  ctx.log.info("Imported an export archive", { file: a.path, changes: changes(plan) });
  return report;
}

function addSecondFactors(ctx: AppContext, userId: number, u: ExportedUser): void {
  if (u.totp) {
    ctx.db.prepare(
      "INSERT OR REPLACE INTO totp (user_id, secret, confirmed_at, last_step) VALUES (?, ?, ?, ?)",
    )
      .run(userId, u.totp.secret, u.totp.confirmed_at ?? null, u.totp.last_step ?? 0);
  }
  for (const r of u.recovery_codes ?? []) {
    ctx.db.prepare("INSERT INTO recovery_codes (user_id, code_hash, used_at) VALUES (?, ?, ?)").run(
      userId,
      r.code_hash,
      r.used_at ?? null,
    );
  }
  for (const p of u.passkeys ?? []) {
    ctx.db.prepare(
      "INSERT OR IGNORE INTO passkeys (id, user_id, name, public_key, counter, transports, created_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ).run(
      p.id,
      userId,
      p.name,
      new Uint8Array(Buffer.from(p.public_key, "base64")),
      p.counter,
      p.transports ?? "",
      p.created_at,
      p.last_used_at ?? null,
    );
  }
}

/** The plan or the report in words, one line each, for the console and the first-run screen. */
export function describeImport(
  a: OpenedArchive,
  r: ImportPlan & Partial<ImportReport>,
  dryRun: boolean,
): string[] {
  const m = a.manifest;
  const verb = (x: string) =>
    x === "exists"
      ? "already here, left as it is"
      : x === "replace-first-admin"
      ? (dryRun ? "would take over the first-start admin" : "took over the first-start admin")
      : dryRun
      ? "would import"
      : "imported";
  const lines = [`Export of panel ${m.panel_version} made ${m.created}${m.secrets ? ", with secrets" : ""}:`];
  for (const u of r.users) lines.push(`  user ${u.username} (${u.role}): ${verb(u.action)}`);
  for (const s of r.schedules) lines.push(`  schedule ${s.name}: ${verb(s.action)}`);
  for (const c of r.channels) {
    lines.push(
      `  alert channel ${c.name}: ${verb(c.action)}${
        !m.secrets && c.action === "import" ? " (disabled: enter its URL again under Notifications)" : ""
      }`,
    );
  }
  for (const s of r.settings) lines.push(`  settings ${s.name}: ${verb(s.action)}`);
  for (const p of r.packs) lines.push(`  mod pack ${p.name}: ${verb(p.action)}`);
  for (const s of r.saves) lines.push(`  save ${s.name}: ${verb(s.action)}`);
  for (const b of r.backups) lines.push(`  backup ${b.name}: ${verb(b.action)}`);
  if (changes(r) === 0) lines.push("  Nothing to import.");
  if (r.passwords?.length) {
    lines.push(
      "  The archive has no passwords (made without --export-secrets). New passwords, shown only now:",
    );
    for (const p of r.passwords) lines.push(`    ${p.username}: ${p.password}`);
    lines.push("  Give each user theirs; they can change it under Account.");
  } else if (dryRun && !m.secrets && r.users.some((u) => u.action === "import")) {
    lines.push("  The archive has no passwords: imported users get new passwords, printed once.");
  }
  if (r.adminPasswordReplaced) {
    lines.push("  The first-start admin now has the archive's password: sign in with it from now on.");
  }
  return lines;
}
