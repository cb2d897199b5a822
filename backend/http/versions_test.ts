// Game versions through the API, against the fake factorio.com (tests/fake-factorio-com) serving real
// .tar.xz builds of the simulator: install with verification, every failure mode of the download and
// the archive, cancel, one install at a time, activation and rollback keeping the shared files
// byte-identical, deletion, and the first-start install.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { installOutcome, startVersionsPanel, withVersionsPanel } from "../../tests/support/versions.ts";
import { freeUdpPort, waitForStatus } from "../../tests/support/game.ts";
import type { Client } from "../../tests/support/harness.ts";
import type { VersionsAnswer } from "../../shared/factorio-versions.ts";
import type { Mode } from "../../tests/fake-factorio-com/server.ts";

async function install(c: Client, bus: Parameters<typeof installOutcome>[0], version: string) {
  const outcome = installOutcome(bus);
  const r = await c.post("/api/factorio/install", { version });
  assert.equal(r.status, 202, r.text);
  return await outcome;
}

async function versions(c: Client): Promise<VersionsAnswer> {
  const r = await c.get("/api/factorio/versions");
  assert.equal(r.status, 200, r.text);
  return r.body;
}

/** Every file under `dir` (but versions/ and the game's logs) with its sha256. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      const rel = relative(dir, p);
      if (rel === "versions" || /^factorio-(current|previous|console)\.log$/.test(rel)) continue;
      if (e.isDirectory()) walk(p);
      else out[rel] = createHash("sha256").update(readFileSync(p)).digest("hex");
    }
  };
  walk(dir);
  return out;
}

/** Leftovers in versions/ besides complete version folders and active.json. */
function leftovers(factorioDir: string): string[] {
  const dir = join(factorioDir, "versions");
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((n) => !/^\d+\.\d+\.\d+$/.test(n) && n !== "active.json");
}

Deno.test(
  "an empty panel installs stable from factorio.com, verified, and the game runs from it",
  withVersionsPanel(async (v) => {
    const c = await v.panel.login();
    const before = await versions(c);
    assert.equal(before.gameFound, false);
    assert.deepEqual(before.installed, []);
    assert.deepEqual(before.available.map((a) => `${a.version}:${a.channel}`), [
      "2.1.12:experimental",
      "2.0.77:stable",
      "2.0.76:stable",
      "1.1.110:stable",
    ]);

    const seen: string[] = [];
    v.panel.ctx.bus.on("factorio.versions", (m) => m.kind === "install" && seen.push(m.install.phase));
    const done = await install(c, v.panel.ctx.bus, "stable");
    assert.equal(done.phase, "done", done.message);
    assert.equal(done.version, "2.0.77");
    assert.ok(done.received > 0 && done.received === done.total);
    for (const phase of ["checking", "downloading", "unpacking", "testing", "done"]) {
      assert.ok(seen.includes(phase), `${phase} in ${seen}`);
    }

    const after = await versions(c);
    assert.equal(after.gameFound, true);
    assert.deepEqual(after.installed, [{ version: "2.0.77", active: true, managed: true }]);
    assert.deepEqual((await c.get("/api/server/facVersion")).body, {
      version: "2.0.77.0",
      base_mod_version: "2.0.77",
    });
    assert.deepEqual(leftovers(v.factorioDir), []);
    // The write-data directory is the shared one, not the version folder.
    assert.match(
      readFileSync(join(v.factorioDir, "config", "config.ini"), "utf8"),
      new RegExp(`^write-data=${v.factorioDir}$`, "m"),
    );
    assert.match(
      readFileSync(join(v.factorioDir, "versions", "2.0.77", "config-path.cfg"), "utf8"),
      new RegExp(`^config-path=${v.factorioDir}/config$`, "m"),
    );
    // No credential went to factorio.com.
    for (const r of v.fake.requests) {
      assert.equal(r.headers.cookie, undefined);
      assert.equal(r.headers.authorization, undefined);
      assert.ok(!/token|username/.test(r.path));
    }

    // A save made and hosted by the installed game lands in the shared saves/, its log in <factorio-dir>.
    const created = await c.get("/api/saves/create/first");
    assert.equal(created.status, 200, created.text);
    assert.ok(existsSync(join(v.factorioDir, "saves", "first.zip")));
    const started = await c.post("/api/server/start", {
      bindip: "127.0.0.1",
      port: await freeUdpPort(),
      savefile: "first.zip",
    });
    assert.equal(started.status, 200, started.text);
    assert.ok(existsSync(join(v.factorioDir, "factorio-current.log")));
    assert.ok(!existsSync(join(v.factorioDir, "versions", "2.0.77", "factorio-current.log")));
    assert.ok(!existsSync(join(v.factorioDir, "versions", "2.0.77", "saves")));
    // While it runs, changes to versions are refused.
    assert.equal((await c.post("/api/factorio/install", { version: "2.0.76" })).status, 423);
    assert.equal((await c.post("/api/factorio/activate", { version: "2.0.77" })).status, 423);
    const stopped = await c.get("/api/server/stop");
    assert.equal(stopped.status, 200, stopped.text);
  }),
);

const FAILURES: [Mode, RegExp][] = [
  ["wrong-checksum", /does not match factorio\.com's checksum/],
  ["missing-checksum", /lists no checksum/],
  ["truncated", /broke off|cut off/],
  ["404", /no such download \(404\)/],
  ["huge", /not enough free disk space/],
  ["dotdot", /path with "\.\."/],
  ["absolute", /absolute path/],
  ["link", /link leading outside/],
  ["wrong-inside", /is not Factorio 2\.0\.76 \(--version says 2\.0\.77/],
];

Deno.test(
  "every failure mode installs nothing and says why",
  withVersionsPanel(async (v) => {
    const c = await v.panel.login();
    for (const [mode, why] of FAILURES) {
      v.fake.setMode("2.0.76", mode);
      const out = await install(c, v.panel.ctx.bus, "2.0.76");
      assert.equal(out.phase, "failed", `${mode}: ${out.message}`);
      assert.match(out.message, why, mode);
      assert.match(out.message, /nothing was installed/, mode);
      const now = await versions(c);
      assert.deepEqual(now.installed, [], mode);
      assert.equal(now.install?.phase, "failed");
      assert.deepEqual(leftovers(v.factorioDir), [], mode);
      assert.ok(
        !existsSync(join(v.factorioDir, "escaped.txt")) &&
          !existsSync(join(dirname(v.factorioDir), "escaped.txt")),
        mode,
      );
    }
    // The same version installs once the site is right again.
    v.fake.setMode("2.0.76", "ok");
    assert.equal((await install(c, v.panel.ctx.bus, "2.0.76")).phase, "done");
  }),
);

Deno.test(
  "an install can be cancelled mid-download, and a second install is refused while one runs",
  withVersionsPanel(async (v) => {
    const c = await v.panel.login();
    v.fake.setMode("2.0.77", "slow");
    const outcome = installOutcome(v.panel.ctx.bus);
    const downloading = new Promise<void>((r) => {
      const off = v.panel.ctx.bus.on("factorio.versions", (m) => {
        if (m.kind === "install" && m.install.phase === "downloading" && m.install.received > 0) (off(), r());
      });
    });
    assert.equal((await c.post("/api/factorio/install", { version: "2.0.77" })).status, 202);
    await downloading;
    const second = await c.post("/api/factorio/install", { version: "2.0.76" });
    assert.equal(second.status, 409);
    assert.match(second.body, /Factorio 2\.0\.77 is being installed/);
    const busy = await versions(c);
    assert.equal(busy.install?.phase, "downloading");
    assert.ok(busy.install!.bytesPerSecond > 0 && busy.install!.total! > 0);
    assert.equal((await c.post("/api/factorio/install/cancel")).status, 200);
    const out = await outcome;
    assert.equal(out.phase, "cancelled");
    assert.deepEqual((await versions(c)).installed, []);
    assert.deepEqual(leftovers(v.factorioDir), []);
    assert.equal((await c.post("/api/factorio/install/cancel")).status, 409);

    // Two requests at the same moment: exactly one install runs.
    v.fake.setMode("2.0.77", "ok");
    const both = installOutcome(v.panel.ctx.bus);
    const answers = await Promise.all([
      c.post("/api/factorio/install", { version: "2.0.76" }),
      c.post("/api/factorio/install", { version: "2.0.77" }),
      c.post("/api/factorio/install", { version: "stable" }),
    ]);
    assert.deepEqual(answers.map((a) => a.status).sort(), [202, 409, 409]);
    assert.equal((await both).phase, "done");
    assert.equal((await versions(c)).installed.length, 1);
  }, { slowBytesPerSecond: 400 }),
);

Deno.test(
  "versions side by side: activate and roll back keep saves, mods and settings byte-identical",
  withVersionsPanel(async (v) => {
    const c = await v.panel.login();
    assert.equal((await install(c, v.panel.ctx.bus, "2.0.76")).phase, "done");
    assert.equal((await install(c, v.panel.ctx.bus, "2.1.12")).phase, "done");
    assert.deepEqual((await versions(c)).installed.map((i) => `${i.version}${i.active ? "*" : ""}`), [
      "2.1.12",
      "2.0.76*",
    ]);
    assert.equal((await c.get("/api/saves/create/shared")).status, 200);
    mkdirSync(join(v.factorioDir, "mods"), { recursive: true });
    writeFileSync(join(v.factorioDir, "mods", "mod-settings.dat"), new Uint8Array([1, 2, 3, 4]));
    const settings = await c.post("/api/settings/update", { name: "Shared world" });
    assert.ok(settings.status < 300, settings.text);
    // An unpacked mod made for 2.0: its compatibility follows the active version.
    mkdirSync(join(v.factorioDir, "mods", "made-for-2_1.0.0"));
    writeFileSync(
      join(v.factorioDir, "mods", "made-for-2_1.0.0", "info.json"),
      JSON.stringify({
        name: "made-for-2",
        version: "1.0.0",
        title: "Made for 2.0",
        author: "me",
        factorio_version: "2.0",
        dependencies: ["base"],
      }),
    );
    type Row = { name: string; compatibility: boolean };
    const mods = async () => (await c.get("/api/mods/list")).body as Row[];
    const builtIns = async () => (await mods()).map((m) => m.name);
    const fits = async () => (await mods()).find((m) => m.name === "made-for-2")!.compatibility;
    assert.ok(!(await builtIns()).includes("recycler"));
    assert.equal(await fits(), true);
    const before = snapshot(v.factorioDir);

    const r = await c.post("/api/factorio/activate", { version: "2.1.12" });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual((await c.get("/api/server/facVersion")).body.base_mod_version, "2.1.12");
    assert.ok((await builtIns()).includes("recycler"), "the built-in mods follow the active version");
    assert.equal(await fits(), false, "2.1 does not load a mod made for 2.0");
    assert.deepEqual(snapshot(v.factorioDir), before);
    assert.equal((await c.post("/api/factorio/activate", { version: "2.0.76" })).status, 200);
    assert.deepEqual(snapshot(v.factorioDir), before);
    assert.equal((await c.get("/api/server/facVersion")).body.base_mod_version, "2.0.76");
    // A copy of the save was kept before each switch.
    const copies = readdirSync(join(v.panel.dataDir, "save-copies"));
    assert.equal(copies.length, 2);
    assert.ok(copies.every((n) => n.endsWith("_shared.zip")));

    // Delete: not the active one; the other goes.
    assert.equal((await c.request("DELETE", "/api/factorio/versions/2.0.76")).status, 409);
    assert.equal((await c.request("DELETE", "/api/factorio/versions/9.9.9")).status, 404);
    assert.equal((await c.request("DELETE", "/api/factorio/versions/..")).status, 404);
    assert.equal((await c.post("/api/factorio/activate", { version: "../x" })).status, 404);
    assert.equal((await c.post("/api/factorio/install", { version: "2.0" })).status, 400);
    assert.equal((await c.post("/api/factorio/install", { version: "2.0.76" })).status, 409);
    assert.equal((await c.request("DELETE", "/api/factorio/versions/2.1.12")).status, 200);
    assert.deepEqual((await versions(c)).installed.map((i) => i.version), ["2.0.76"]);
    assert.deepEqual(snapshot(v.factorioDir), before);
  }),
);

Deno.test(
  "a hand-installed game keeps working unmanaged, and the panel keeps the last 2 versions",
  withVersionsPanel(async (v) => {
    const c = await v.panel.login();
    assert.deepEqual((await versions(c)).installed, [{ version: "2.0.72", active: true, managed: false }]);
    assert.equal((await install(c, v.panel.ctx.bus, "2.0.76")).phase, "done");
    // A game is there already: a plain install does not switch.
    assert.equal((await c.get("/api/server/facVersion")).body.base_mod_version, "2.0.72");
    assert.equal((await c.post("/api/factorio/activate", { version: "2.0.76" })).status, 200);
    assert.equal((await c.get("/api/server/facVersion")).body.base_mod_version, "2.0.76");
    assert.equal((await install(c, v.panel.ctx.bus, "2.0.77")).phase, "done");
    assert.equal((await install(c, v.panel.ctx.bus, "2.1.12")).phase, "done");
    assert.equal((await c.post("/api/factorio/activate", { version: "2.0.77" })).status, 200);
    // Active 2.0.77 and the one before it (2.0.76) stay; 2.1.12 goes; the hand install is never touched.
    assert.deepEqual(
      (await versions(c)).installed.map((i) =>
        `${i.version}${i.active ? "*" : ""}${i.managed ? "" : " (hand)"}`
      ),
      [
        "2.0.77*",
        "2.0.76",
        "2.0.72 (hand)",
      ],
    );
    assert.equal((await c.request("DELETE", "/api/factorio/versions/2.0.72")).status, 400);
    assert.equal((await c.post("/api/factorio/activate", { version: "2.0.72" })).status, 200);
    assert.equal((await c.get("/api/server/facVersion")).body.base_mod_version, "2.0.72");
    assert.ok(existsSync(join(v.factorioDir, "bin", "x64", "factorio")));
  }, { handInstalled: "2.0.72" }),
);

Deno.test("--factorio-version installs the game on the first start when none is found", async () => {
  const v = await startVersionsPanel({ args: ["--factorio-version", "latest"] });
  try {
    // The install may have finished before the test subscribed: wait on the API instead.
    const c = await v.panel.login();
    let answer = await versions(c);
    while (answer.install === null || !["done", "failed"].includes(answer.install.phase)) {
      await new Promise((r) => setTimeout(r, 200));
      answer = await versions(c);
    }
    assert.equal(answer.install!.phase, "done", answer.install!.message);
    assert.deepEqual(answer.installed, [{ version: "2.1.12", active: true, managed: true }]);
    assert.equal(answer.channel, "experimental");
    assert.ok(statSync(join(v.factorioDir, "versions", "2.1.12", "bin", "x64", "factorio")).mode & 0o100);
  } finally {
    await v.close();
  }
});

Deno.test(
  "the update check compares the active channel's newest version",
  withVersionsPanel(async (v) => {
    const c = await v.panel.login();
    assert.equal((await install(c, v.panel.ctx.bus, "2.0.76")).phase, "done");
    const announced: string[] = [];
    v.panel.ctx.bus.on(
      "factorio.versions",
      (m) => m.kind === "update-available" && announced.push(m.info.latest),
    );
    const r = await c.post("/api/factorio/check");
    assert.equal(r.status, 200);
    assert.deepEqual({ ...r.body, checkedAt: "" }, {
      channel: "stable",
      current: "2.0.76",
      latest: "2.0.77",
      checkedAt: "",
    });
    assert.equal((await c.post("/api/factorio/check")).body.latest, "2.0.77");
    assert.deepEqual(announced, ["2.0.77"], "each new version is announced once (the push alert listens)");
    v.fake.release("2.0.78", "stable");
    // Cached until the next check.
    assert.equal((await versions(c)).updateAvailable?.latest, "2.0.77");
    assert.equal((await c.post("/api/factorio/check")).body.latest, "2.0.78");
    assert.deepEqual(announced, ["2.0.77", "2.0.78"]);
    await waitForStatus(v.panel.ctx, "stopped");
  }),
);
