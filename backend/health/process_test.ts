// CPU and memory of processes whose use the test controls, read under the panel's permissions (deno test runs
// with them): one that does a fixed amount of work and holds 200 MiB, one that sleeps; and a cgroup of the
// test's own where the machine lets it make one.

import assert from "node:assert/strict";
import { cgroupFiles, CpuMeter, parsePsUsage, readCgroup, sampleProcesses } from "./process.ts";
import { DENO } from "../../scripts/launcher.mjs";

const MiB = 1024 * 1024;

/**
 * A Deno child that burns about 2 s of CPU (a fixed amount of work, however busy the machine), fills
 * `mib` MiB, prints "ready" and sleeps; started inside the cgroup directories given, if any.
 */
function worker(mib: number, opts: { work?: number; cgroup?: string[] } = {}) {
  const code = `let h = 0; for (let i = 0; i < ${opts.work ?? 1.6e9}; i++) h = Math.imul(h ^ i, 2654435761);
    const held = new Uint8Array(${mib} * 1024 * 1024).fill(h | 1);
    console.log("ready", held.length); setTimeout(() => {}, 120_000);`;
  const enter = (opts.cgroup ?? []).map((d) => `echo $$ > '${d}/cgroup.procs'`).join("; ");
  const child = new Deno.Command("sh", {
    args: ["-c", `${enter}${enter ? "; " : ""}exec "$0" eval "$1"`, DENO, code],
    stdout: "piped",
    stderr: "inherit",
    stdin: "null",
  }).spawn();
  const ready = (async () => {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes("ready")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`worker ended: ${text}`);
      text += value;
    }
    void reader.cancel().catch(() => {});
  })();
  return { child, ready };
}

async function end(child: Deno.ChildProcess) {
  try {
    child.kill("SIGKILL");
  } catch {
    // gone
  }
  await child.status;
}

Deno.test("ps: CPU time and resident memory of several processes in one call; a gone pid is missing", async () => {
  const busy = worker(200);
  const idle = new Deno.Command("sleep", { args: ["120"], stdout: "null", stderr: "null" }).spawn();
  try {
    await busy.ready;
    const gone = new Deno.Command("true").spawn();
    await gone.status;
    const sample = await sampleProcesses([busy.child.pid, idle.pid, gone.pid]);
    const b = sample.usage.get(busy.child.pid);
    const i = sample.usage.get(idle.pid);
    assert.ok(b && i, JSON.stringify([...sample.usage]));
    assert.ok(b.cpuSeconds >= 1, `the worker burned ~2 s of CPU: ${b.cpuSeconds}`);
    assert.ok(b.rssBytes >= 200 * MiB, `it holds 200 MiB: ${b.rssBytes / MiB} MiB`);
    assert.equal(i.cpuSeconds, 0);
    assert.ok(i.rssBytes > 0 && i.rssBytes < 20 * MiB, `sleep is small: ${i.rssBytes / MiB} MiB`);
    assert.equal(sample.usage.has(gone.pid), false);
    assert.equal(sample.usage.has(Deno.pid), false, "the panel's own row is for comparing cgroups only");
    assert.ok(Math.abs(sample.at - Date.now()) < 60_000);
  } finally {
    await end(busy.child);
    await end(idle);
  }
});

Deno.test("ps lines, with and without a cgroup", () => {
  assert.deepEqual(parsePsUsage("  4242      81 14116 -"), {
    pid: 4242,
    cpuSeconds: 81,
    rssBytes: 14116 * 1024,
    cgroup: "",
  });
  assert.deepEqual(parsePsUsage("28153 0 4236 4:memory:/process_api/a7e1,2:cpuacct:/x"), {
    pid: 28153,
    cpuSeconds: 0,
    rssBytes: 4236 * 1024,
    cgroup: "4:memory:/process_api/a7e1,2:cpuacct:/x",
  });
  assert.equal(parsePsUsage("PID TIME RSS CGROUP"), null);
});

Deno.test("CPU %: over the last minute, within 100/W points for W seconds of readings of whole CPU seconds", () => {
  const m = new CpuMeter();
  assert.deepEqual(m.current(), { state: "unknown" });
  // 45% of a core, read every 10 s as ps gives it (whole seconds, rounded down).
  for (let t = 0; t <= 120_000; t += 10_000) m.add(5000 + t, Math.floor(((t + 3300) / 1000) * 0.45));
  const r = m.current();
  assert.ok(r.state === "measured" && r.settled && r.spanMs === 60_000, JSON.stringify(r));
  if (r.state === "measured") assert.ok(Math.abs(r.percent - 45) <= r.error, JSON.stringify(r));
  // Another process under the pid (its CPU time went back): measured afresh.
  m.add(135_000, 2);
  assert.deepEqual(m.current(), { state: "unknown" });
  m.add(145_000, 3);
  const again = m.current();
  assert.ok(again.state === "measured" && !again.settled && again.percent === 10, JSON.stringify(again));
  // A cgroup's CPU time, to the microsecond: 10 s are enough.
  const exact = new CpuMeter(1e-6);
  exact.add(0, 100.25);
  exact.add(10_000, 104.75);
  const e = exact.current();
  assert.ok(
    e.state === "measured" && e.settled && Math.abs(e.percent - 45) < 1e-9 && e.error < 1e-4,
    JSON.stringify(e),
  );
});

Deno.test("cgroup files: v2 at the given root, v1 in the memory and cpuacct hierarchies", () => {
  assert.deepEqual(cgroupFiles("0::/system.slice/factorio.service"), {
    path: "/system.slice/factorio.service",
    memory: "/sys/fs/cgroup/system.slice/factorio.service/memory.current",
    limit: "/sys/fs/cgroup/system.slice/factorio.service/memory.max",
    cpu: "/sys/fs/cgroup/system.slice/factorio.service/cpu.stat",
    v2: true,
  });
  assert.equal(
    cgroupFiles("0::/")?.memory,
    "/sys/fs/cgroup/memory.current",
    "a container's own namespace: its root",
  );
  assert.deepEqual(cgroupFiles("12:pids:/a,6:cpu,cpuacct:/docker/abc,4:memory:/docker/abc"), {
    path: "/docker/abc",
    memory: "/sys/fs/cgroup/memory/docker/abc/memory.usage_in_bytes",
    limit: "/sys/fs/cgroup/memory/docker/abc/memory.limit_in_bytes",
    cpu: "/sys/fs/cgroup/cpuacct/docker/abc/cpuacct.usage",
    v2: false,
  });
  assert.equal(cgroupFiles(""), null);
  assert.equal(cgroupFiles("8:pids:/x"), null);
});

/**
 * A cgroup the test makes (root, a writable hierarchy: v1 memory and cpuacct, or v2 with the memory
 * controller), through sh: Deno refuses writes under /sys as it refuses reads. Null when it cannot.
 */
async function makeCgroup(
  name: string,
): Promise<
  { dirs: string[]; limit: (bytes: number) => Promise<boolean>; remove: () => Promise<boolean> } | null
> {
  const sh = async (script: string) =>
    (await new Deno.Command("sh", { args: ["-c", script], stdout: "null", stderr: "null" }).output()).success;
  const attempts = [
    {
      dirs: [`/sys/fs/cgroup/memory/${name}`, `/sys/fs/cgroup/cpuacct/${name}`],
      limitFile: "memory.limit_in_bytes",
    },
    { dirs: [`/sys/fs/cgroup/${name}`], limitFile: "memory.max" },
  ];
  for (const a of attempts) {
    // Succeeds once every directory is gone.
    const remove = () => sh(a.dirs.map((d) => `{ ! test -e '${d}' || rmdir '${d}'; }`).join(" && "));
    if (
      await sh(a.dirs.map((d) => `mkdir '${d}'`).join(" && ") + ` && test -e '${a.dirs[0]}/${a.limitFile}'`)
    ) {
      return { dirs: a.dirs, limit: (bytes) => sh(`echo ${bytes} > '${a.dirs[0]}/${a.limitFile}'`), remove };
    }
    await remove();
  }
  return null;
}

const canMakeCgroups = await (async () => {
  const probe = await makeCgroup(`factorio-panel-probe-${Deno.pid}`);
  await probe?.remove();
  return probe !== null;
})();

Deno.test({
  name:
    "cgroup: a game in a cgroup of its own is read from its files: memory in use, its limit, exact CPU time",
  ignore: !canMakeCgroups, // needs root and a writable cgroup hierarchy (not in every container)
  async fn() {
    const group = (await makeCgroup(`factorio-panel-test-${Deno.pid}`))!;
    assert.ok(await group.limit(1024 * MiB));
    const w = worker(100, { work: 2e8, cgroup: group.dirs });
    try {
      await w.ready;
      const sample = await sampleProcesses([w.child.pid]);
      const usage = sample.usage.get(w.child.pid)!;
      assert.match(usage.cgroup, new RegExp(`factorio-panel-test-${Deno.pid}`));
      const cg = await readCgroup(usage, sample.panelCgroup);
      assert.ok(cg, "the cgroup's files were read");
      assert.equal(cg.own, true);
      assert.equal(cg.memoryLimitBytes, 1024 * MiB);
      assert.ok(cg.memoryBytes !== null && cg.memoryBytes >= 100 * MiB, `${cg.memoryBytes! / MiB} MiB`);
      assert.ok(cg.cpuSeconds !== null && cg.cpuSeconds > 0 && cg.cpuSeconds < 60, String(cg.cpuSeconds));
      // The panel's own cgroup is not the game's own.
      const panel = await readCgroup({
        pid: Deno.pid,
        cpuSeconds: 0,
        rssBytes: 0,
        cgroup: sample.panelCgroup,
      }, sample.panelCgroup);
      assert.ok(panel === null || panel.own === false);
    } finally {
      await end(w.child);
      // A cgroup empties a moment after its last process ends.
      for (let i = 0; i < 50 && !await group.remove(); i++) {
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  },
});
