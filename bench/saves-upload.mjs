// A 1 GiB save through the real API, with curl as the client, beside the plain file tools in the same run
// (runs alternated, median of 3):
//   - upload (POST /api/saves/upload, multipart field "savefile") vs `cp` of the same file into the same
//     folder, and how much the backend's resident memory grows meanwhile (target: within 2x cp, < 64 MiB);
//     on a new connection and on one that already carried a request, as a browser's usually has;
//   - download (GET /api/saves/dl/:name) vs `cat` of the same file into the same folder (target: within 2x);
//   - the same curl upload to a bare Deno.serve that only writes the body to a file (bench/bare-server.ts
//     --sink): what the runtime itself costs;
//   - the same curl upload to a server that reads the body and throws it away (a few lines of Node here):
//     the floor, what curl itself takes to send the file;
//   - `cp` followed by `sync` of the copy: the panel flushes an upload's data to the disk before it
//     renames it into place, which plain `cp` does not;
//   - once, the upload and the floor at a gigabit link's rate (curl --limit-rate 110M): what a user on a
//     LAN waits, flush included.
// Both sides read the source from the page cache (it was just written) and write to the same filesystem.
//   node bench/saves-upload.mjs [MiB] [runs]
//
// The peak is the kernel's VmHWM of the panel process, reset just before the first upload (clear_refs 5),
// so the figure is the growth caused by the uploads alone.

import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  benchLogin,
  filler,
  median,
  ROOT,
  rssMiB,
  startBare,
  startPanel,
  stopBare,
  stopPanel,
  writeZip,
} from "./lib.mjs";

const mib = Number(process.argv[2] ?? 1024);
const RUNS = Number(process.argv[3] ?? 3);
const dir = mkdtempSync(join(tmpdir(), "bench-saves-upload-"));
const factorioDir = join(dir, "factorio");
const savesDir = join(factorioDir, "saves");
const outDir = join(dir, "out");
const savePath = join(dir, "big.zip");
mkdirSync(savesDir, { recursive: true });
mkdirSync(outDir);

/**
 * Runs a command and returns its wall time in seconds; throws when it fails. Dirty pages are written out
 * first (sync), so no step pays for the writeback of the one before it: without that, the same upload
 * took 1.0 s or 2.0 s depending on what ran before it.
 */
function timed(cmd, args) {
  spawnSync("sync");
  const started = performance.now();
  const r = spawnSync(cmd, args, { stdio: ["ignore", "pipe", "pipe"] });
  const seconds = (performance.now() - started) / 1000;
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr}`);
  return { seconds, stdout: String(r.stdout) };
}

let panel;
const bares = [];
try {
  const header = readFileSync(join(ROOT, "tests/fixtures/saves/2_0_spaceage.level-init.dat")).subarray(
    0,
    4096,
  );
  const size = await writeZip(savePath, [
    {
      name: "big/level-init.dat",
      chunks: async function* () {
        yield header;
      },
    },
    { name: "big/level.dat0", chunks: () => filler(mib * 1024 * 1024 - 8192) },
  ]);
  const gib = (size / 1024 ** 3).toFixed(2);

  // The first gigabyte the machine writes after making the source file costs several times the next (on the
  // test machine, a virtual one, cp then sync of 1 GiB took 3.0-3.8 s the first time and 0.7 s the second,
  // the writing threads' time going to the kernel): two copies first, so the timed steps start alike.
  for (let i = 0; i < 2; i++) {
    timed("cp", [savePath, join(outDir, "warm-up.zip")]);
    spawnSync("sync");
    rmSync(join(outDir, "warm-up.zip"));
  }

  panel = await startPanel({ args: ["--factorio-dir", factorioDir] });
  const cookie = await benchLogin(panel.url);
  const pid = panel.child.pid;
  await new Promise((r) => setTimeout(r, 1000));
  const before = rssMiB(pid);
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, "5"); // resets VmHWM to the current RSS
  } catch {
    console.log("(could not reset the peak; the figure includes the panel's earlier peak)");
  }

  const resetPeak = () => {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, "5");
    } catch { /* said above */ }
  };
  const sinkDir = join(dir, "sink");
  mkdirSync(sinkDir);
  const bare = await startBare('"ok"', "application/json", { sink: sinkDir });
  bares.push(bare);
  const discard = await discardingServer();
  const floorUp = [];
  const bareUp = [];
  const bareUpload = (url) => {
    const t = timed("curl", [
      "-sS",
      "-f",
      "-o",
      "/dev/null",
      "-F",
      `savefile=@${savePath};filename=x.zip;type=application/zip`,
      url,
    ]);
    rmSync(sinkDir, { recursive: true });
    mkdirSync(sinkDir);
    return t.seconds;
  };
  let upPeak = 0;
  let downPeak = 0;
  const up = [];
  const upKept = [];
  const cp = [];
  const cpSync = [];
  const down = [];
  const cat = [];
  for (let i = 0; i < RUNS; i++) {
    const name = `big-${i}.zip`;
    const u = timed("curl", [
      "-sS",
      "-w",
      "\\n%{http_code}",
      "-H",
      `Cookie: ${cookie}`,
      "-F",
      `savefile=@${savePath};filename=${name};type=application/zip`,
      `${panel.url}/api/saves/upload`,
    ]);
    if (!u.stdout.trim().endsWith("200")) throw new Error(`upload failed: ${u.stdout}`);
    if (statSync(join(savesDir, name)).size !== size) throw new Error("the stored save differs in size");
    up.push(u.seconds);
    upPeak = Math.max(upPeak, rssMiB(pid, "VmHWM"));
    // The same upload after a small request on the same connection (curl --next reuses it).
    const kept = timed("curl", [
      "-sS",
      "-o",
      "/dev/null",
      "-H",
      `Cookie: ${cookie}`,
      `${panel.url}/api/saves/list`,
      "--next",
      "-sS",
      "-o",
      "/dev/null",
      "-w",
      "%{time_total} %{num_connects} %{http_code}",
      "-H",
      `Cookie: ${cookie}`,
      "-F",
      `savefile=@${savePath};filename=kept-${i}.zip;type=application/zip`,
      `${panel.url}/api/saves/upload`,
    ]);
    const [keptSeconds, connects, keptCode] = kept.stdout.trim().split(" ");
    if (keptCode !== "200" || connects !== "0") {
      throw new Error(`the upload on a kept connection failed: ${kept.stdout}`);
    }
    if (statSync(join(savesDir, `kept-${i}.zip`)).size !== size) {
      throw new Error("the stored save differs in size");
    }
    upKept.push(Number(keptSeconds));
    upPeak = Math.max(upPeak, rssMiB(pid, "VmHWM"));
    rmSync(join(savesDir, `kept-${i}.zip`));
    cp.push(timed("cp", [savePath, join(savesDir, `copy-${i}.zip`)]).seconds);
    rmSync(join(savesDir, `copy-${i}.zip`));
    cpSync.push(
      timed("sh", [
        "-c",
        `cp '${savePath}' '${join(savesDir, `copy-${i}.zip`)}' && sync '${join(savesDir, `copy-${i}.zip`)}'`,
      ]).seconds,
    );
    floorUp.push(bareUpload(discard.url));
    bareUp.push(bareUpload(bare.url + "/"));

    const out = join(outDir, `down-${i}.zip`);
    resetPeak();
    const d = timed("curl", [
      "-sS",
      "-f",
      "-o",
      out,
      "-H",
      `Cookie: ${cookie}`,
      `${panel.url}/api/saves/dl/${name}`,
    ]);
    if (statSync(out).size !== size) throw new Error("the downloaded save differs in size");
    down.push(d.seconds);
    downPeak = Math.max(downPeak, rssMiB(pid, "VmHWM"));
    cat.push(timed("sh", ["-c", `cat '${savePath}' > '${join(outDir, `cat-${i}.zip`)}'`]).seconds);
    for (const f of [out, join(outDir, `cat-${i}.zip`), join(savesDir, `copy-${i}.zip`)]) rmSync(f);
    resetPeak();
  }
  // At a gigabit LAN's rate, once: the upload against the floor.
  const LAN = "110M";
  const lan = timed("curl", [
    "--limit-rate",
    LAN,
    "-sS",
    "-o",
    "/dev/null",
    "-w",
    "%{http_code}",
    "-H",
    `Cookie: ${cookie}`,
    "-F",
    `savefile=@${savePath};filename=lan.zip;type=application/zip`,
    `${panel.url}/api/saves/upload`,
  ]);
  if (lan.stdout.trim() !== "200") throw new Error(`the rate-limited upload failed: ${lan.stdout}`);
  rmSync(join(savesDir, "lan.zip"));
  const lanFloor = timed("curl", [
    "--limit-rate",
    LAN,
    "-sS",
    "-f",
    "-o",
    "/dev/null",
    "-F",
    `savefile=@${savePath};filename=x.zip;type=application/zip`,
    discard.url,
  ]);
  const m = (xs) => median(xs);
  console.log(
    `upload of a ${gib} GiB save, curl -F to POST /api/saves/upload, median of ${RUNS}: ${
      m(up).toFixed(2)
    } s ` +
      `(${(size / 1024 ** 2 / m(up)).toFixed(0)} MiB/s); cp of the same file: ${m(cp).toFixed(2)} s; ` +
      `ratio ${(m(up) / m(cp)).toFixed(2)} (target <= 2)`,
  );
  console.log(
    `  cp then sync of the copy (its data on the disk, as the panel's upload is before it is renamed into place): ` +
      `${m(cpSync).toFixed(2)} s; the panel takes ${(m(up) / m(cpSync)).toFixed(2)} x that`,
  );
  console.log(
    `  at a gigabit link's rate (curl --limit-rate ${LAN}), once: the upload ${lan.seconds.toFixed(2)} s, ` +
      `a server that discards the body ${lanFloor.seconds.toFixed(2)} s (${
        (lan.seconds / lanFloor.seconds).toFixed(2)
      } x)`,
  );
  console.log(
    `  the same upload on a connection that already carried a request (a browser's usually has): ${
      m(upKept).toFixed(2)
    } s ` +
      `(${(m(upKept) / m(cp)).toFixed(2)} x cp)`,
  );
  discard.close();
  console.log(
    `  the same curl upload to a server that discards the body: ${m(floorUp).toFixed(2)} s ` +
      `(${(m(floorUp) / m(cp)).toFixed(2)} x cp: curl's own floor); the panel takes ${
        (m(up) / m(floorUp)).toFixed(2)
      } x that`,
  );
  console.log(
    `  the same curl upload to a bare Deno.serve writing the body to a file: ${m(bareUp).toFixed(2)} s ` +
      `(${
        (m(bareUp) / m(cp)).toFixed(2)
      } x cp; the panel, which also parses the form and flushes the file to the disk, ` +
      `takes ${(m(up) / m(bareUp)).toFixed(2)} x that)`,
  );
  console.log(
    `download, curl from GET /api/saves/dl/:name: ${m(down).toFixed(2)} s (${
      (size / 1024 ** 2 / m(down)).toFixed(0)
    } MiB/s); ` +
      `cat of the same file: ${m(cat).toFixed(2)} s; ratio ${(m(down) / m(cat)).toFixed(2)} (target <= 2)`,
  );
  console.log(
    `backend RSS before ${before.toFixed(1)} MiB; peak during the uploads ${upPeak.toFixed(1)} MiB ` +
      `(growth ${(upPeak - before).toFixed(1)} MiB, target < 64 MiB), during the downloads ${
        downPeak.toFixed(1)
      } MiB ` +
      `(growth ${(downPeak - before).toFixed(1)} MiB)`,
  );
} finally {
  for (const b of bares) await stopBare(b);
  if (panel) await stopPanel(panel);
  rmSync(dir, { recursive: true, force: true });
}

/**
 * An HTTP server that reads a request's body and throws it away, then answers 200 and closes: nothing on
 * the server side could take less, so its time is what the client alone takes to send the file. A process
 * of its own (Node), since this script waits on curl synchronously.
 */
function discardingServer() {
  const code = `
    const server = require("node:net").createServer((socket) => {
      let head = "";
      let left = -1;
      socket.on("data", (chunk) => {
        if (left < 0) {
          head += chunk.toString("latin1");
          const end = head.indexOf("\\r\\n\\r\\n");
          if (end < 0) return;
          left = Number(/content-length:\\s*(\\d+)/i.exec(head)?.[1] ?? 0) - (head.length - end - 4);
          if (/expect:\\s*100-continue/i.test(head.slice(0, end))) socket.write("HTTP/1.1 100 Continue\\r\\n\\r\\n");
        } else left -= chunk.length;
        if (left <= 0) socket.end("HTTP/1.1 200 OK\\r\\nContent-Length: 0\\r\\nConnection: close\\r\\n\\r\\n");
      });
      socket.on("error", () => {});
    });
    server.listen(0, "127.0.0.1", () => console.log("listening on http://127.0.0.1:" + server.address().port + "/"));
  `;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((ok) =>
    child.stdout.once(
      "data",
      (d) => ok({ url: /listening on (\S+)/.exec(String(d))[1], close: () => child.kill() }),
    )
  );
}
