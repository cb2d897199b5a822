// backend/fs.ts against node:fs on real files in a temp dir: same answers, same error codes.

import assert from "node:assert/strict";
import * as nodeFs from "node:fs";
import * as fs from "./fs.ts";
import { join } from "./path.ts";
import { DENO, PANEL_PERMISSIONS, ROOT } from "../scripts/launcher.mjs";

function tempDir(): string {
  return Deno.makeTempDirSync({ prefix: "panel-fs-" });
}

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

Deno.test("stat, exists, readdir and read give what node:fs gives", () => {
  const dir = tempDir();
  try {
    Deno.writeTextFileSync(join(dir, "a.zip"), "hello");
    Deno.mkdirSync(join(dir, "sub"));
    Deno.symlinkSync(join(dir, "a.zip"), join(dir, "link"));
    Deno.symlinkSync(join(dir, "gone"), join(dir, "dangling"));
    for (const name of ["a.zip", "sub", "link"]) {
      const ours = fs.statSync(join(dir, name));
      const theirs = nodeFs.statSync(join(dir, name));
      assert.equal(ours.size, theirs.size);
      assert.equal(ours.isFile(), theirs.isFile());
      assert.equal(ours.isDirectory(), theirs.isDirectory());
      assert.equal(ours.ino, theirs.ino);
      assert.equal(ours.mode, theirs.mode);
      assert.equal(Math.floor(ours.mtimeMs), Math.floor(theirs.mtimeMs));
      assert.equal(Math.floor(ours.ctimeMs), Math.floor(theirs.ctimeMs));
    }
    for (const name of ["a.zip", "sub", "link", "dangling", "nothing"]) {
      assert.equal(fs.existsSync(join(dir, name)), nodeFs.existsSync(join(dir, name)), name);
    }
    assert.equal(fs.statSync(join(dir, "nothing"), { throwIfNoEntry: false }), undefined);
    assert.equal(codeOf(() => fs.statSync(join(dir, "nothing"))), "ENOENT");
    assert.equal(codeOf(() => fs.readFileSync(join(dir, "nothing"), "utf8")), "ENOENT");
    assert.equal(fs.readFileSync(join(dir, "a.zip"), "utf8"), "hello");
    assert.deepEqual([...fs.readFileSync(join(dir, "a.zip"))], [...new TextEncoder().encode("hello")]);
    assert.deepEqual(fs.readdirSync(dir).sort(), nodeFs.readdirSync(dir).sort());
    const kinds = (es: { name: string; isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean }[]) =>
      es.map((e) => `${e.name}:${e.isFile()}:${e.isDirectory()}:${e.isSymbolicLink()}`).sort();
    assert.deepEqual(kinds(fs.readdirSync(dir, { withFileTypes: true })), kinds(nodeFs.readdirSync(dir, { withFileTypes: true })));
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("rm and rmSync: force ignores only a missing path; a folder needs recursive", async () => {
  const dir = tempDir();
  try {
    fs.rmSync(join(dir, "nothing"), { force: true });
    await fs.rm(join(dir, "nothing"), { force: true });
    assert.equal(codeOf(() => fs.rmSync(join(dir, "nothing"))), "ENOENT");
    await assert.rejects(fs.rm(join(dir, "nothing")), (e: { code?: string }) => e.code === "ENOENT");
    fs.mkdirSync(join(dir, "a", "b"), { recursive: true });
    fs.writeFileSync(join(dir, "a", "b", "f"), "x", { mode: 0o600 });
    assert.equal(fs.statSync(join(dir, "a", "b", "f")).mode & 0o777, 0o600);
    assert.notEqual(codeOf(() => fs.rmSync(join(dir, "a"))), undefined);
    fs.rmSync(join(dir, "a"), { recursive: true, force: true });
    assert.equal(fs.existsSync(join(dir, "a")), false);
    await fs.mkdir(join(dir, "c"));
    await assert.rejects(fs.mkdir(join(dir, "c")), (e: { code?: string }) => e.code === "EEXIST");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("a file handle's reads at positions do not interleave, even when asked for at once", async () => {
  const dir = tempDir();
  try {
    const bytes = new Uint8Array(1 << 20).map((_, i) => (i * 7) & 0xff);
    Deno.writeFileSync(join(dir, "f"), bytes);
    const fh = await fs.open(join(dir, "f"), "r");
    try {
      assert.equal((await fh.stat()).size, bytes.length);
      const positions = Array.from({ length: 64 }, (_, i) => (i * 9973) % (bytes.length - 4096));
      const reads = positions.map(async (pos) => {
        const buf = new Uint8Array(4096);
        let got = 0;
        while (got < buf.length) {
          const { bytesRead } = await fh.read(buf, got, buf.length - got, pos + got);
          assert.ok(bytesRead > 0);
          got += bytesRead;
        }
        return { pos, buf };
      });
      for (const { pos, buf } of await Promise.all(reads)) assert.deepEqual(buf, bytes.subarray(pos, pos + 4096));
      const tail = new Uint8Array(100);
      assert.equal((await fh.read(tail, 0, 100, bytes.length)).bytesRead, 0);
    } finally {
      await fh.close();
    }
    // "wx" creates, never replaces.
    const w = await fs.open(join(dir, "new"), "wx", 0o600);
    await w.write(new TextEncoder().encode("abcdef"), 2, 3);
    await w.sync();
    await w.close();
    assert.equal(Deno.readTextFileSync(join(dir, "new")), "cde");
    await assert.rejects(fs.open(join(dir, "new"), "wx"), (e: { code?: string }) => e.code === "EEXIST");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("disk space from df matches statfs", async () => {
  const dir = tempDir();
  try {
    const ours = await fs.diskSpace(dir);
    const s = nodeFs.statfsSync(dir);
    assert.equal(ours.size, s.blocks * s.bsize);
    // Other processes write meanwhile: equal within 64 MiB.
    assert.ok(Math.abs(ours.free - s.bavail * s.bsize) < 64 * 1024 * 1024, `${ours.free} against ${s.bavail * s.bsize}`);
    await assert.rejects(fs.diskSpace(join(dir, "missing")), /df could not tell the free space/);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("without df on the PATH, disk space still comes (from statfs)", async () => {
  const dir = tempDir();
  try {
    // In a child process: PATH is the whole process's, and other test files spawn commands meanwhile.
    const script = `import { diskSpace } from ${JSON.stringify(new URL("./fs.ts", import.meta.url).href)};
      console.log(JSON.stringify(await diskSpace(${JSON.stringify(dir)})));`;
    const file = join(dir, "space.ts");
    Deno.writeTextFileSync(file, script);
    const out = await new Deno.Command(DENO, {
      // The panel's permissions and configuration, as it runs.
      args: ["run", ...PANEL_PERMISSIONS, "--no-prompt", "--config", join(ROOT, "deno.json"), file],
      env: { PATH: dir }, // an empty folder: no df to run
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
    const ours = JSON.parse(new TextDecoder().decode(out.stdout));
    const s = nodeFs.statfsSync(dir);
    assert.equal(ours.size, s.blocks * s.bsize);
    assert.ok(Math.abs(ours.free - s.bavail * s.bsize) < 64 * 1024 * 1024);
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
