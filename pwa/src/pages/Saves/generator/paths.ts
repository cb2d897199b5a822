// Reading and writing one value deep inside the settings objects, without changing the original.

export type Obj = Record<string, unknown>;

export function getIn(o: unknown, path: string[]): unknown {
  let v: unknown = o;
  for (const k of path) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Obj)[k];
  }
  return v;
}

export function setIn<T extends Obj>(o: T, path: string[], value: unknown): T {
  if (path.length === 0) return value as T;
  const [k, ...rest] = path;
  const child = (typeof o[k] === "object" && o[k] !== null ? o[k] : {}) as Obj;
  const next = { ...o } as Obj;
  if (rest.length === 0) {
    if (value === undefined) delete next[k];
    else next[k] = value;
  } else next[k] = setIn(child, rest, value);
  return next as T;
}

/** "iron-ore" and "vulcanus_coal" as "Iron ore" and "Vulcanus coal". */
export function label(name: string): string {
  const words = name.replace(/[-_]/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
}
