// Decoding and encoding a 1 MB mod-settings.dat with many mods (the real files of tests/fixtures, their
// settings copied under other mod names until the file passes 1 MB), median of N runs each. The reference,
// measured in the same run: JSON.parse and JSON.stringify of the same settings as JSON text.
//   node bench/modsettings.mjs [runs]
// It runs itself under Deno (the codec is TypeScript).

import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { DENO, PANEL_PERMISSIONS, ROOT } from "./lib.mjs";

if (typeof Deno === "undefined") {
  const r = spawnSync(DENO, [
    "run",
    ...PANEL_PERMISSIONS,
    fileURLToPath(import.meta.url),
    ...process.argv.slice(2),
  ], { cwd: ROOT, stdio: "inherit" });
  process.exit(r.status ?? 1);
}

const { readFileSync } = await import("node:fs");
const { join } = await import("node:path");
const { decodeModSettings, encodeModSettings } = await import(
  "../backend/factorio/modsettings/propertytree.ts"
);
const { treeToJson } = await import("../backend/factorio/modsettings/values.ts");

const runs = Number(Deno.args[0] ?? 30);
const files = [
  "mod-settings.dat",
  "mod-settings/factorio-1.1.110.mod-settings.dat",
  "mod-settings/factorio-2.0.55.mod-settings.dat",
]
  .map((f) => decodeModSettings(readFileSync(join(ROOT, "tests/fixtures", f))));

// One file: the 2.0 header, every section filled with the three files' settings under "copyN-" names.
const big = structuredClone(files[2]);
let copy = 0;
while (encodeModSettings(big).length < 1024 * 1024) {
  copy++;
  for (const f of files) {
    for (const [i, section] of f.tree.entries.entries()) {
      for (const s of section.value.entries) {
        big.tree.entries[i].value.entries.push({ key: `copy${copy}-${s.key}`, value: s.value });
      }
    }
  }
}
const bytes = encodeModSettings(big);
const settings = big.tree.entries.reduce((n, s) => n + s.value.entries.length, 0);
const json = JSON.stringify(treeToJson(big.tree));

const median = (fn) => {
  for (let i = 0; i < 3; i++) fn();
  const t = [];
  for (let i = 0; i < runs; i++) {
    const s = performance.now();
    fn();
    t.push(performance.now() - s);
  }
  return t.sort((a, b) => a - b)[Math.floor(t.length / 2)];
};

const decoded = decodeModSettings(bytes);
const same = encodeModSettings(decoded).every((b, i) => b === bytes[i]);
const decode = median(() => decodeModSettings(bytes));
const encode = median(() => encodeModSettings(decoded));
const parsed = JSON.parse(json);
const jsonParse = median(() => JSON.parse(json));
const jsonStringify = median(() => JSON.stringify(parsed));

console.log(
  `mod-settings.dat of ${
    (bytes.length / 1024 / 1024).toFixed(2)
  } MiB, ${settings} settings (${copy} copies of three real files); round trip byte-identical: ${same}`,
);
console.log(
  `decode: ${decode.toFixed(2)} ms median of ${runs}  | JSON.parse of the same settings (${
    (json.length / 1024 / 1024).toFixed(2)
  } MiB of JSON): ${jsonParse.toFixed(2)} ms  | ratio ${(decode / jsonParse).toFixed(2)}`,
);
console.log(
  `encode: ${encode.toFixed(2)} ms median of ${runs}  | JSON.stringify of the same settings: ${
    jsonStringify.toFixed(2)
  } ms  | ratio ${(encode / jsonStringify).toFixed(2)}`,
);
