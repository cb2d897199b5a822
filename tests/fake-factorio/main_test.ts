// The simulator against what the real game does: the same answers on the command line, the same save
// header format, the same log lines, a real UDP port, real RCON, real signals.

import assert from "node:assert/strict";
import {
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { type FakeFactorio, installFakeFactorio, type SimulatedVersion } from "./install.ts";
import { freeTcpPort, freeUdpPort, holdUdpPort, SimProcess } from "./sim.ts";
import { ZipReader } from "../../backend/lib/zip.ts";
import { FULL_BODY, RconClient, RconError } from "../../backend/factorio/game/rcon.ts";

const FIXTURES = new URL("../fixtures/", import.meta.url).pathname;

/**
 * A reader of the level-init.dat header written from fsm-behaviour.md 7.2/7.3 (versions 0.17 and later),
 * independent of the simulator's writer. Checked against a real 2.0 header below.
 */
function readHeader(b: Uint8Array) {
  let p = 0;
  const u8 = () => b[p++];
  const u16 = () => (p += 2, b[p - 2] | (b[p - 1] << 8));
  const u32 = () => (p += 4, (b[p - 4] | (b[p - 3] << 8) | (b[p - 2] << 16) | (b[p - 1] << 24)) >>> 0);
  const optim16 = () => {
    const v = u8();
    return v === 0xff ? u16() : v;
  };
  const optim32 = () => {
    const v = u8();
    return v === 0xff ? u32() : v;
  };
  const str = () => {
    const n = optim32();
    p += n;
    return new TextDecoder().decode(b.subarray(p - n, p));
  };
  const version = [u16(), u16(), u16(), u16()];
  u8();
  const campaign = str(), name = str(), baseMod = str();
  const difficulty = u8();
  u8(), u8();
  str();
  u8(), u8(), u8(), u8();
  const loadedFrom = [optim16(), optim16(), optim16()];
  const v2 = version[0] >= 2;
  const build = v2 ? u32() : u16();
  const allowedCommands = u8();
  const extra = v2 ? [u8(), u8(), u8(), u8()] : [];
  const count = optim32();
  const mods: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = str();
    mods.push(`${n} ${optim16()}.${optim16()}.${optim16()}`);
    u32();
  }
  return {
    version: version.join("."),
    campaign,
    name,
    baseMod,
    difficulty,
    loadedFrom: loadedFrom.join("."),
    build,
    allowedCommands,
    extra,
    mods,
  };
}

async function headerOf(zipPath: string) {
  const zip = await ZipReader.open(zipPath);
  try {
    return readHeader(await zip.read(zip.find("level-init.dat", true)!, 1 << 20));
  } finally {
    await zip.close();
  }
}

function withFactorio(version: SimulatedVersion, fn: (f: FakeFactorio) => Promise<void>) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "fake-factorio-"));
    try {
      await fn(installFakeFactorio(dir, version));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

async function run(f: FakeFactorio, args: string[], env: Record<string, string> = {}) {
  const p = new SimProcess(f.binary, args, env);
  const status = await p.exited;
  return { status, lines: p.lines, text: p.lines.join("\n") };
}

Deno.test("the test reader agrees with a real 2.0 Space Age header", () => {
  const h = readHeader(readFileSync(join(FIXTURES, "saves/2_0_spaceage.level-init.dat")));
  assert.equal(h.version, "2.0.7.0");
  assert.equal(h.build, 79385);
  assert.deepEqual(h.extra, [0, 0, 0xa0, 0]);
  assert.deepEqual(h.mods, ["base 2.0.7", "elevated-rails 2.0.7", "quality 2.0.7", "space-age 2.0.7"]);
});

for (const version of ["1.1", "2.0"] as const) {
  Deno.test(
    `${version}: --version answers like the real binary`,
    withFactorio(version, async (f) => {
      const { status, lines } = await run(f, ["--version"]);
      assert.equal(status.code, 0);
      assert.equal(lines[0], `Version: ${f.fullVersion} (build ${f.build}, linux64, headless)`);
      assert.equal(lines[1], "Binary version: 64");
      assert.match(lines[2], /^Map input version: \d+\.\d+\.\d+-0$/);
      assert.equal(lines[3], `Map output version: ${f.fullVersion}-0`);
    }),
  );

  Deno.test(
    `${version}: --create writes a save whose header is in the real format, listing the enabled mods`,
    withFactorio(version, async (f) => {
      copyFileSync(
        join(FIXTURES, "mods/belt-balancer_3.0.0.zip"),
        join(f.dir, "mods/belt-balancer_3.0.0.zip"),
      );
      if (version === "2.0") {
        writeFileSync(
          join(f.dir, "mods/mod-list.json"),
          JSON.stringify({ mods: [{ name: "base", enabled: true }, { name: "quality", enabled: false }] }),
        );
      }
      const { status, text } = await run(f, ["--create", join(f.dir, "saves/world")]);
      assert.equal(status.code, 0, text);
      assert.match(text, /Creating new map .*\/saves\/world\.zip/);
      assert.match(text, / Goodbye$/);
      const h = await headerOf(join(f.dir, "saves/world.zip"));
      assert.equal(h.version, `${f.fullVersion}.0`);
      assert.equal(h.loadedFrom, f.fullVersion);
      assert.equal(h.build, f.build);
      assert.equal(h.name, "freeplay");
      assert.equal(h.baseMod, "base");
      assert.equal(h.allowedCommands, 1);
      if (version === "2.0") {
        assert.deepEqual(h.extra, [0, 0, 0xa0, 0]);
        // Built-in expansions are on by default, except what mod-list.json turns off; new zips are enabled.
        assert.deepEqual(h.mods, [
          "base 2.0.72",
          "belt-balancer 3.0.0",
          "elevated-rails 2.0.72",
          "space-age 2.0.72",
        ]);
      } else {
        assert.deepEqual(h.extra, []);
        assert.deepEqual(h.mods, ["base 1.1.110", "belt-balancer 3.0.0"]);
      }
      const list = JSON.parse(readFileSync(join(f.dir, "mods/mod-list.json"), "utf8")).mods;
      assert.ok(
        list.some((m: { name: string; enabled: boolean }) => m.name === "belt-balancer" && m.enabled),
      );
      assert.match(readFileSync(join(f.dir, "factorio-current.log"), "utf8"), /Factorio initialised/);
    }),
  );
}

Deno.test(
  "hosting: log lines, RCON commands, players, lists kept in their files, SIGINT saves",
  withFactorio("2.0", async (f) => {
    assert.equal((await run(f, ["--create", join(f.dir, "saves/world.zip")])).status.code, 0);
    writeFileSync(join(f.dir, "factorio-current.log"), "the previous run\n");
    const port = await freeUdpPort();
    const rconPort = await freeTcpPort();
    const adminList = join(f.dir, "config/server-adminlist.json");
    const whitelist = join(f.dir, "config/server-whitelist.json");
    const banList = join(f.dir, "config/server-banlist.json");
    const consoleLog = join(f.dir, "console.log");
    writeFileSync(adminList, JSON.stringify(["Boss"]));
    const before = statSync(join(f.dir, "saves/world.zip")).mtimeMs;
    const game = new SimProcess(f.binary, [
      "--start-server",
      join(f.dir, "saves/world.zip"),
      "--bind",
      "127.0.0.1",
      "--port",
      String(port),
      "--rcon-bind",
      `127.0.0.1:${rconPort}`,
      "--rcon-password",
      "s3cret",
      "--server-adminlist",
      adminList,
      "--server-whitelist",
      whitelist,
      "--use-server-whitelist",
      "true",
      "--server-banlist",
      banList,
      "--console-log",
      consoleLog,
      "--server-settings",
      join(f.dir, "data/server-settings.example.json"),
    ]);
    try {
      await game.waitForLine(new RegExp(`Hosting game at IP ADDR:\\(\\{127\\.0\\.0\\.1:${port}\\}\\)`));
      await game.waitForLine(/changing state from\(CreatingGame\) to\(InGame\)/);
      await game.waitForLine(
        new RegExp(`Starting RCON interface at IP ADDR:\\(\\{127\\.0\\.0\\.1:${rconPort}\\}\\)`),
      );
      assert.match(
        game.lines[0],
        /^ {3}0\.\d{3} \d{4}-\d\d-\d\d \d\d:\d\d:\d\d; Factorio 2\.0\.72 \(build 83505, linux64, headless\)$/,
      );
      assert.ok(game.lines.some((l) => l.includes(`Loading map ${join(f.dir, "saves/world.zip")}`)));
      assert.equal(readFileSync(join(f.dir, "factorio-previous.log"), "utf8"), "the previous run\n");

      await assert.rejects(
        RconClient.connect({ host: "127.0.0.1", port: rconPort, password: "wrong" }),
        RconError,
      );
      const rcon = await RconClient.connect({ host: "127.0.0.1", port: rconPort, password: "s3cret" });
      try {
        assert.equal(await rcon.exec("/players"), "Players (0):");
        assert.equal(await rcon.exec("/version"), "2.0.72");
        assert.equal(await rcon.exec("/time"), "0 seconds", "auto_pause: the map waits for players");
        assert.equal(await rcon.exec("/no-such-command"), 'Unknown command "no-such-command".');
        assert.equal(await rcon.exec("/server-save"), `Saving map as ${join(f.dir, "saves/world.zip")}`);
        await game.waitForLine(/Info AppManager\.cpp:\d+: Saving to world \(blocking\)\.$/);
        await game.waitForLine(/Info AppManagerStates\.cpp:\d+: Saving finished$/);
        assert.ok(statSync(join(f.dir, "saves/world.zip")).mtimeMs > before, "/server-save wrote the map");
        assert.equal(await rcon.exec("/save backup"), `Saving map as ${join(f.dir, "saves/backup.zip")}`);
        assert.ok(existsSync(join(f.dir, "saves/backup.zip")));
        assert.equal(await rcon.exec("/save _autosave9"), "You can't save over an autosave.");
        assert.equal(await rcon.exec("hello everyone"), "");
        await game.waitForLine(/\[CHAT\] <server>: hello everyone$/);

        // The whitelist is enforced once it has names; bans always.
        assert.equal(await rcon.exec("/whitelist add alice"), "Added alice to the whitelist.");
        assert.equal(await rcon.exec("/whitelist add bob"), "Added bob to the whitelist.");
        assert.deepEqual(JSON.parse(readFileSync(whitelist, "utf8")), ["alice", "bob"]);
        assert.equal(await rcon.exec("/fake-join mallory"), "mallory could not join: not whitelisted");
        assert.equal(await rcon.exec("/fake-join alice bob"), "");
        await game.waitForLine(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \[JOIN\] bob joined the game$/);
        assert.equal(await rcon.exec("/players"), "Players (2):\n  alice (online)\n  bob (online)");
        assert.equal(await rcon.exec("/fake-chat alice hi there"), "");
        await game.waitForLine(/\[CHAT\] alice: hi there$/);

        assert.equal(await rcon.exec("/promote alice"), "alice was promoted to admin by <server>.");
        assert.deepEqual(JSON.parse(readFileSync(adminList, "utf8")), ["Boss", "alice"]);
        assert.equal(await rcon.exec("/admins"), "Admins (2):\n  Boss\n  alice (online)");
        assert.equal(await rcon.exec("/demote boss"), "boss was demoted from admin by <server>.");
        assert.deepEqual(JSON.parse(readFileSync(adminList, "utf8")), ["alice"]);

        assert.equal(await rcon.exec("/ban bob griefing"), "bob was banned by <server>. Reason: griefing.");
        await game.waitForLine(/\[LEAVE\] bob left the game$/);
        assert.deepEqual(JSON.parse(readFileSync(banList, "utf8")), [{
          username: "bob",
          reason: "griefing",
        }]);
        assert.equal(await rcon.exec("/fake-join bob"), "bob could not join: banned");
        assert.equal(await rcon.exec("/unban bob"), "bob was unbanned by <server>.");
        assert.deepEqual(JSON.parse(readFileSync(banList, "utf8")), []);
        assert.equal(await rcon.exec("/kick alice afk"), "alice was kicked by <server>. Reason: afk.");
        assert.equal(await rcon.exec("/players online"), "Online players (0):");

        // A reply longer than one packet arrives whole.
        await rcon.exec("/whitelist clear");
        const many = Array.from({ length: 400 }, (_, i) => `engineer_number_${String(i).padStart(4, "0")}`);
        for (let i = 0; i < many.length; i += 100) {
          assert.equal(await rcon.exec(`/fake-join ${many.slice(i, i + 100).join(" ")}`), "");
        }
        const players = await rcon.exec("/players");
        assert.ok(new TextEncoder().encode(players).length > 3 * FULL_BODY, "spans several packets");
        assert.equal(players.split("\n").length, 1 + 402);
        assert.ok(players.endsWith("engineer_number_0399 (online)"));
        assert.equal(await rcon.exec("/version"), "2.0.72", "the next command still gets its own answer");
        assert.match(await rcon.exec("/time"), /^\d+ seconds?$|^\d+ minutes?/);
      } finally {
        rcon.close();
      }

      const consoleText = readFileSync(consoleLog, "utf8");
      for (const tag of ["JOIN", "LEAVE", "CHAT", "PROMOTE", "DEMOTE", "BAN", "UNBANNED", "KICK"]) {
        assert.match(consoleText, new RegExp(`\\[${tag}\\]`), tag);
      }
      const savedByCommand = statSync(join(f.dir, "saves/world.zip")).mtimeMs;
      game.kill("SIGINT");
      const status = await game.exited;
      assert.equal(status.code, 0);
      const tail = game.lines.slice(-5).map((l) => l.slice(9));
      assert.deepEqual(tail, [
        "Received SIGINT, shutting down",
        "Quitting: signal.",
        `Info MainLoop.cpp:437: Saving map as ${join(f.dir, "saves/world.zip")}`,
        "Info MainLoop.cpp:448: Saving progress: 100.000000%",
        "Goodbye",
      ]);
      assert.ok(
        statSync(join(f.dir, "saves/world.zip")).mtimeMs > savedByCommand,
        "the map was saved on SIGINT",
      );
      const log = readFileSync(join(f.dir, "factorio-current.log"), "utf8");
      assert.match(log, /Hosting game at/);
      assert.match(log, /Goodbye\n$/);
    } finally {
      game.kill("SIGKILL");
      await game.exited;
    }
  }),
);

Deno.test(
  "a taken game port fails like the real game",
  withFactorio("2.0", async (f) => {
    await run(f, ["--create", join(f.dir, "saves/world.zip")]);
    const held = await holdUdpPort(0);
    try {
      const { status, text } = await run(f, [
        "--start-server-load-latest",
        "--port",
        String(held.address().port),
      ]);
      assert.equal(status.code, 1);
      assert.match(text, /MultiplayerManager failed: "Host address is already in use\."/);
      assert.doesNotMatch(text, /Hosting game at/);
    } finally {
      held.close();
    }
  }),
);

Deno.test(
  "a missing save, or none to load, ends the start with an error",
  withFactorio("1.1", async (f) => {
    const missing = await run(f, [
      "--start-server",
      join(f.dir, "saves/nope.zip"),
      "--port",
      String(await freeUdpPort()),
    ]);
    assert.equal(missing.status.code, 1);
    assert.match(missing.text, /Map file .*nope\.zip does not exist/);
    const none = await run(f, ["--start-server-load-latest", "--port", String(await freeUdpPort())]);
    assert.equal(none.status.code, 1);
    assert.match(none.text, /No save file found/);
  }),
);

Deno.test(
  "crashes: on a timer, on command; no save, non-zero exit",
  withFactorio("2.0", async (f) => {
    await run(f, ["--create", join(f.dir, "saves/world.zip")]);
    const saved = statSync(join(f.dir, "saves/world.zip")).mtimeMs;
    const timed = await run(f, [
      "--start-server-load-latest",
      "--port",
      String(await freeUdpPort()),
      "--fake-crash-after",
      "700",
    ]);
    assert.equal(timed.status.code, 1);
    assert.match(timed.text, /Hosting game at/);
    assert.match(timed.text, /Factorio crashed/);
    assert.doesNotMatch(timed.text, /Goodbye|Saving map/);

    const rconPort = await freeTcpPort();
    const game = new SimProcess(f.binary, [
      "--start-server-load-latest",
      "--port",
      String(await freeUdpPort()),
      "--rcon-port",
      String(rconPort),
      "--rcon-password",
      "pw",
    ], { FAKE_FACTORIO_STARTUP_MS: "50" });
    await game.waitForLine(/Starting RCON interface/);
    const rcon = await RconClient.connect({ host: "127.0.0.1", port: rconPort, password: "pw" });
    await assert.rejects(rcon.exec("/fake-crash 3"), RconError);
    assert.equal((await game.exited).code, 3);
    assert.equal(statSync(join(f.dir, "saves/world.zip")).mtimeMs, saved, "nothing was saved");
    rcon.close();
  }),
);

Deno.test(
  "SIGKILL ends the game at once, without its goodbye",
  withFactorio("1.1", async (f) => {
    await run(f, ["--create", join(f.dir, "saves/world.zip")]);
    const game = new SimProcess(f.binary, [
      "--start-server-load-latest",
      "--port",
      String(await freeUdpPort()),
    ]);
    await game.waitForLine(/to\(InGame\)/);
    game.kill("SIGKILL");
    const status = await game.exited;
    assert.equal(status.signal, "SIGKILL");
    assert.ok(!game.lines.some((l) => l.includes("Goodbye")));
    assert.ok(existsSync(join(f.dir, "factorio-current.log")));
  }),
);

Deno.test(
  "a whitelist file without --use-server-whitelist is refused, as the game does",
  withFactorio("2.0", async (f) => {
    const r = await run(f, ["--start-server-load-latest", "--server-whitelist", join(f.dir, "w.json")]);
    assert.equal(r.status.code, 1);
    assert.match(r.text, /use-server-whitelist must be set when server-whitelist is set/);
  }),
);

Deno.test(
  "mod-settings.dat is read at start-up and written back with the game's version; a broken one fails the load",
  withFactorio("2.0", async (f) => {
    const path = join(f.dir, "mods/mod-settings.dat");
    const original = readFileSync(join(FIXTURES, "mod-settings/factorio-1.1.110.mod-settings.dat"));
    writeFileSync(path, original);
    const { status, text } = await run(f, ["--create", join(f.dir, "saves/world")]);
    assert.equal(status.code, 0, text);
    assert.match(text, /ModSettings: loaded 201 startup, 60 runtime-global, 14 runtime-per-user settings/);
    const after = readFileSync(path);
    assert.deepEqual(
      [...after.subarray(0, 8)],
      [2, 0, 0, 0, 72, 0, 0, 0],
      "the header now names this version",
    );
    assert.deepEqual(after.subarray(8), original.subarray(8), "the settings are as they were");

    writeFileSync(path, original.subarray(0, 100));
    const broken = await run(f, ["--create", join(f.dir, "saves/other")]);
    assert.equal(broken.status.code, 1);
    assert.match(
      broken.text,
      /Failed to load mod settings from .*mod-settings\.dat: a dictionary at byte 24 claims 201 entries/,
    );
    assert.equal(existsSync(join(f.dir, "saves/other.zip")), false);
  }),
);
Deno.test("without config.ini, the game writes the default one and keeps write-data beside itself; config-path.cfg and --config move it", async () => {
  const dir = mkdtempSync(join(tmpdir(), "fake-factorio-config-"));
  const shared = mkdtempSync(join(tmpdir(), "fake-factorio-shared-"));
  try {
    const f = installFakeFactorio(dir, "2.0");
    rmSync(join(dir, "config", "config.ini"));
    const first = new SimProcess(f.binary, ["--create", join(dir, "saves", "a.zip")]);
    assert.equal((await first.exited).code, 0);
    assert.match(
      readFileSync(join(dir, "config", "config.ini"), "utf8"),
      /^write-data=__PATH__executable__\/\.\.\/\.\.$/m,
    );
    assert.ok(existsSync(join(dir, "factorio-current.log")));

    // config-path.cfg pointing elsewhere: that config.ini's write-data is where the log goes.
    writeFileSync(
      join(dir, "config-path.cfg"),
      `config-path=${join(shared, "config")}\nuse-system-read-write-data-directories=false\n`,
    );
    Deno.mkdirSync(join(shared, "config"));
    writeFileSync(
      join(shared, "config", "config.ini"),
      `[path]\nread-data=__PATH__executable__/../../data\nwrite-data=${shared}\n`,
    );
    const second = new SimProcess(f.binary, ["--create", join(shared, "b.zip")]);
    assert.equal((await second.exited).code, 0);
    assert.ok(second.lines.some((l) => l.includes(`Write data path: ${shared} `)), second.lines.join("\n"));
    assert.ok(existsSync(join(shared, "factorio-current.log")));

    // --config wins over config-path.cfg.
    const other = join(shared, "other.ini");
    writeFileSync(other, `[path]\nwrite-data=${dir}\n`);
    const third = new SimProcess(f.binary, ["--config", other, "--create", join(shared, "c.zip")]);
    assert.equal((await third.exited).code, 0);
    assert.ok(third.lines.some((l) => l.includes(`Write data path: ${dir} `)), third.lines.join("\n"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(shared, { recursive: true, force: true });
  }
});
