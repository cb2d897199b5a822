// The test ports (sim.ts): each one given once across test processes, outside the kernel's ephemeral
// range, and a claim left by a process that has ended is taken over.

import assert from "node:assert/strict";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { claimPort, claimRange, CLAIMS, freeTcpPort, freeUdpPort } from "./sim.ts";

Deno.test("test ports are distinct, outside the ephemeral range, and claimed by this process", async () => {
  const [lo, hi] = claimRange();
  const range = new Deno.Command("cat", { args: ["/proc/sys/net/ipv4/ip_local_port_range"], stdout: "piped" })
    .outputSync();
  const [eLo, eHi] = new TextDecoder().decode(range.stdout).trim().split(/\s+/).map(Number);
  assert.ok(hi < eLo || lo > eHi, `${lo}-${hi} against ${eLo}-${eHi}`);
  const ports = [];
  for (let i = 0; i < 50; i++) ports.push(await freeTcpPort(), await freeUdpPort());
  assert.equal(new Set(ports).size, ports.length);
  for (const port of ports) {
    assert.ok(port >= lo && port <= hi, String(port));
    assert.equal(readFileSync(join(CLAIMS, String(port)), "utf8"), String(Deno.pid));
  }
});

Deno.test("a port claimed by a living process is refused; one whose process ended is taken over", async () => {
  const port = await freeTcpPort(); // claimed by this process
  const file = join(CLAIMS, String(port));
  try {
    const ended = new Deno.Command("sh", { args: ["-c", "echo $$"], stdout: "piped" }).outputSync();
    const deadPid = new TextDecoder().decode(ended.stdout).trim();
    writeFileSync(file, deadPid);
    assert.equal(claimPort(port), true);
    assert.equal(readFileSync(file, "utf8"), String(Deno.pid));
    writeFileSync(file, "1"); // init: alive
    assert.equal(claimPort(port), false);
    assert.equal(readFileSync(file, "utf8"), "1");
  } finally {
    rmSync(file, { force: true });
  }
});
