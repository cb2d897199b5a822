// Editing a JSON file that people also edit by hand (server-settings.json) without reformatting it: the
// new text keeps the original bytes of every value that did not change, the key order, the blank lines
// and the layout (inline lists, spacing around colons). Only changed values are rewritten, and keys the
// file did not have are appended at the end of their object.

type Node =
  | { kind: "object"; start: number; end: number; members: Member[] }
  | { kind: "array"; start: number; end: number; items: Node[] }
  | { kind: "scalar"; start: number; end: number };

interface Member {
  key: string;
  keyStart: number;
  value: Node;
}

/** Source spans of a JSON text that JSON.parse already accepted. */
function parseSpans(text: string): Node {
  let i = 0;
  const ws = () => {
    while (i < text.length && " \t\n\r".includes(text[i])) i++;
  };
  const string = (): string => {
    const start = i;
    i++; // opening quote
    while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): Node => {
    ws();
    const start = i;
    const c = text[i];
    if (c === "{") {
      i++;
      const members: Member[] = [];
      ws();
      if (text[i] === "}") {
        i++;
        return { kind: "object", start, end: i, members };
      }
      while (true) {
        ws();
        const keyStart = i;
        const key = string();
        ws();
        i++; // colon
        members.push({ key, keyStart, value: value() });
        ws();
        if (text[i++] === "}") return { kind: "object", start, end: i, members };
      }
    }
    if (c === "[") {
      i++;
      const items: Node[] = [];
      ws();
      if (text[i] === "]") {
        i++;
        return { kind: "array", start, end: i, items };
      }
      while (true) {
        items.push(value());
        ws();
        if (text[i++] === "]") return { kind: "array", start, end: i, items };
      }
    }
    if (c === '"') {
      string();
      return { kind: "scalar", start, end: i };
    }
    while (i < text.length && !",]} \t\n\r".includes(text[i])) i++;
    return { kind: "scalar", start, end: i };
  };
  return value();
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The leading whitespace of the line `pos` is on. */
function indentAt(text: string, pos: number): string {
  const lineStart = text.lastIndexOf("\n", pos - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** A value written fresh, at `indent`: lists of plain values inline (as the game's example writes tags). */
function fresh(value: unknown, indent: string): string {
  if (Array.isArray(value) && value.every((v) => v === null || typeof v !== "object")) {
    return `[${value.map((v) => JSON.stringify(v)).join(", ")}]`;
  }
  return JSON.stringify(value, null, 2).replaceAll("\n", "\n" + indent);
}

function render(text: string, node: Node, before: unknown, after: unknown): string {
  const original = text.slice(node.start, node.end);
  if (same(before, after)) return original;
  const indent = indentAt(text, node.start);
  if (node.kind === "object" && isPlainObject(before) && isPlainObject(after)) {
    const keys = node.members.map((m) => m.key);
    const unique = new Set(keys).size === keys.length;
    const kept = keys.every((k) => k in after);
    if (unique && kept && node.members.length > 0) {
      let out = "";
      let pos = node.start;
      for (const m of node.members) {
        out += text.slice(pos, m.value.start) + render(text, m.value, before[m.key], after[m.key]);
        pos = m.value.end;
      }
      const last = node.members[node.members.length - 1];
      const memberIndent = indentAt(text, last.keyStart);
      const added = Object.keys(after).filter((k) => !keys.includes(k));
      for (const key of added) {
        out += `,\n${memberIndent}${JSON.stringify(key)}: ${fresh(after[key], memberIndent)}`;
      }
      return out + text.slice(pos, node.end);
    }
  }
  if (
    node.kind === "array" && Array.isArray(before) && Array.isArray(after) && before.length === after.length
  ) {
    let out = "";
    let pos = node.start;
    node.items.forEach((item, n) => {
      out += text.slice(pos, item.start) + render(text, item, before[n], after[n]);
      pos = item.end;
    });
    return out + text.slice(pos, node.end);
  }
  return fresh(after, indent);
}

/**
 * The text of `next` written over `text` (a JSON document) with the least change. `next` must be the
 * parsed document with some values replaced and possibly keys appended; anything else (a key removed, a
 * reordering) still gives a correct document, written fresh where needed. The result always parses to
 * exactly `next`, key order included.
 */
export function updateJsonText(text: string, next: unknown): string {
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const body = bom ? text.slice(1) : text;
  let out: string;
  try {
    const before = JSON.parse(body);
    const root = parseSpans(body);
    out = body.slice(0, root.start) + render(body, root, before, next) + body.slice(root.end);
    if (JSON.stringify(JSON.parse(out)) !== JSON.stringify(next)) throw new Error("edit did not round-trip");
  } catch {
    out = JSON.stringify(next, null, 2) + "\n";
  }
  return bom + out;
}
