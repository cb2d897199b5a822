// A process's resident memory while something runs: read with ps every 50 ms (the way bench/ measures
// the panel), so a test can say an action left the panel's memory bounded. No timing is asserted.

/** Resident memory of `pid` in bytes, as ps reports it. */
export async function rssOf(pid: number): Promise<number> {
  const out = await new Deno.Command("ps", {
    args: ["-o", "rss=", "-p", String(pid)],
    stdout: "piped",
    stderr: "null",
  }).output();
  return Number(new TextDecoder().decode(out.stdout).trim()) * 1024;
}

/** Runs `fn` while sampling `pid`'s resident memory; the value, the memory before and the highest seen. */
export async function peakRss<T>(
  pid: number,
  fn: () => Promise<T>,
): Promise<{ value: T; baseline: number; peak: number }> {
  const baseline = await rssOf(pid);
  let peak = baseline;
  let running = true;
  const sampler = (async () => {
    while (running) {
      peak = Math.max(peak, await rssOf(pid));
      await new Promise((r) => setTimeout(r, 50));
    }
  })();
  try {
    const value = await fn();
    return { value, baseline, peak: Math.max(peak, await rssOf(pid)) };
  } finally {
    running = false;
    await sampler;
  }
}
