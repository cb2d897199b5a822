// POSIX paths, as node:path does them on Linux, without node:path.
//
// Why not node:path: under Deno, the first `node:` module (other than node:sqlite) brings in the Node
// compatibility layer, which costs the panel about 15-45 ms at start and 4-10 MiB of memory for as long
// as it runs. The modules loaded at start use this file and backend/fs.ts instead (docs/architecture.md,
// "Start-up"). The panel runs on Linux (the headless game is Linux-only), so only "/" is a separator.
// path_test.ts checks every function against node:path on many inputs.

export const sep = "/";

/** The segments of `path` with ".", "" and ".." applied; ".." that climbs above a relative start is kept. */
function segments(path: string, absolute: boolean): string[] {
  const out: string[] = [];
  for (const s of path.split("/")) {
    if (s === "" || s === ".") continue;
    if (s === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!absolute) out.push("..");
    } else out.push(s);
  }
  return out;
}

export function isAbsolute(path: string): boolean {
  return path.startsWith("/");
}

export function normalize(path: string): string {
  if (path === "") return ".";
  const absolute = isAbsolute(path);
  let out = segments(path, absolute).join("/");
  if (out === "" && !absolute) out = ".";
  if (out !== "" && path.endsWith("/")) out += "/";
  return absolute ? "/" + out : out;
}

export function join(...parts: string[]): string {
  const joined = parts.filter((p) => p !== "").join("/");
  return joined === "" ? "." : normalize(joined);
}

/** An absolute path: `parts` applied right to left until one is absolute, then the working directory. */
export function resolve(...parts: string[]): string {
  let path = "";
  for (let i = parts.length - 1; i >= 0 && !isAbsolute(path); i--) {
    if (parts[i] !== "") path = path === "" ? parts[i] : `${parts[i]}/${path}`;
  }
  if (!isAbsolute(path)) path = path === "" ? Deno.cwd() : `${Deno.cwd()}/${path}`;
  return "/" + segments(path, true).join("/");
}

/** The path from `from` to `to` (both resolved first); "" when they are the same. */
export function relative(from: string, to: string): string {
  const a = segments(resolve(from), true);
  const b = segments(resolve(to), true);
  let common = 0;
  while (common < a.length && common < b.length && a[common] === b[common]) common++;
  return [...a.slice(common).map(() => ".."), ...b.slice(common)].join("/");
}

/** `path` without trailing slashes (the root stays "/"). */
function trimEnd(path: string): string {
  let end = path.length;
  while (end > 1 && path[end - 1] === "/") end--;
  return path.slice(0, end);
}

/** Everything before the last name; like node:path, slashes doubled before that name are kept. */
export function dirname(path: string): string {
  if (path === "") return ".";
  const p = trimEnd(path);
  const cut = p.lastIndexOf("/");
  if (cut <= 0) return cut === 0 || path.startsWith("/") ? "/" : ".";
  if (cut === 1 && p.startsWith("/")) return "//";
  return p.slice(0, cut);
}

export function basename(path: string): string {
  const p = trimEnd(path);
  return p === "/" ? "" : p.slice(p.lastIndexOf("/") + 1);
}

export function extname(path: string): string {
  const base = basename(path);
  const i = base.lastIndexOf(".");
  if (i <= 0 || base === "..") return "";
  return base.slice(i);
}
