// An unreadable panel.db stops the start with one line naming the file and the remedy; it is never
// replaced by a fresh database with a new admin.

import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDb } from "./db.ts";

import { panelCommand, ROOT } from "../../scripts/launcher.mjs";

async function startWith(db: Uint8Array | string) {
  const dataDir = mkdtempSync(join(tmpdir(), "panel-db-"));
  const file = join(dataDir, "panel.db");
  writeFileSync(file, db);
  const panel = panelCommand(["--port", "0", "--bind", "127.0.0.1", "--data-dir", dataDir]);
  const out = await new Deno.Command(panel.cmd, {
    args: panel.args,
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const result = {
    code: out.code,
    stdout: new TextDecoder().decode(out.stdout),
    stderr: new TextDecoder().decode(out.stderr),
    file,
    after: readFileSync(file),
    newAdmin: existsSync(join(dataDir, "initial-admin-password")),
  };
  rmSync(dataDir, { recursive: true, force: true });
  return result;
}

function realDb(): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), "panel-db-"));
  const db = openDb(join(dir, "real.db"));
  db.exec("PRAGMA journal_mode = DELETE");
  db.prepare(
    "INSERT INTO users (username, password_hash, role, email, created_at, updated_at) VALUES ('owner', 'x', 'admin', '', 0, 0)",
  ).run();
  db.close();
  const bytes = readFileSync(join(dir, "real.db"));
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

/** panel.db copied while the panel ran: its content since the last checkpoint was in panel.db-wal, left behind. */
function walOnlyDb(): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), "panel-db-"));
  const db = openDb(join(dir, "panel.db"));
  db.prepare(
    "INSERT INTO users (username, password_hash, role, email, created_at, updated_at) VALUES ('owner', 'x', 'admin', '', 0, 0)",
  ).run();
  const bytes = readFileSync(join(dir, "panel.db"));
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return bytes;
}

for (
  const [what, bytes, why] of [
    ["an empty (0-byte)", new Uint8Array(0), /is empty \(0 bytes\)/],
    [
      "a WAL-only copy of a",
      walOnlyDb(),
      /has no tables, so its users are gone \(a copy taken while the panel ran also needs .*panel\.db-wal\)/,
    ],
    [
      "a non-database",
      "this is not SQLite at all, just some text that got here".repeat(20),
      /cannot be read/,
    ],
    ["a truncated", realDb().subarray(0, 5000), /cannot be read/],
  ] as const
) {
  Deno.test(`${what} panel.db: one line naming the file and the remedy, no new admin, the file untouched`, async () => {
    const before = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
    const r = await startWith(bytes);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    const lines = r.stderr.trim().split("\n");
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0], new RegExp(`^factorio-panel: The database ${r.file.replaceAll(".", "\\.")} `));
    assert.match(lines[0], why);
    assert.match(lines[0], /Restore it from a backup/);
    assert.ok(!r.newAdmin, "no new admin was made");
    assert.doesNotMatch(r.stdout, /created the user admin/i);
    assert.deepEqual(new Uint8Array(r.after), new Uint8Array(before));
  });
}
