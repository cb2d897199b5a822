// Size of the PWA: the JS the browser needs for the first paint (index.html's entry script and its
// modulepreloads, gzip -9 like a compressing server or CDN would send) and the whole build.
//   node bench/bundle.mjs   (after npm run build)

import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ROOT } from "./lib.mjs";

const dist = join(ROOT, "pwa", "dist");
const html = readFileSync(join(dist, "index.html"), "utf8");
const initial = [...html.matchAll(/(?:src|href)="\/?(assets\/[^"]+\.js)"/g)].map((m) => m[1]);
let raw = 0;
let gz = 0;
for (const file of new Set(initial)) {
  const bytes = readFileSync(join(dist, file));
  raw += bytes.length;
  gz += gzipSync(bytes, { level: 9 }).length;
}
function walk(dir) {
  return readdirSync(dir).flatMap((
    n,
  ) => (statSync(join(dir, n)).isDirectory() ? walk(join(dir, n)) : [join(dir, n)]));
}
const all = walk(dist);
const allJs = all.filter((f) => f.endsWith(".js"));
const total = all.reduce((n, f) => n + statSync(f).size, 0);
const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
console.log(`initial JS (${initial.length} files): ${kb(raw)} raw, ${kb(gz)} gzip`);
console.log(
  `whole build: ${all.length} files, ${kb(total)}; all JS ${
    kb(allJs.reduce((n, f) => n + statSync(f).size, 0))
  }`,
);
