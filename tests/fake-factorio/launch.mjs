// The simulated game for benchmarks that run under Node (bench/*.mjs, plain JavaScript): install it with
// saves, find a free UDP port, and send it a console command over RCON the way the panel does (port and
// password from the panel's <data-dir>/rcon.json). Playwright specs use game-fixtures.ts.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createSocket } from "node:dgram";
import { connect } from "node:net";
import { join, resolve } from "node:path";
import { PANEL_PERMISSIONS } from "../../scripts/launcher.mjs";

const ROOT = resolve(import.meta.dirname, "../..");

/** Installs the simulator in `dir` (install.ts) and creates saves with the simulated game's own --create. */
export function installGame(dir, version = "2.0", saves = ["world.zip"]) {
  execFileSync(join(ROOT, "node_modules/.bin/deno"), [
    "run",
    ...PANEL_PERMISSIONS,
    "tests/fake-factorio/install.ts",
    dir,
    version,
  ], {
    cwd: ROOT,
    stdio: "ignore",
  });
  for (const s of saves) {
    execFileSync(join(dir, "bin", "x64", "factorio"), ["--create", join(dir, "saves", s)], {
      cwd: dir,
      stdio: "ignore",
    });
  }
  return dir;
}

/** A UDP port nobody uses right now (for the game's --port). */
export function freeUdpPort() {
  return new Promise((ok, fail) => {
    const s = createSocket("udp4");
    s.once("error", fail);
    s.bind(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}

/**
 * Runs one console command in the game over RCON; resolves with the reply, or "" if the game died.
 * The game may open its RCON port a moment after it reports hosting: a refused connection is tried
 * again for up to `readyMs`.
 */
export async function rconExec(dataDir, command, readyMs = 5000) {
  const deadline = Date.now() + readyMs;
  for (;;) {
    try {
      return await rconOnce(dataDir, command);
    } catch (e) {
      if (e.code !== "ECONNREFUSED" || Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 25));
    }
  }
}

function rconOnce(dataDir, command) {
  const { port, password } = JSON.parse(readFileSync(join(dataDir, "rcon.json"), "utf8"));
  const packet = (id, type, body) => {
    const text = Buffer.from(body, "utf8");
    const b = Buffer.alloc(14 + text.length);
    b.writeInt32LE(10 + text.length, 0);
    b.writeInt32LE(id, 4);
    b.writeInt32LE(type, 8);
    text.copy(b, 12);
    return b;
  };
  return new Promise((ok, fail) => {
    const sock = connect(port, "127.0.0.1");
    let buf = Buffer.alloc(0);
    let reply = "";
    let sent = false;
    sock.on("connect", () => sock.write(packet(1, 3, password)));
    sock.on("data", (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 4 && buf.length >= 4 + buf.readInt32LE(0)) {
        const len = buf.readInt32LE(0);
        const id = buf.readInt32LE(4);
        const type = buf.readInt32LE(8);
        const body = buf.subarray(12, 4 + len - 2).toString("utf8");
        buf = buf.subarray(4 + len);
        if (id === -1) return fail(new Error("RCON authentication failed"));
        if (id === 1 && type === 2 && !sent) {
          sent = true;
          sock.write(packet(2, 2, command));
        } else if (id === 2) {
          reply += body;
          sock.end();
        }
      }
    });
    sock.on("close", () => ok(reply));
    sock.on("error", (e) => (e.code === "ECONNRESET" ? ok(reply) : fail(e)));
  });
}
