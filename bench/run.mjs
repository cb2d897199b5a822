// `npm run bench`: every benchmark script in bench/, one after the other.
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./lib.mjs";

const skip = new Set(["lib.mjs", "run.mjs"]);
for (
  const name of readdirSync(join(ROOT, "bench")).filter((n) => n.endsWith(".mjs") && !skip.has(n)).sort()
) {
  console.log(`\n== ${name}`);
  spawnSync(process.execPath, [join(ROOT, "bench", name)], { cwd: ROOT, stdio: "inherit" });
}
