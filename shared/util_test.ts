import assert from "node:assert/strict";
import { BoundedMap, formatBytes, idleTimeout, retryAfterMs, within } from "./util.ts";

Deno.test("BoundedMap keeps at most its limit, dropping the least recently used", () => {
  const m = new BoundedMap<string, number>(3);
  m.set("a", 1).set("b", 2).set("c", 3);
  assert.equal(m.get("a"), 1); // a is now the most recent
  m.set("d", 4);
  assert.deepEqual([...m.keys()], ["c", "a", "d"]);
  for (let i = 0; i < 1000; i++) m.set(`k${i}`, i);
  assert.equal(m.size, 3);
});

Deno.test("small helpers: Retry-After, sizes, within, an inactivity signal", async () => {
  assert.equal(retryAfterMs("120"), 120_000);
  assert.equal(retryAfterMs(new Date(Date.now() + 5000).toUTCString(), Date.now())! > 3000, true);
  assert.equal(retryAfterMs("soon"), null);
  assert.equal(formatBytes(1536), "1.5 KiB");
  assert.equal(await within(new Promise(() => {}), 10), "timeout");
  // Touched often, it never fires, however long it lives; left alone, it does.
  const idle = idleTimeout(1000);
  for (let i = 0; i < 6; i++) {
    await new Promise((r) => setTimeout(r, 50));
    idle.touch();
  }
  assert.equal(idle.signal.aborted, false, "touched in time");
  await new Promise((resolve) => idle.signal.addEventListener("abort", resolve));
  assert.equal(idle.signal.aborted, true);
  idle.clear();
});
