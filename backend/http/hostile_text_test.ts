// Control and text-direction characters are refused in every name, reason and text that reaches a file, a
// log or the game, and the refusal changes nothing.

import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withPanel } from "../../tests/support/harness.ts";
import { withGamePanel } from "../../tests/support/game.ts";
import { UNSAFE_TEXT } from "../../shared/validation.ts";

const UNSAFE = [
  "\n",
  "\r",
  "\u0000",
  "\u0007",
  "\u001b",
  "\u007f",
  "\u0085",
  "\u2028",
  "\u2029",
  "\u202a",
  "\u202e",
  "\u2066",
  "\u2069",
];

Deno.test("the shared check refuses every unsafe character and passes ordinary text in any script", () => {
  for (const ch of UNSAFE) assert.ok(UNSAFE_TEXT.test(`a${ch}b`), JSON.stringify(ch));
  for (const ok of ["My World", "été à Noël", "工厂", "مصنع", "Ünïcödé-1.0_x"]) {
    assert.ok(!UNSAFE_TEXT.test(ok), ok);
  }
});

Deno.test(
  "a save name with a newline or a bidi override is refused, and no file is touched",
  withPanel(async (p) => {
    const saves = join(p.config.factorioDir, "saves");
    mkdirSync(saves, { recursive: true });
    writeFileSync(join(saves, "s1.zip"), "zip");
    const c = await p.login();
    for (const suffix of ["%0a", "%0d", "%00", "%E2%80%A8", "%E2%80%AE"]) {
      const r = await c.get(`/api/saves/rm/s1${suffix}`, { headers: { "Sec-Fetch-Site": "same-origin" } });
      assert.equal(r.status, 400, `${suffix}: ${r.text}`);
      assert.match(r.body, /must be one line without control or text-direction characters/);
      assert.ok(existsSync(join(saves, "s1.zip")), `s1.zip was deleted by s1${suffix}`);
      const dl = await c.get(`/api/saves/dl/s1${suffix}`);
      assert.equal(dl.status, 400);
    }
    const form = new FormData();
    form.append("savefile", new File([new Uint8Array(10)], "evil\u202Epiz.exe.zip"));
    const up = await c.request("POST", "/api/saves/upload", { body: form });
    assert.equal(up.status, 400);
    assert.deepEqual(readdirSync(saves), ["s1.zip"]);
    const pack = await c.post("/api/mods/packs/create", { name: "pack\u2028two" });
    assert.equal(pack.status, 400);
  }),
);

Deno.test(
  "panel usernames with bidi or separator characters are refused",
  withPanel(async (p) => {
    const c = await p.login();
    for (const name of ["adm\u202Ein", "bob\u2028", "eve\u2066x"]) {
      const r = await c.post("/api/user/add", {
        username: name,
        email: "a@b.c",
        password: "long-enough-1",
        password_confirmation: "long-enough-1",
        role: "admin",
      });
      assert.equal(r.status, 400, name);
    }
    assert.deepEqual((await c.get("/api/user/list")).body.map((u: { username: string }) => u.username), [
      "admin",
    ]);
  }),
);

Deno.test(
  "ban and kick reasons, and settings text, with control or bidi characters are refused and not written",
  withGamePanel(async (p) => {
    const c = await p.login();
    for (const reason of ["spam\u202Eexe", "line\u2028break", "nul\u0000", "two\nlines"]) {
      const r = await c.post("/api/players/bans/add", { username: "griefer", reason });
      assert.equal(r.status, 400, JSON.stringify(reason));
    }
    assert.deepEqual((await c.get("/api/players")).body.bans, []);
    assert.equal((await c.get("/api/settings")).status, 200);
    const file = join(p.factorio.dir, "config", "server-settings.json");
    const before = Deno.readTextFileSync(file);
    for (
      const body of [{ name: "nul\u0000name" }, { name: "\u202Eevil" }, { tags: ["ok", "bad\u2029tag"] }, {
        description: "a\u202Eb",
      }]
    ) {
      const r = await c.post("/api/settings/update", body);
      assert.equal(r.status, 400, JSON.stringify(body));
    }
    assert.equal(Deno.readTextFileSync(file), before);
    // A description may keep its lines.
    assert.equal((await c.post("/api/settings/update", { description: "Line one\nLine two" })).status, 200);
  }, { saves: [] }),
);
