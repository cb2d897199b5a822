import assert from "node:assert/strict";
import { join } from "./path.ts";
import { clearInterval, clearTimeout, setInterval, setTimeout } from "./timers.ts";
import { DENO, PANEL_PERMISSIONS, ROOT } from "../scripts/launcher.mjs";

const tick = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

Deno.test("a timeout runs once, in order of its delay; a cleared one never runs", async () => {
  const seen: string[] = [];
  setTimeout(() => seen.push("later"), 30);
  setTimeout(() => seen.push("sooner"));
  const cleared = setTimeout(() => seen.push("cleared"), 10);
  assert.equal(cleared.pending, true);
  clearTimeout(cleared);
  assert.equal(cleared.pending, false);
  clearTimeout(undefined);
  await tick(60);
  assert.deepEqual(seen, ["sooner", "later"]);
});

Deno.test("an interval repeats until cleared, also from inside its callback", async () => {
  let runs = 0;
  const done = Promise.withResolvers<void>();
  const timer = setInterval(() => {
    runs++;
    if (runs === 3) {
      clearInterval(timer);
      done.resolve();
    }
  }, 1);
  await done.promise;
  await tick(20);
  assert.equal(runs, 3);
  assert.equal(timer.pending, false);
});

Deno.test("an interval of 0 runs again and again, and stops when cleared", async () => {
  let runs = 0;
  const timer = setInterval(() => runs++, 0);
  // Microtasks and a resolved promise run before any timer; the interval has not run yet.
  await Promise.resolve();
  assert.equal(runs, 0);
  await tick(20);
  clearInterval(timer);
  const after = runs;
  assert.ok(after > 0);
  await tick(20);
  assert.equal(runs, after);
});

/** Runs `code` (importing the timers as `t`) in a child process with the panel's permissions. */
async function child(code: string): Promise<{ ok: boolean; out: string; err: string }> {
  const dir = Deno.makeTempDirSync({ prefix: "panel-timers-" });
  try {
    const file = join(dir, "script.ts");
    Deno.writeTextFileSync(file, `import * as t from ${JSON.stringify(new URL("./timers.ts", import.meta.url).href)};\n${code}`);
    const out = await new Deno.Command(DENO, {
      args: ["run", ...PANEL_PERMISSIONS, "--no-prompt", "--config", join(ROOT, "deno.json"), file],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder();
    return { ok: out.success, out: text.decode(out.stdout), err: text.decode(out.stderr) };
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("an armed timer keeps the process alive until it runs; a cleared one does not hold it", async () => {
  const armed = await child(`t.setTimeout(() => console.log("ran"), 50); console.log("end of script");`);
  assert.ok(armed.ok, armed.err);
  assert.equal(armed.out, "end of script\nran\n");
  // A cleared hour-long timeout and interval: the process ends at once instead of in an hour. (Were the
  // timers still holding it, this test would not finish.)
  const cleared = await child(
    `const a = t.setTimeout(() => console.log("ran"), 3_600_000); const b = t.setInterval(() => console.log("ran"), 3_600_000);
     t.clearTimeout(a); t.clearInterval(b); console.log("cleared");`,
  );
  assert.ok(cleared.ok, cleared.err);
  assert.equal(cleared.out, "cleared\n");
});

Deno.test("a callback that throws is reported like a global timer's: the process ends with the error", async () => {
  const thrown = await child(`t.setTimeout(() => { throw new Error("boom in a timer"); }, 1); t.setTimeout(() => console.log("after"), 200);`);
  assert.equal(thrown.ok, false);
  assert.match(thrown.err, /boom in a timer/);
});

Deno.test("backend modules use these timers, not the globals (which load Node's timers)", () => {
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const e of Deno.readDirSync(dir)) {
      const path = join(dir, e.name);
      if (e.isDirectory) {
        if (e.name !== "testing") walk(path);
        continue;
      }
      if (!e.name.endsWith(".ts") || e.name.endsWith("_test.ts") || e.name === "timers.ts") continue;
      const text = Deno.readTextFileSync(path);
      const uses = /\b(setTimeout|setInterval)\s*\(/.test(text);
      if (uses && !/import \{[^}]*\b(setTimeout|setInterval)\b[^}]*\} from "[./]*timers\.ts";/.test(text)) {
        offenders.push(path.slice(ROOT.length + 1));
      }
    }
  };
  walk(join(ROOT, "backend"));
  assert.deepEqual(offenders, []);
});
