// The pieces of game installs on their own: the archive rules of untar.ts on hand-made tar files (kinds
// the fake site does not build: hard links, links through links, devices, long names, cut-off
// archives), factorio.com's archive page and checksum list, and the config.ini edit.

import assert from "node:assert/strict";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ArchiveError, untarXz } from "./untar.ts";
import { findChecksum, parseArchivePage } from "./factoriocom.ts";
import { setIniValues } from "./store.ts";
import { download, DownloadError } from "./download.ts";
import { startFakeFactorioCom } from "../../../tests/fake-factorio-com/server.ts";
import { TARBALL_CACHE } from "../../../tests/support/versions.ts";

interface Entry {
  name: string;
  type?: string;
  data?: string | Uint8Array;
  link?: string;
  mode?: number;
}

function header(name: string, type: string, size: number, link = "", mode = 0o644): Uint8Array {
  const h = new Uint8Array(512);
  const put = (s: string, at: number, len: number) => h.set(new TextEncoder().encode(s).subarray(0, len), at);
  const oct = (n: number, at: number, len: number) =>
    put(n.toString(8).padStart(len - 1, "0") + "\0", at, len);
  put(name, 0, 100);
  oct(mode, 100, 8);
  oct(0, 108, 8);
  oct(0, 116, 8);
  oct(size, 124, 12);
  oct(0, 136, 12);
  put(type, 156, 1);
  put(link, 157, 100);
  put("ustar\0", 257, 6);
  put("00", 263, 2);
  h.fill(32, 148, 156);
  const sum = h.reduce((a, b) => a + b, 0);
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148, 8);
  return h;
}

function pad(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(Math.ceil(data.length / 512) * 512);
  out.set(data);
  return out;
}

/** Writes a .tar.xz of `entries` (GNU long names for names over 100 bytes); `cut` drops the end blocks. */
async function tarXz(dir: string, entries: Entry[], cut = false): Promise<string> {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    const data = typeof e.data === "string" || e.data === undefined
      ? new TextEncoder().encode(e.data ?? "")
      : e.data;
    if (e.name.length > 100) {
      const long = new TextEncoder().encode(e.name + "\0");
      parts.push(header("././@LongLink", "L", long.length), pad(long));
    }
    parts.push(
      header(e.name.slice(0, 100), e.type ?? "0", e.type && e.type !== "0" ? 0 : data.length, e.link, e.mode),
      pad(data),
    );
  }
  if (!cut) parts.push(new Uint8Array(1024));
  const tar = join(dir, `a-${crypto.randomUUID()}.tar`);
  writeFileSync(tar, new Uint8Array(await new Blob(parts as BlobPart[]).arrayBuffer()));
  const out = await new Deno.Command("xz", { args: ["-0", tar], stderr: "null" }).output();
  assert.ok(out.success);
  return `${tar}.xz`;
}

async function unpack(entries: Entry[], cut = false): Promise<{ dest: string; error: Error | null }> {
  const dir = mkdtempSync(join(tmpdir(), "untar-test-"));
  const archive = await tarXz(dir, entries, cut);
  const dest = join(dir, "out");
  Deno.mkdirSync(dest);
  try {
    await untarXz(archive, dest, { top: "factorio" });
    return { dest, error: null };
  } catch (e) {
    return { dest, error: e as Error };
  }
}

Deno.test("a well-formed archive unpacks: dirs, files with their exec bit, long names, links inside", async () => {
  const long = "factorio/data/" + "x".repeat(120) + "/info.json";
  // Larger than one write batch, and not a multiple of anything: every byte must land in order.
  const big = new Uint8Array(3 * 1024 * 1024 + 777);
  for (let off = 0; off < big.length; off += 65536) {
    crypto.getRandomValues(big.subarray(off, Math.min(big.length, off + 65536)));
  }
  const { dest, error } = await unpack([
    { name: "factorio/data/core/atlas.bin", data: big },
    { name: "factorio/", type: "5" },
    { name: "factorio/bin/x64/factorio", data: "#!/bin/sh\n", mode: 0o4755 },
    { name: long, data: "{}" },
    { name: "factorio/data/base/info.json", data: '{"version":"2.0.77"}' },
    { name: "factorio/data/alias", type: "2", link: "base" },
    { name: "factorio/data/copy.json", type: "1", link: "factorio/data/base/info.json" },
  ]);
  assert.equal(error, null);
  assert.equal(statSync(join(dest, "factorio/bin/x64/factorio")).mode & 0o7777, 0o755, "setuid is dropped");
  assert.equal(readFileSync(join(dest, long), "utf8"), "{}");
  assert.deepEqual(new Uint8Array(readFileSync(join(dest, "factorio/data/core/atlas.bin"))), big);
  assert.equal(readlinkSync(join(dest, "factorio/data/alias")), "base");
  assert.equal(readFileSync(join(dest, "factorio/data/copy.json"), "utf8"), '{"version":"2.0.77"}');
  rmSync(join(dest, ".."), { recursive: true });
});

Deno.test("archives that break a rule are refused with the reason", async () => {
  const cases: [Entry[], RegExp][] = [
    [[{ name: "factorio/../x", data: "x" }], /path with "\.\."/],
    [[{ name: "/etc/x", data: "x" }], /absolute path/],
    [[{ name: "other/x", data: "x" }], /outside the expected folder factorio\//],
    [[{ name: "factorio/l", type: "2", link: "/etc" }], /link to an absolute path/],
    [[{ name: "factorio/l", type: "2", link: "../.." }], /link leading outside/],
    [
      [{ name: "factorio/a", type: "2", link: "." }, { name: "factorio/b", type: "2", link: "a/.." }],
      /link through another link/,
    ],
    [
      [{ name: "factorio/d", type: "2", link: "sub" }, { name: "factorio/d/x", data: "x" }],
      /writes through a link/,
    ],
    [[{ name: "factorio/h", type: "1", link: "factorio/../../etc/passwd" }], /path with "\.\."/],
    [
      [{ name: "factorio/h", type: "1", link: "factorio/missing" }],
      /hard link to something that is not a file/,
    ],
    [[{ name: "factorio/dev", type: "3" }], /kind a game folder has no use for/],
    [[{ name: "factorio/a", data: "1" }, { name: "factorio/a", data: "2" }], /exists|AlreadyExists/i],
  ];
  for (const [entries, why] of cases) {
    const { dest, error } = await unpack(entries);
    assert.ok(error, `${JSON.stringify(entries)} was accepted`);
    assert.match(error.message, why, JSON.stringify(entries));
    assert.ok(!existsSync(join(dest, "..", "x")) && !existsSync(join(dest, "..", "..", "x")));
    rmSync(join(dest, ".."), { recursive: true });
  }
  const cut = await unpack([{ name: "factorio/a", data: "1" }], true);
  assert.ok(
    cut.error instanceof ArchiveError && /cut off|end marker/.test(cut.error.message),
    String(cut.error),
  );
  rmSync(join(cut.dest, ".."), { recursive: true });
});

Deno.test("the archive page and the checksum list as factorio.com writes them", () => {
  const html =
    `<div><a class="slot-button-inline version-button-stable" href="/download/archive/2.0.77">2.0.77</a>
    <a href="/download/archive/2.1.12" class="slot-button-inline version-button-experimental">2.1.12</a>
    <a href="/download/archive/1.1.110" class="version-button-stable">1.1.110</a>
    <a href="/download/archive/2.0.77">dup</a><a href="/download/archive/">all</a><a href="/other/9.9.9">x</a></div>`;
  assert.deepEqual(parseArchivePage(html), [
    { version: "2.1.12", channel: "experimental" },
    { version: "2.0.77", channel: "stable" },
    { version: "1.1.110", channel: "stable" },
  ]);
  const sums = [
    "c4efc11529f74d37c96933e291e0db73fd9f5aa4738913d9301b24680b3e947f  factorio-headless_linux_2.0.77.tar.xz",
    "0000000000000000000000000000000000000000000000000000000000000001  factorio_linux_2.0.77.tar.xz",
    "ABCDEF0000000000000000000000000000000000000000000000000000000002  factorio_headless_x64_1.1.110.tar.xz",
    "3333333333333333333333333333333333333333333333333333333333333333  factorio-headless_linux_2.1.19.tar.xz",
    "4444444444444444444444444444444444444444444444444444444444444444  factorio-headless_linux-arm64_2.1.19.tar.xz",
  ].join("\r\n");
  assert.equal(
    findChecksum(sums, "2.0.77"),
    "c4efc11529f74d37c96933e291e0db73fd9f5aa4738913d9301b24680b3e947f",
  );
  assert.equal(
    findChecksum(sums, "1.1.110"),
    "abcdef0000000000000000000000000000000000000000000000000000000002",
  );
  assert.equal(findChecksum(sums, "2.0.7"), null);
  assert.equal(findChecksum(sums, "2.1.12"), null);
  // The native ARM64 build has a line of its own; the x64 one is never taken for it, nor the other way round.
  assert.equal(findChecksum(sums, "2.1.19"), "3".repeat(64));
  assert.equal(findChecksum(sums, "2.1.19", "arm64"), "4".repeat(64));
  assert.equal(findChecksum(sums, "2.0.77", "arm64"), null);
});

Deno.test("config.ini: [path] is set, every other line kept", () => {
  const text =
    "; version=8\n[path]\nread-data=__PATH__executable__/../../data\nwrite-data=__PATH__executable__/../..\n\n[other]\n; check-updates=true\n";
  const want = { "read-data": "__PATH__executable__/../../data", "write-data": "/srv/factorio" };
  const next = setIniValues(text, "path", want);
  assert.equal(next, text.replace("write-data=__PATH__executable__/../..", "write-data=/srv/factorio"));
  assert.equal(setIniValues(next, "path", want), next);
  assert.equal(
    setIniValues("", "path", want),
    "[path]\nwrite-data=/srv/factorio\nread-data=__PATH__executable__/../../data\n\n",
  );
  assert.equal(
    setIniValues("[other]\nx=1\n", "path", want),
    "[path]\nwrite-data=/srv/factorio\nread-data=__PATH__executable__/../../data\n\n[other]\nx=1\n",
  );
});

Deno.test("a download that stops sending is given up, and leaves no file", async () => {
  const fake = startFakeFactorioCom({ cacheDir: TARBALL_CACHE });
  const dir = mkdtempSync(join(tmpdir(), "download-test-"));
  try {
    fake.setMode("2.0.77", "stall");
    const file = join(dir, "a.tar.xz");
    const got = await download(`${fake.url}/get-download/2.0.77/headless/linux64`, file, {
      spaceNeeded: () => 0,
      stallMs: 500,
    })
      .then(() => null, (e) => e as Error);
    assert.ok(got instanceof DownloadError, String(got));
    assert.match(got.message, /sent nothing for 1 s/);
    assert.ok(!existsSync(file));
    // The same download, whole, hashes to what the site lists.
    fake.setMode("2.0.77", "ok");
    const ok = await download(`${fake.url}/get-download/2.0.77/headless/linux64`, file, {
      spaceNeeded: () => 0,
      stallMs: 500,
    });
    assert.equal(ok.sha256, (await fake.tarball("2.0.77")).sha256);
  } finally {
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
