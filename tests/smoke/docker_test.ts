// The Docker image, checked without Docker (this machine has no engine): the Dockerfile read instruction by
// instruction. A build stage makes the web app; the image that runs has production dependencies only, runs
// as a user that is not root and owns the data, and starts the launcher `npm start` runs. Then the files
// the final stage copies are laid out as the image has them, and the launcher must start the panel there.

import assert from "node:assert/strict";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { loadConfig } from "../../backend/boot/config.ts";
import { ROOT } from "../../scripts/launcher.mjs";

interface Instruction {
  op: string;
  /** The arguments as written (continuation lines joined). */
  text: string;
}

interface Stage {
  name: string | null;
  instructions: Instruction[];
}

/** The Dockerfile's stages, each with its instructions (comments and line continuations resolved). */
function readDockerfile(): Stage[] {
  const lines = readFileSync(join(ROOT, "Dockerfile"), "utf8").split("\n").filter((l) => !/^\s*#/.test(l));
  const stages: Stage[] = [];
  for (const line of lines.join("\n").replace(/\\\n/g, " ").split("\n")) {
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!m) continue;
    const [op, text] = [m[1].toUpperCase(), m[2].trim()];
    if (op === "FROM") stages.push({ name: /\bAS\s+(\S+)/i.exec(text)?.[1] ?? null, instructions: [] });
    assert.ok(stages.length, `${op} before the first FROM`);
    stages.at(-1)!.instructions.push({ op, text });
  }
  return stages;
}

const all = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op).map((i) => i.text);
const last = (stage: Stage, op: string) => all(stage, op).at(-1);

/** A COPY's flags, sources and destination (the JSON form is not used here). */
function copyArgs(text: string): { from: string | null; sources: string[]; dest: string } {
  const words = text.split(/\s+/);
  const flags = words.filter((w) => w.startsWith("--"));
  const paths = words.filter((w) => !w.startsWith("--"));
  const from = flags.find((f) => f.startsWith("--from="))?.slice("--from=".length) ?? null;
  return { from, sources: paths.slice(0, -1), dest: paths.at(-1)! };
}

/** The settings the final stage's ENV gives (KEY=value pairs). */
function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const text of all(stage, "ENV")) for (const m of text.matchAll(/(\w+)=(\S+)/g)) env[m[1]] = m[2];
  return env;
}

const stages = readDockerfile();
const final = stages.at(-1)!;
const workdir = (stage: Stage) => last(stage, "WORKDIR") ?? "/";

Deno.test("Dockerfile: a build stage makes the web app; the final stage installs production dependencies only", () => {
  assert.ok(stages.length >= 2, "multi-stage: a build stage and the image that runs");
  const build = stages.find((s) =>
    s !== final && all(s, "RUN").some((r) => /\bnode scripts\/build\.mjs\b/.test(r))
  );
  assert.ok(build?.name, "a named stage runs the build (scripts/build.mjs, `npm run build`)");
  assert.ok(
    all(build, "RUN").some((r) => /\bnpm ci\b/.test(r) && !/--omit=dev/.test(r)),
    "the build stage has the dev dependencies",
  );

  const installs = all(final, "RUN").filter((r) => /\bnpm (ci|install|i)\b/.test(r));
  assert.equal(installs.length, 1, "one install in the final stage");
  assert.match(
    installs[0],
    /\bnpm ci\b.*--omit=dev/,
    "production dependencies only, as the lockfile pins them",
  );
  for (const r of all(final, "RUN")) {
    assert.doesNotMatch(
      r,
      /scripts\/build\.mjs|npm run build|\bvite\b|\btsc\b/,
      "nothing built with dev tools",
    );
  }
  const fromBuild = all(final, "COPY").map(copyArgs).filter((c) => c.from !== null);
  assert.deepEqual(
    fromBuild.map((c) => c.from),
    [build.name],
    "only the build's output comes from the build stage",
  );
  assert.deepEqual(fromBuild[0].sources, [posix.join(workdir(build), "pwa/dist")], "the built web app");
});

Deno.test("Dockerfile: runs as a user that is not root, who owns the data and Factorio directories", () => {
  const user = last(final, "USER");
  assert.ok(user, "a USER in the final stage");
  const name = user.split(":")[0];
  assert.notEqual(name, "root");
  assert.notEqual(name, "0");
  // Root's work (installs, ownership) comes before USER: a RUN after it would run as that user.
  const after = final.instructions.slice(final.instructions.findLastIndex((i) => i.op === "USER"));
  assert.ok(
    !after.some((i) => i.op === "RUN"),
    "no RUN after USER",
  );

  const env = envOf(final);
  const dataDir = env.PANEL_DATA_DIR;
  const factorioDir = env.PANEL_FACTORIO_DIR;
  assert.ok(dataDir && factorioDir, "the image sets both directories");
  const runs = all(final, "RUN").join("\n");
  for (const dir of [dataDir, factorioDir]) {
    assert.match(runs, new RegExp(`mkdir -p [^\\n]*${dir}(\\s|$)`), `${dir} is made in the image`);
    const owned = [...runs.matchAll(/chown -R (\S+) ([^&\n]+)/g)].some(([, owner, paths]) =>
      owner.split(":")[0] === name &&
      paths.trim().split(/\s+/).some((p) => dir === p || dir.startsWith(p + "/"))
    );
    assert.ok(owned, `${dir} is owned by ${name}`);
  }
  assert.deepEqual(
    all(final, "VOLUME"),
    [dataDir],
    "the data is the volume (made after it is owned, so a new volume is too)",
  );
  const volumeAt = final.instructions.findIndex((i) => i.op === "VOLUME");
  const chownAt = final.instructions.findIndex((i) => i.op === "RUN" && i.text.includes("chown"));
  assert.ok(chownAt < volumeAt, "ownership set before VOLUME (changes after it are lost)");
});

Deno.test("Dockerfile: the launcher `npm start` runs is the command, under a PID 1 that passes on signals", () => {
  assert.equal(last(final, "ENTRYPOINT"), '["/usr/bin/tini", "--"]', "a PID 1 that passes on SIGTERM");
  assert.equal(
    last(final, "CMD"),
    '["node", "scripts/start.mjs"]',
    "package.json's start script, not npm itself",
  );
  assert.equal(
    JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).scripts.start,
    "node scripts/start.mjs",
  );
  assert.match(
    all(final, "RUN").join("\n"),
    /\bprocps\b/,
    "ps, which the panel uses to check the game's pid",
  );
  assert.deepEqual(
    all(final, "EXPOSE"),
    ["8080/tcp 34197/udp"],
    "the panel and the game, as the README says",
  );
  const env = envOf(final);
  assert.equal(env.PANEL_DATA_DIR, "/data");
  assert.equal(env.PANEL_PORT, "8080");
  assert.equal(env.PANEL_STOP_GAME_ON_EXIT, "true", "in a container the game cannot outlive the panel");
  const result = loadConfig([], env);
  assert.equal(result.kind, "config", "every PANEL_* setting is one the panel accepts");
  if (result.kind === "config") assert.equal(result.config.stopGameOnExit, true);
});

/** The .dockerignore patterns (paths, `*` and `**` globs), as a test of one path. */
function ignoredByDocker(): (path: string) => boolean {
  const patterns = readFileSync(join(ROOT, ".dockerignore"), "utf8").split("\n").map((l) => l.trim());
  const glob = (p: string) =>
    p.split(/(\*\*\/|\*)/).map((part) =>
      part === "**/" ? "(.*/)?" : part === "*" ? "[^/]*" : part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")
    ).join("");
  const regexes = patterns.filter((p) => p && !p.startsWith("#")).map((p) =>
    new RegExp(`^${glob(p)}(/.*)?$`)
  );
  return (path) => regexes.some((r) => r.test(path));
}

Deno.test("Dockerfile: every file the final stage copies from the repository exists and is sent to the build", () => {
  const ignored = ignoredByDocker();
  const copies = all(final, "COPY").map(copyArgs).filter((c) => c.from === null);
  assert.ok(copies.length > 0);
  for (const { sources } of copies) {
    for (const source of sources) {
      assert.ok(existsSync(join(ROOT, source)), `${source} is in the repository`);
      assert.ok(!ignored(source), `${source} is not left out by .dockerignore`);
    }
  }
  // The build stage copies the whole context; what the app's build reads must not be left out.
  for (
    const path of [
      "pwa/src/main.tsx",
      "pwa/vite.config.ts",
      "shared/api.ts",
      "scripts/build.mjs",
      "tests/fake-factorio/data/server-settings.example.json",
    ]
  ) {
    assert.ok(!ignored(path), `${path} reaches the build stage`);
  }
});

Deno.test("the files the final stage copies are enough: the launcher starts the panel from them, the app's sources absent", async () => {
  const dir = mkdtempSync(join(tmpdir(), "panel-image-"));
  const app = join(dir, "app");
  const built = stages.find((s) => s.name && all(final, "COPY").some((c) => copyArgs(c).from === s.name))!;
  try {
    for (const { from, sources, dest } of all(final, "COPY").map(copyArgs)) {
      for (const source of sources) {
        // A path of the build stage is the same path of this checkout, built (npm test builds the app first).
        const path = from ? posix.relative(workdir(built), source) : source;
        const target = dest.endsWith("/") ? join(app, dest, posix.basename(path)) : join(app, dest);
        cpSync(join(ROOT, path), target, { recursive: true, preserveTimestamps: true });
      }
    }
    // What `npm ci --omit=dev` makes. This checkout's node_modules also has the dev dependencies: that the
    // production ones are enough is checked by the bundle starting below only as far as the backend goes.
    symlinkSync(join(ROOT, "node_modules"), join(app, "node_modules"));
    const installed = statSync(join(app, "node_modules", ".package-lock.json")).mtimeMs;
    assert.ok(
      installed >= statSync(join(app, "package-lock.json")).mtimeMs,
      "installed after the lockfile was copied, as in the image",
    );
    // Docker's COPY makes pwa/ when it copies pwa/dist into it, after the build stage wrote the files: the
    // folder is newer than the built app. An app whose sources changed after its build is built again;
    // one without sources must not be (there are none, and no build tools).
    assert.ok(!existsSync(join(app, "pwa", "src")));
    const later = new Date(statSync(join(app, "pwa", "dist", "index.html")).mtimeMs + 60_000);
    utimesSync(join(app, "pwa"), later, later);
    mkdirSync(join(dir, "data"));

    const panel = new Deno.Command("node", {
      args: [
        "scripts/start.mjs",
        "--port",
        "0",
        "--bind",
        "127.0.0.1",
        "--data-dir",
        join(dir, "data"),
        "--factorio-dir",
        join(dir, "factorio"),
      ],
      cwd: app,
      env: { NO_COLOR: "1", PANEL_ADMIN_PASSWORD: "image-password" },
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    let out = "";
    const decoder = new TextDecoder();
    const reading = Promise.all([panel.stdout, panel.stderr].map(async (s) => {
      for await (const chunk of s) out += decoder.decode(chunk, { stream: true });
    }));
    let exited = false;
    panel.status.then(() => (exited = true));
    try {
      let url: string | undefined;
      while (!(url = /listening on (\S+)/.exec(out)?.[1])) {
        assert.ok(!exited, `the panel exited:\n${out}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.doesNotMatch(out, /Building the web app/);
      const page = await fetch(url.replace("localhost", "127.0.0.1") + "/login");
      assert.equal(page.status, 200);
      assert.match(await page.text(), /<div id="root">/);
    } finally {
      if (!exited) panel.kill("SIGTERM");
      await panel.status;
      await reading;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
