// The README against the program: its options table is `npm start -- --help`'s list, row for row (flag,
// argument, variable, default, text), and every `deno run` recipe in it runs from the panel's folder in a
// shell that has only the system's PATH (Deno is the npm-installed one, in node_modules/.bin).

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT } from "../../scripts/launcher.mjs";

interface OptionRow {
  flag: string;
  variable: string;
  default: string;
  text: string;
}

const README = readFileSync(join(ROOT, "README.md"), "utf8");

/** The options of `--help`: "  --flag ARG", its text, "env VAR, default D" (--help itself has no env line). */
function helpOptions(help: string): OptionRow[] {
  const lines = help.split("\n");
  const rows: OptionRow[] = [];
  lines.forEach((line, i) => {
    const flag = /^ {2}(--\S+(?: \S+)?)$/.exec(line);
    const env = /^ {6}env (\S+), default (.*)$/.exec(lines[i + 2] ?? "");
    if (flag && env) {
      rows.push({ flag: flag[1], variable: env[1], default: env[2], text: lines[i + 1].trim() });
    }
  });
  return rows;
}

/** The rows of the README's table "| Flag | Variable | Default | What it is |", backticks taken off. */
function readmeOptions(): OptionRow[] {
  const lines = README.split("\n");
  const start = lines.findIndex((l) => l.startsWith("| Flag | Variable | Default | What it is |"));
  assert.ok(start >= 0, "the README has its options table");
  const rows: OptionRow[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith("|")) break;
    const cells = line.slice(1, -1).split(" | ").map((c) => c.trim());
    assert.equal(cells.length, 4, `four cells: ${line}`);
    const plain = (c: string) => c.replace(/^`(.*)`$/, "$1");
    rows.push({ flag: plain(cells[0]), variable: plain(cells[1]), default: plain(cells[2]), text: cells[3] });
  }
  return rows;
}

Deno.test("README: the options table is npm start -- --help's list", async () => {
  const out = await new Deno.Command("npm", {
    args: ["start", "--silent", "--", "--help"],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  })
    .output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const help = helpOptions(new TextDecoder().decode(out.stdout));
  assert.ok(help.length > 40, `--help lists the options (${help.length} found)`);
  assert.deepEqual(readmeOptions(), help);
});

/** Inline code spans that run Deno (a span may wrap over lines). */
function denoRecipes(): string[] {
  const prose = README.replace(/^```[^]*?^```$/gm, "");
  return [...prose.matchAll(/`([^`]+)`/g)].map((m) => m[1].replace(/\s+/g, " ").trim()).filter((c) =>
    /(^|\/)deno run /.test(c)
  );
}

Deno.test("README: every deno run recipe runs from the panel's folder without Deno on the PATH", async () => {
  const recipes = denoRecipes();
  assert.ok(recipes.length > 0, "the README has deno run recipes");
  for (const recipe of recipes) {
    // Each recipe starts a double that prints one JSON line with its URL once it listens.
    const child = new Deno.Command("sh", {
      args: ["-c", `exec ${recipe}`],
      cwd: ROOT,
      env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: Deno.env.get("HOME") ?? "/root" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    while (!out.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      out += value;
    }
    const errors = new Response(child.stderr).text();
    if (!out.includes("\n")) {
      const status = await child.status;
      assert.fail(`${recipe}\nexited with ${status.code} before printing its URL:\n${await errors}`);
    }
    child.kill("SIGTERM");
    await child.status;
    await reader.cancel();
    await errors;
    assert.match(JSON.parse(out.split("\n")[0]).url, /^http:\/\/127\.0\.0\.1:\d+$/, recipe);
  }
});
