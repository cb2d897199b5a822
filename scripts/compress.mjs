// Writes a brotli (.br) and a gzip (.gz) copy beside every text file of the built web app, once at build
// time, so the panel serves compressed bytes without compressing on each request (backend/http/static.ts
// picks the copy the browser takes). Node built-ins only.

import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { extname, join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const TEXT = new Set([".html", ".js", ".mjs", ".css", ".json", ".webmanifest", ".svg", ".txt"]);
/** Below this a compressed copy saves less than the extra header costs. */
const MIN_BYTES = 1024;

/** Compresses the text files under `dir`; returns { files, bytes, br, gz } totals. */
export function compressDir(dir) {
  const total = { files: 0, bytes: 0, br: 0, gz: 0 };
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const st = statSync(path);
      if (st.isDirectory()) walk(path);
      else if (TEXT.has(extname(name)) && st.size >= MIN_BYTES) {
        const data = readFileSync(path);
        const br = brotliCompressSync(data, {
          params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: data.length },
        });
        const gz = gzipSync(data, { level: 9 });
        // Same mtime as the file: the server serves a copy only when it is not older than its file.
        for (const [ext, bytes] of [[".br", br], [".gz", gz]]) {
          writeFileSync(path + ext, bytes);
          utimesSync(path + ext, st.atime, st.mtime);
        }
        total.files++;
        total.bytes += data.length;
        total.br += br.length;
        total.gz += gz.length;
      }
    }
  };
  walk(dir);
  return total;
}
