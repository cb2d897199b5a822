// `npm start -- --export FILE` and `--import FILE`, run through the launcher as npm start runs them: a
// panel set up over its API (users, a schedule, alert channels, backup settings, the whitelist switch, a
// mod pack, a save) is exported, and the archive imported into fresh panels, with and without secrets.

import assert from "node:assert/strict";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { createHash } from "node:crypto";
import { join } from "node:path";
import { ROOT } from "../../scripts/launcher.mjs";
import { type PanelProcess, runPanelCommand, startPanelProcess } from "../../tests/support/process.ts";
import type { Client } from "../../tests/support/harness.ts";
import { ZipReader, zipStream } from "../lib/zip.ts";
import { writeStreamAtomic } from "../lib/fsutil.ts";
import * as OTPAuth from "otpauth";
import { DatabaseSync } from "node:sqlite";

const PASSWORD = "first admin password";
const HOOK = "http://127.0.0.1:9/api/webhooks/1234/discord-secret-token-abcdef";

function dirs(root: string, name: string) {
  const data = join(root, name, "data");
  const factorio = join(root, name, "factorio");
  mkdirSync(join(factorio, "saves"), { recursive: true });
  return {
    data,
    factorio,
    args: ["--port", "0", "--bind", "127.0.0.1", "--data-dir", data, "--factorio-dir", factorio],
  };
}

/** Everything the archive should carry, as the API shows it. */
async function state(c: Client) {
  const get = async (p: string) => {
    const r = await c.get(p);
    assert.equal(r.status, 200, `${p}: ${r.text}`);
    return r.body;
  };
  const schedules = (await get("/api/schedules")) as Record<string, unknown>[];
  const channels = (await get("/api/notifications/channels")) as Record<string, unknown>[];
  return {
    users: await get("/api/user/list"),
    schedules: schedules.map(({ name, cron, condition, enabled, tasks, run_missed }) => ({
      name,
      cron,
      condition,
      enabled,
      tasks,
      run_missed,
    })),
    channels: channels.map(({ type, name, events }) => ({ type, name, events })),
    channelsEnabled: channels.map((ch) => ch.enabled),
    backupSettings: await get("/api/backups/settings"),
    whitelist: ((await get("/api/players")) as { use_whitelist: boolean }).use_whitelist,
    packs: ((await get("/api/mods/packs/list")) as { name: string }[]).map((p) => p.name),
    saves: ((await get("/api/saves/list")) as { name: string }[]).map((s) => s.name),
    backups: ((await get("/api/backups")) as { id: string; save: string; sha256: string }[]).map((b) =>
      [b.id, b.save, b.sha256].join(" ")
    ),
  };
}

async function setUp(root: string) {
  const src = dirs(root, "old");
  copyFileSync(join(ROOT, "tests/fixtures/saves/test_1_1.zip"), join(src.factorio, "saves", "world.zip"));
  mkdirSync(join(src.data, "mod-packs", "weekend", "sub"), { recursive: true });
  writeFileSync(
    join(src.data, "mod-packs", "weekend", "mod-list.json"),
    JSON.stringify({ mods: [{ name: "base", enabled: true }] }),
  );
  writeFileSync(join(src.data, "mod-packs", "weekend", "sub", "notes.txt"), "pack notes");
  const panel = await startPanelProcess({ args: src.args, env: { PANEL_ADMIN_PASSWORD: PASSWORD } });
  try {
    const c = await panel.login("admin", PASSWORD);
    const ok = async (p: string, body: unknown) => {
      const r = await c.post(p, body);
      assert.ok(r.status < 300, `${p}: ${r.status} ${r.text}`);
    };
    await ok("/api/user/add", {
      username: "alice",
      email: "alice@example.org",
      password: "alice password",
      password_confirmation: "alice password",
      role: "operator",
    });
    await ok("/api/user/add", {
      username: "bob",
      email: "bob@example.org",
      password: "bob's password",
      password_confirmation: "bob's password",
      role: "viewer",
    });
    await ok("/api/schedules", {
      name: "Nightly restart",
      cron: "0 4 * * *",
      condition: "always",
      enabled: true,
      run_missed: false,
      tasks: [{ type: "warn", text: "Restart in", countdown_s: 60, delay_s: 0 }, {
        type: "restart",
        delay_s: 0,
      }],
    });
    await ok("/api/notifications/channels", {
      type: "discord",
      name: "Our Discord",
      url: HOOK,
      events: ["crashed", "started"],
    });
    await ok("/api/backups/settings", { min_free_mb: 123 });
    await ok("/api/players/whitelist/use", { enabled: true });
    await ok("/api/backups", { include: [], save: "world.zip" });
    // bob turns on TOTP: a second factor is one of the secrets.
    const bob = await panel.login("bob", "bob's password");
    const setup = await bob.post("/api/user/2fa/totp/setup");
    const totpSecret = setup.body.secret as string;
    const code = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(totpSecret), digits: 6, period: 30 })
      .generate();
    assert.equal((await bob.post("/api/user/2fa/totp/confirm", { code })).status, 200);
    return { src, totpSecret, before: await state(c) };
  } finally {
    await panel.stop();
  }
}

async function archiveText(file: string): Promise<string> {
  const zip = await ZipReader.open(file);
  try {
    let text = "";
    for (const e of zip.entries) {
      if (!e.name.endsWith(".zip")) text += new TextDecoder().decode(await zip.read(e, 1 << 20));
    }
    return text;
  } finally {
    await zip.close();
  }
}

Deno.test("--export then --import into fresh panels: everything equal, secrets only when asked, re-import a no-op, damage refused", async () => {
  const root = mkdtempSync(join(tmpdir(), "transfer-"));
  let panel: PanelProcess | null = null;
  try {
    const { src, totpSecret, before } = await setUp(root);
    // alice has a passkey (made here by hand: a real one needs an authenticator), another secret.
    const passkeyId = "YWxpY2UtcGhvbmUtY3JlZGVudGlhbA";
    const db = new DatabaseSync(join(src.data, "panel.db"));
    const alice = db.prepare("SELECT id FROM users WHERE username = 'alice'").get() as { id: number };
    db.prepare(
      "INSERT INTO passkeys (id, user_id, name, public_key, counter, transports, created_at) VALUES (?, ?, ?, ?, 3, 'internal', ?)",
    )
      .run(passkeyId, alice.id, "Alice's phone", new Uint8Array([165, 1, 2, 3, 38, 32, 1]), Date.now());
    db.close();
    assert.deepEqual(before.saves.includes("world.zip"), true);

    // Without secrets.
    const plain = join(root, "plain.zip");
    const ex = await runPanelCommand([...src.args, "--export", plain, "--export-saves"]);
    assert.equal(ex.code, 0, ex.out);
    assert.match(ex.out, /users: admin, alice, bob/);
    assert.match(ex.out, /saves: world\.zip/);
    assert.doesNotMatch(ex.out, /listening on/, "an export exits, it does not start the panel");
    assert.equal(statSync(plain).mode & 0o777, 0o644);
    const text = await archiveText(plain);
    assert.doesNotMatch(text, /scrypt\$/);
    assert.doesNotMatch(text, /discord-secret-token/);
    assert.ok(!text.includes(totpSecret), "no TOTP secret");
    assert.ok(!text.includes(passkeyId), "no passkey");
    assert.match(text, /"format": "factorio-panel-export"/);

    // With secrets: owner-only, hashes and the webhook inside.
    const secret = join(root, "secret.zip");
    const exs = await runPanelCommand([
      ...src.args,
      "--export",
      secret,
      "--export-secrets",
      "--export-backups",
    ]);
    assert.equal(exs.code, 0, exs.out);
    assert.equal(statSync(secret).mode & 0o777, 0o600, "secrets and backups: owner-only");
    const stext = await archiveText(secret);
    assert.match(stext, /scrypt\$/);
    assert.match(stext, /discord-secret-token/);
    assert.ok(stext.includes(totpSecret));
    assert.ok(stext.includes(passkeyId));

    // Import without secrets into a fresh panel: new passwords printed once, channels disabled.
    const dst = dirs(root, "new");
    const dry = await runPanelCommand([...dst.args, "--import", plain, "--dry-run"]);
    assert.equal(dry.code, 0, dry.out);
    assert.match(dry.out, /user alice \(operator\): would import/);
    assert.ok(!existsSync(dst.data), "a dry run creates nothing");
    panel = await startPanelProcess({ args: [...dst.args, "--import", plain] });
    assert.doesNotMatch(panel.output(), /First start: created the user admin/);
    const firstOutput = panel.output();
    const pw = (name: string) => new RegExp(`^    ${name}: (\\S+)$`, "m").exec(firstOutput)?.[1];
    assert.ok(pw("alice") && pw("admin"), panel.output());
    const admin = await panel.login("admin", pw("admin")!);
    await panel.login("alice", pw("alice")!);
    await panel.login("bob", pw("bob")!); // no second factor without the secrets
    const after = await state(admin);
    assert.deepEqual({ ...after, channelsEnabled: null, backups: null }, {
      ...before,
      channelsEnabled: null,
      backups: null,
    });
    assert.deepEqual(after.backups, [], "backups only when asked");
    assert.deepEqual(
      after.channelsEnabled,
      [false],
      "a channel without its URL cannot send: it comes disabled",
    );
    assert.equal(
      readFileSync(join(dst.data, "mod-packs", "weekend", "sub", "notes.txt"), "utf8"),
      "pack notes",
    );
    assert.deepEqual(
      readFileSync(join(dst.factorio, "saves", "world.zip")),
      readFileSync(join(src.factorio, "saves", "world.zip")),
    );
    await panel.stop();

    // The same import again: nothing twice.
    panel = await startPanelProcess({ args: [...dst.args, "--import", plain] });
    assert.match(panel.output(), /Nothing to import\./);
    assert.deepEqual(await state(await panel.login("admin", pw("admin")!)), after);
    await panel.stop();
    panel = null;

    // With secrets into another fresh panel: the old passwords work, the channel is live.
    const dst2 = dirs(root, "new2");
    panel = await startPanelProcess({ args: [...dst2.args, "--import", secret] });
    const admin2 = await panel.login("admin", PASSWORD);
    const bobLogin = await panel.client().post("/api/login", { username: "bob", password: "bob's password" });
    assert.deepEqual(
      bobLogin.body,
      { second_factor: true, methods: ["totp", "recovery"] },
      "bob's TOTP came along",
    );
    const aliceLogin = await panel.client().post("/api/login", {
      username: "alice",
      password: "alice password",
    });
    assert.deepEqual(
      aliceLogin.body,
      { second_factor: true, methods: ["passkey"] },
      "alice's passkey came along",
    );
    const after2 = await state(admin2);
    assert.equal(before.backups.length, 1);
    assert.deepEqual({ ...after2, saves: before.saves }, before);
    assert.ok(!after2.saves.includes("world.zip"), "saves only when asked");
    await panel.stop();
    panel = null;

    // An archive with something new (the save) into a panel in use: refused without --import-merge.
    const refused = await runPanelCommand([...dst2.args, "--import", plain]);
    assert.equal(refused.code, 1, refused.out);
    assert.match(refused.out, /factorio-panel: nothing was imported\. This panel already has users/);
    // With --import-merge only what is missing comes in: the save; users, schedules, channels stay single.
    panel = await startPanelProcess({ args: [...dst2.args, "--import", plain, "--import-merge"] });
    assert.match(panel.output(), /save world\.zip: imported/);
    assert.match(panel.output(), /user bob \(viewer\): already here, left as it is/);
    assert.deepEqual(
      { ...(await state(await panel.login("admin", PASSWORD))), backups: before.backups },
      before,
    );
    await panel.stop();
    panel = null;

    // A damaged archive: a clear message, nothing changed (not even the data dir created).
    const cut = join(root, "cut.zip");
    copyFileSync(plain, cut);
    truncateSync(cut, statSync(cut).size - 200);
    const dst3 = dirs(root, "new3");
    const bad = await runPanelCommand([...dst3.args, "--import", cut]);
    assert.equal(bad.code, 1, bad.out);
    assert.match(bad.out, /factorio-panel: nothing was imported\. .*cut\.zip: it is not a readable zip/);
    assert.ok(!existsSync(dst3.data));
    const altered = join(root, "altered.zip");
    const bytes = readFileSync(plain);
    // The save is stored as it is (a zip in a zip): change one byte in its middle.
    const save = readFileSync(join(src.factorio, "saves", "world.zip"));
    const at = bytes.indexOf(save.subarray(0, 256));
    assert.ok(at > 0);
    bytes[at + (save.length >> 1)] ^= 0xff;
    writeFileSync(altered, bytes);
    const bad2 = await runPanelCommand([...dst3.args, "--import", altered]);
    assert.equal(bad2.code, 1, bad2.out);
    assert.match(bad2.out, /nothing was imported\. .*(damaged|checksum)/);
    assert.ok(!existsSync(dst3.data));
  } finally {
    await panel?.stop();
    rmSync(root, { recursive: true, force: true });
  }
});

Deno.test("--import of an archive from a newer panel: refused with a clear message, nothing changed", async () => {
  const root = mkdtempSync(join(tmpdir(), "transfer-newer-"));
  try {
    const manifest = new TextEncoder().encode(JSON.stringify({
      format: "factorio-panel-export",
      format_version: 99,
      panel_version: "9.0.0",
      created: new Date().toISOString(),
      secrets: false,
      contents: {
        users: [],
        schedules: [],
        alert_channels: [],
        settings: [],
        mod_packs: [],
        saves: [],
        backups: [],
      },
      files: [],
    }));
    const file = join(root, "newer.zip");
    await writeStreamAtomic(
      file,
      zipStream([{ name: "manifest.json", data: manifest, size: manifest.length, method: "deflate" }]),
    );
    const target = dirs(root, "new");
    const r = await runPanelCommand([...target.args, "--import", file]);
    assert.equal(r.code, 1, r.out);
    assert.match(
      r.out,
      /nothing was imported\. .*newer\.zip: it was made by a newer panel \(9\.0\.0, archive format 99\); this panel reads format 2 and older\. Update this panel first\./,
    );
    assert.ok(!existsSync(target.data));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

/** An archive as --export writes one (manifest last, every entry with its checksum), holding `rows`. */
async function archiveWith(
  file: string,
  rows: { schedules?: unknown[]; channels?: unknown[]; users?: unknown[] },
): Promise<void> {
  const entries: { name: string; data: Uint8Array }[] = [];
  const add = (name: string, value: unknown[] | undefined) => {
    if (value) entries.push({ name, data: new TextEncoder().encode(JSON.stringify(value)) });
  };
  add("panel/users.json", rows.users);
  add("panel/schedules.json", rows.schedules);
  add("panel/alert-channels.json", rows.channels);
  const names = (v: unknown[] | undefined, key: string) =>
    (v ?? []).map((r) => String((r as Record<string, unknown>)[key]));
  const manifest = new TextEncoder().encode(JSON.stringify({
    format: "factorio-panel-export",
    format_version: 1,
    panel_version: "1.0.0",
    created: new Date().toISOString(),
    secrets: true,
    contents: {
      users: names(rows.users, "username"),
      schedules: names(rows.schedules, "name"),
      alert_channels: names(rows.channels, "name"),
      settings: [],
      mod_packs: [],
      saves: [],
      backups: [],
    },
    files: entries.map((e) => ({
      path: e.name,
      size: e.data.length,
      sha256: createHash("sha256").update(new TextDecoder().decode(e.data)).digest("hex"),
    })),
  }));
  await writeStreamAtomic(
    file,
    zipStream([
      ...entries.map((e) => ({ ...e, size: e.data.length, method: "deflate" as const })),
      { name: "manifest.json", data: manifest, size: manifest.length, method: "deflate" as const },
    ]),
  );
}

Deno.test("--import refuses what the API refuses (URLs, names, schedule texts, a cron that does not parse), and changes nothing", async () => {
  const root = mkdtempSync(join(tmpdir(), "transfer-hostile-"));
  try {
    const schedule = {
      name: "Nightly",
      cron: "0 4 * * *",
      condition: "always",
      enabled: true,
      run_missed: false,
      tasks: [{ type: "command", delay_s: 0, text: "/save" }],
    };
    const channel = {
      type: "webhook",
      name: "Hook",
      url: "https://hooks.example.org/x",
      events: ["crashed"],
      enabled: true,
      priority: null,
      secret: "s3cret",
    };
    const cases: [string, Parameters<typeof archiveWith>[1], RegExp][] = [
      [
        "file URL",
        { channels: [{ ...channel, url: "file:///etc/passwd" }] },
        /alert-channels\.json, entry 1: The URL must be a full http:\/\/ or https:\/\/ address/,
      ],
      [
        "gopher URL",
        { channels: [{ ...channel, url: "gopher://127.0.0.1:6379/_FLUSHALL" }] },
        /entry 1: The URL must be a full http/,
      ],
      [
        "URL with credentials",
        { channels: [{ ...channel, url: "https://user:pw@hooks.example.org/x" }] },
        /entry 1: The URL must be a full http/,
      ],
      [
        "channel name with a newline",
        { channels: [{ ...channel, name: "Hook\nError Server crashed" }] },
        /entry 1: A channel name must be one line/,
      ],
      [
        "channel name with a bidi override",
        { channels: [{ ...channel, name: "Hook\u202Eexe" }] },
        /entry 1: A channel name must be one line/,
      ],
      [
        "ntfy topic",
        { channels: [{ ...channel, type: "ntfy", topic: "a b", priority: 3 }] },
        /entry 1: An ntfy topic is/,
      ],
      ["schedule name with a newline", {
        schedules: [{ ...schedule, name: "Nightly\n   1.000 Error Server crashed" }],
      }, /schedules\.json, entry 1: The name must be one line/],
      [
        "schedule command with a newline",
        {
          schedules: [{
            ...schedule,
            tasks: [{
              type: "command",
              delay_s: 0,
              text: "/save\n  12.345 Error Util.cpp:83: Server crashed",
            }],
          }],
        },
        /schedules\.json, entry 1: Task 1: the text must be one line without control or text-direction characters/,
      ],
      ["warning with a bidi isolate", {
        schedules: [{ ...schedule, tasks: [{ type: "warn", delay_s: 0, text: "Restart \u2067soon" }] }],
      }, /entry 1: Task 1: the text must be one line/],
      [
        "cron that does not parse",
        { schedules: [{ ...schedule, cron: "99 * * * *" }] },
        /schedules\.json, entry 1: The cron expression "99 \* \* \* \*" is not valid/,
      ],
      ["username with a newline", {
        users: [{ username: "eve\nadmin", role: "viewer", email: "eve@example.org" }],
      }, /users\.json, entry 1: Username must be/],
    ];
    for (const [what, rows, message] of cases) {
      const file = join(root, "hostile.zip");
      await archiveWith(file, rows);
      const target = dirs(root, "new");
      const r = await runPanelCommand([...target.args, "--import", file]);
      assert.equal(r.code, 1, `${what}: ${r.out}`);
      assert.match(r.out, /factorio-panel: nothing was imported\./, what);
      assert.match(r.out, message, what);
      assert.ok(!existsSync(target.data), `${what}: nothing was created`);
    }
    // The same rows, clean, are taken.
    const file = join(root, "clean.zip");
    await archiveWith(file, { schedules: [schedule], channels: [channel] });
    const target = dirs(root, "clean");
    const dry = await runPanelCommand([...target.args, "--import", file, "--dry-run"]);
    assert.equal(dry.code, 0, dry.out);
    assert.match(dry.out, /schedule Nightly: would import/);
    assert.match(dry.out, /alert channel Hook: would import/);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

Deno.test("--import of users whose password hashes are dearer than the panel's own: refused, naming the user, nothing changed", async () => {
  const root = mkdtempSync(join(tmpdir(), "transfer-hash-"));
  try {
    for (
      const [hash, why] of [
        // N = 2^20: 1 GiB and seconds of a core for every wrong sign-in.
        [
          `scrypt$1048576$8$1$${btoa("s".repeat(16))}$${btoa("k".repeat(32))}`,
          /the password hash of eve is a scrypt hash with N=1048576, r=8, p=1; the panel takes only N=32768, r=8, p=1/,
        ],
        [
          `fsm-bcrypt$$2b$31$${"a".repeat(53)}`,
          /the password hash of eve is a bcrypt hash of cost 31; the panel takes at most 12/,
        ],
      ] as const
    ) {
      const users = new TextEncoder().encode(
        JSON.stringify([{ username: "eve", role: "admin", email: "", password_hash: hash }]),
      );
      const manifest = new TextEncoder().encode(JSON.stringify({
        format: "factorio-panel-export",
        format_version: 1,
        panel_version: "0.1.0",
        created: new Date().toISOString(),
        secrets: true,
        contents: {
          users: ["eve"],
          schedules: [],
          alert_channels: [],
          settings: [],
          mod_packs: [],
          saves: [],
          backups: [],
        },
        files: [{
          path: "panel/users.json",
          size: users.length,
          sha256: createHash("sha256").update(users).digest("hex"),
        }],
      }));
      const file = join(root, "dear.zip");
      await writeStreamAtomic(
        file,
        zipStream([
          { name: "panel/users.json", data: users, size: users.length, method: "deflate" },
          { name: "manifest.json", data: manifest, size: manifest.length, method: "deflate" },
        ]),
      );
      const target = dirs(root, "new");
      const r = await runPanelCommand([...target.args, "--import", file]);
      assert.equal(r.code, 1, r.out);
      assert.match(r.out, /nothing was imported\./);
      assert.match(r.out, why);
      assert.ok(!existsSync(target.data));
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
