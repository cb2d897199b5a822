// Setting definitions from a mod's settings.lua, read without running Lua. Most mods declare their settings
// as literal tables in `data:extend({ {type = "bool-setting", name = "...", ...}, ... })`; this reader
// tokenizes the file, finds those calls and evaluates only literal values (strings, numbers, booleans, nil,
// tables, unary minus). Anything computed (a variable, a concatenation, a loop) is "unknown": a field that
// is unknown is left out, and an entry whose type, name or setting_type is unknown is skipped, so the
// panel never shows a guess. `require("a.b")` calls with a literal name are reported, so the caller can
// read those files of the mod too.

import type { ModSettingDefinition, ModSettingKind, ModSettingSection } from "../../../shared/modsettings.ts";

export class LuaReadError extends Error {}

const UNKNOWN = Symbol("unknown");
type LuaValue = string | number | boolean | null | LuaTable | typeof UNKNOWN;
interface LuaTable {
  fields: Map<string | number, LuaValue>;
}

type Token = { kind: "name" | "string" | "number" | "op"; text: string; value?: string | number };

const MAX_TOKENS = 2_000_000;

export function tokenize(src: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  const longBracket = (at: number): number => {
    // "[", then "=" * n, then "[" -> level n; -1 when not a long bracket
    if (src[at] !== "[") return -1;
    let j = at + 1;
    while (src[j] === "=") j++;
    return src[j] === "[" ? j - at - 1 : -1;
  };
  const readLong = (at: number, level: number): { text: string; end: number } => {
    const open = at + level + 2;
    const close = "]" + "=".repeat(level) + "]";
    const end = src.indexOf(close, open);
    if (end < 0) throw new LuaReadError("unfinished long string or comment");
    let text = src.slice(open, end);
    if (text.startsWith("\r\n")) text = text.slice(2);
    else if (text.startsWith("\n")) text = text.slice(1);
    return { text, end: end + close.length };
  };
  while (i < src.length) {
    if (out.length > MAX_TOKENS) throw new LuaReadError("the file is too long");
    const ch = src[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (src.startsWith("--", i)) {
      const level = longBracket(i + 2);
      if (level >= 0) i = readLong(i + 2, level).end;
      else {
        const nl = src.indexOf("\n", i);
        i = nl < 0 ? src.length : nl + 1;
      }
      continue;
    }
    if (/[A-Za-z_]/.test(ch)) {
      const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(i, i + 256))!;
      out.push({ kind: "name", text: m[0] });
      i += m[0].length;
      continue;
    }
    if (/[0-9]/.test(ch) || (ch === "." && /[0-9]/.test(src[i + 1] ?? ""))) {
      const m = /^(0[xX][0-9a-fA-F]+|(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?)/.exec(src.slice(i, i + 64))!;
      out.push({ kind: "number", text: m[0], value: Number(m[0]) });
      i += m[0].length;
      continue;
    }
    if (ch === '"' || ch === "'") {
      let j = i + 1;
      let text = "";
      while (j < src.length && src[j] !== ch) {
        if (src[j] === "\n") throw new LuaReadError("unfinished string");
        if (src[j] === "\\") {
          const e = src[j + 1];
          const simple: Record<string, string> = {
            n: "\n",
            t: "\t",
            r: "\r",
            "\\": "\\",
            '"': '"',
            "'": "'",
            "\n": "\n",
            a: "\x07",
            b: "\b",
            f: "\f",
            v: "\v",
          };
          if (e in simple) {
            text += simple[e];
            j += 2;
          } else if (/[0-9]/.test(e)) {
            const m = /^[0-9]{1,3}/.exec(src.slice(j + 1))!;
            text += String.fromCharCode(Number(m[0]));
            j += 1 + m[0].length;
          } else {
            text += e ?? "";
            j += 2;
          }
          continue;
        }
        text += src[j++];
      }
      if (j >= src.length) throw new LuaReadError("unfinished string");
      out.push({ kind: "string", text, value: text });
      i = j + 1;
      continue;
    }
    const level = longBracket(i);
    if (level >= 0) {
      const { text, end } = readLong(i, level);
      out.push({ kind: "string", text, value: text });
      i = end;
      continue;
    }
    const op = ["...", "..", "==", "~=", "<=", ">=", "::", "//"].find((o) => src.startsWith(o, i)) ?? ch;
    out.push({ kind: "op", text: op });
    i += op.length;
  }
  return out;
}

class Parser {
  pos = 0;
  constructor(private readonly t: Token[]) {}
  peek(o = 0): Token | undefined {
    return this.t[this.pos + o];
  }
  isOp(text: string, o = 0): boolean {
    const k = this.peek(o);
    return k?.kind === "op" && k.text === text;
  }
  /** Skips one expression we do not evaluate: up to a , ; or closing bracket at depth 0. */
  skipExpression(): void {
    let depth = 0;
    while (this.pos < this.t.length) {
      const k = this.t[this.pos];
      if (k.kind === "op") {
        if ("({[".includes(k.text)) depth++;
        else if (")}]".includes(k.text)) {
          if (depth === 0) return;
          depth--;
        } else if ((k.text === "," || k.text === ";") && depth === 0) return;
      }
      this.pos++;
    }
  }
  /** An expression: a literal value, or UNKNOWN (skipped) when it is anything else. */
  expression(): LuaValue {
    const start = this.pos;
    const v = this.simple();
    const next = this.peek();
    // A literal followed by an operator (.., +, or a call) is computed: unknown.
    if (v !== UNKNOWN && next && !(next.kind === "op" && [",", ";", "}", ")", "]"].includes(next.text))) {
      this.pos = start;
      this.skipExpression();
      return UNKNOWN;
    }
    if (v === UNKNOWN) {
      this.pos = start;
      this.skipExpression();
    }
    return v;
  }
  simple(): LuaValue {
    const k = this.peek();
    if (!k) return UNKNOWN;
    if (k.kind === "string" || k.kind === "number") {
      this.pos++;
      return k.value!;
    }
    if (k.kind === "name" && (k.text === "true" || k.text === "false" || k.text === "nil")) {
      this.pos++;
      return k.text === "nil" ? null : k.text === "true";
    }
    if (k.kind === "op" && k.text === "-" && this.peek(1)?.kind === "number") {
      this.pos += 2;
      return -(this.t[this.pos - 1].value as number);
    }
    if (k.kind === "op" && k.text === "{") return this.table();
    return UNKNOWN;
  }
  table(): LuaTable {
    this.pos++; // {
    const fields = new Map<string | number, LuaValue>();
    let index = 1;
    while (this.pos < this.t.length && !this.isOp("}")) {
      const k = this.peek()!;
      if (k.kind === "name" && this.isOp("=", 1)) {
        this.pos += 2;
        fields.set(k.text, this.expression());
      } else if (this.isOp("[")) {
        this.pos++;
        const key = this.expression();
        if (!this.isOp("]")) throw new LuaReadError("expected ]");
        this.pos++;
        if (!this.isOp("=")) throw new LuaReadError("expected =");
        this.pos++;
        const value = this.expression();
        if (typeof key === "string" || typeof key === "number") fields.set(key, value);
      } else {
        fields.set(index++, this.expression());
      }
      if (this.isOp(",") || this.isOp(";")) this.pos++;
      else if (!this.isOp("}")) {
        throw new LuaReadError(`unexpected ${this.peek()?.text ?? "end of file"} in a table`);
      }
    }
    if (!this.isOp("}")) throw new LuaReadError("unfinished table");
    this.pos++;
    return { fields };
  }
}

const KINDS: Record<string, ModSettingKind> = {
  "bool-setting": "bool",
  "int-setting": "int",
  "double-setting": "double",
  "string-setting": "string",
  "color-setting": "color",
};
const SECTIONS: ModSettingSection[] = ["startup", "runtime-global", "runtime-per-user"];

function items(t: LuaTable): LuaValue[] {
  const out: LuaValue[] = [];
  for (let i = 1; t.fields.has(i); i++) out.push(t.fields.get(i)!);
  return out;
}

function plain(v: LuaValue): unknown {
  if (v === UNKNOWN) return undefined;
  if (v === null || typeof v !== "object") return v;
  const list = items(v);
  if (list.length === v.fields.size) return list.map(plain);
  const o: Record<string, unknown> = {};
  for (const [k, x] of v.fields) if (x !== UNKNOWN) o[String(k)] = plain(x);
  return o;
}

function definition(mod: string, t: LuaTable): ModSettingDefinition | null {
  const type = t.fields.get("type");
  const name = t.fields.get("name");
  const section = t.fields.get("setting_type");
  if (typeof type !== "string" || !(type in KINDS) || typeof name !== "string") return null;
  if (typeof section !== "string" || !SECTIONS.includes(section as ModSettingSection)) return null;
  const num = (key: string) => {
    const v = t.fields.get(key);
    return typeof v === "number" ? v : undefined;
  };
  const def: ModSettingDefinition = {
    mod,
    name,
    setting_type: section as ModSettingSection,
    type: KINDS[type],
  };
  const dflt = plain(t.fields.get("default_value") ?? UNKNOWN);
  if (dflt !== undefined && dflt !== null) def.default = dflt;
  if (num("minimum_value") !== undefined) def.minimum = num("minimum_value");
  if (num("maximum_value") !== undefined) def.maximum = num("maximum_value");
  const allowed = t.fields.get("allowed_values");
  if (allowed && typeof allowed === "object") {
    const list = items(allowed);
    if (list.length > 0 && list.every((x) => typeof x === "string" || typeof x === "number")) {
      def.allowed_values = list as (string | number)[];
    }
  }
  for (const key of ["allow_blank", "auto_trim", "hidden"] as const) {
    const v = t.fields.get(key);
    if (typeof v === "boolean") def[key] = v;
  }
  const order = t.fields.get("order");
  if (typeof order === "string") def.order = order;
  return def;
}

export interface SettingsLua {
  definitions: ModSettingDefinition[];
  /** Literal module names of `require(...)` calls, e.g. "prototypes.settings". */
  requires: string[];
}

/** Reads the literal setting definitions of one Lua file of `mod`. Throws LuaReadError on a file it cannot tokenize. */
export function readSettingsLua(mod: string, src: string): SettingsLua {
  const tokens = tokenize(src);
  const p = new Parser(tokens);
  const definitions: ModSettingDefinition[] = [];
  const requires: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const k = tokens[i];
    if (k.kind === "name" && k.text === "require") {
      const a = tokens[i + 1];
      const b = tokens[i + 2];
      if (a?.kind === "string") requires.push(a.text);
      else if (a?.kind === "op" && a.text === "(" && b?.kind === "string") requires.push(b.text);
      continue;
    }
    if (
      !(k.kind === "name" && k.text === "data" && tokens[i + 1]?.text === ":" &&
        tokens[i + 2]?.text === "extend")
    ) continue;
    let at = i + 3;
    if (tokens[at]?.kind === "op" && tokens[at].text === "(") at++;
    if (!(tokens[at]?.kind === "op" && tokens[at].text === "{")) continue;
    p.pos = at;
    let list: LuaTable;
    try {
      list = p.table();
    } catch (e) {
      if (e instanceof LuaReadError) continue; // one odd call does not hide the others
      throw e;
    }
    for (const entry of items(list)) {
      if (entry && typeof entry === "object") {
        const def = definition(mod, entry);
        if (def) definitions.push(def);
      }
    }
    i = p.pos - 1;
  }
  return { definitions, requires };
}

/** `[mod-setting-name]` and `[mod-setting-description]` of a locale .cfg file. */
export function readLocaleCfg(
  src: string,
): { names: Map<string, string>; descriptions: Map<string, string> } {
  const names = new Map<string, string>();
  const descriptions = new Map<string, string>();
  let section = "";
  for (const raw of src.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith(";") || line.startsWith("#")) continue;
    const s = /^\[([^\]]+)\]$/.exec(line);
    if (s) {
      section = s[1];
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim().replaceAll("\\n", "\n");
    if (section === "mod-setting-name") names.set(key, value);
    else if (section === "mod-setting-description") descriptions.set(key, value);
  }
  return { names, descriptions };
}
