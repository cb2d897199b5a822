import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import { fileChunks, ZipError, ZipReader, zipStream } from "./zip.ts";

const TESTDATA = new URL("../../tests/fixtures/", import.meta.url).pathname;

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function withTemp(fn: (dir: string) => Promise<void>) {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), "zip-test-"));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

Deno.test("reads entries of a real Factorio save without reading the whole file", async () => {
  const zip = await ZipReader.open(join(TESTDATA, "saves/test_1_1.zip"));
  try {
    const level = zip.find("level.dat", true);
    assert.ok(level, "level.dat is in the save");
    const prefix = await zip.readPrefix(level, 64);
    assert.equal(prefix.length, 64);
    // 1.1.6 build 4: the version is the first four u16 of the header.
    assert.deepEqual([...prefix.subarray(0, 8)], [1, 0, 1, 0, 6, 0, 4, 0]);
  } finally {
    await zip.close();
  }
});

Deno.test(
  "writes archives that read back, stored and deflated, with known and unknown sizes",
  withTemp(async (dir) => {
    const big = new Uint8Array(300_000).map((_, i) => (i * 7) % 251);
    const file = join(dir, "src.bin");
    writeFileSync(file, big);
    const out = join(dir, "out.zip");
    const archive = zipStream([
      { name: "a.txt", data: new TextEncoder().encode("hello"), size: 5 },
      { name: "dir/b.bin", data: () => fileChunks(file), method: "deflate" },
      { name: "ünïcode.txt", data: new TextEncoder().encode(""), size: 0 },
    ]);
    writeFileSync(out, await collect(archive));
    const zip = await ZipReader.open(out);
    try {
      assert.deepEqual(zip.entries.map((e) => e.name), ["a.txt", "dir/b.bin", "ünïcode.txt"]);
      assert.equal(new TextDecoder().decode(await zip.read(zip.find("a.txt")!, 100)), "hello");
      assert.deepEqual(await zip.read(zip.find("b.bin", true)!, 1_000_000), big);
      assert.equal((await zip.read(zip.find("ünïcode.txt")!, 10)).length, 0);
      await assert.rejects(zip.read(zip.find("dir/b.bin")!, 1000), ZipError);
    } finally {
      await zip.close();
    }
    // A second, independent reader agrees (python's zipfile checks CRCs).
    const py = spawnSync("python3", [
      "-c",
      `import zipfile,sys
z=zipfile.ZipFile(sys.argv[1]); assert z.testzip() is None; print(",".join(z.namelist()))`,
      out,
    ]);
    if (py.status !== null && py.error === undefined) {
      assert.equal(py.status, 0, py.stderr?.toString());
      assert.equal(py.stdout.toString().trim(), "a.txt,dir/b.bin,ünïcode.txt");
    }
  }),
);

Deno.test(
  "hostile and broken files raise ZipError, nothing else",
  withTemp(async (dir) => {
    const real = readFileSync(join(TESTDATA, "mods/belt-balancer_3.0.0.zip"));
    const cases: Record<string, Uint8Array> = {
      empty: new Uint8Array(0),
      tiny: new Uint8Array([0x50, 0x4b]),
      random: crypto.getRandomValues(new Uint8Array(5000)),
      truncatedTail: real.subarray(0, real.length - 10),
      truncatedHalf: real.subarray(0, real.length / 2),
    };
    // A central directory that points far outside the file.
    const lying = new Uint8Array(real);
    const view = new DataView(lying.buffer);
    view.setUint32(lying.length - 22 + 16, 0x7fffffff, true);
    cases.lying = lying;
    for (const [name, bytes] of Object.entries(cases)) {
      const path = join(dir, name + ".zip");
      writeFileSync(path, bytes);
      await assert.rejects(
        async () => {
          const zip = await ZipReader.open(path);
          try {
            for (const e of zip.entries) await zip.read(e, 10_000_000);
          } finally {
            await zip.close();
          }
        },
        ZipError,
        name,
      );
    }
  }),
);
