// What the fake mod portal offers: the real belt-balancer zips of tests/fixtures/mods (0.18 and 1.1), a
// family of small 2.0/2.1 mods built here with dependencies of every kind, a mod whose advertised sha1
// is wrong, and on request thousands of list-only entries (for the search benchmark).

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { zipStream } from "../../backend/lib/zip.ts";

const FIXTURES = resolve(dirname(fileURLToPath(import.meta.url)), "../fixtures/mods");

export interface FakeRelease {
  version: string;
  factorio_version: string;
  dependencies: string[];
  /** Download id, the last part of /download/<name>/<id>. */
  id: string;
  file_name: string;
  released_at: string;
  bytes: Uint8Array;
  /** What the portal advertises (normally the real sha1 of `bytes`). */
  sha1: string;
}

export interface FakeMod {
  name: string;
  title: string;
  owner: string;
  summary: string;
  downloads_count: number;
  releases: FakeRelease[];
}

/** A list-only entry (no details, no downloads). */
export interface ListEntry {
  name: string;
  title: string;
  owner: string;
  summary: string;
  downloads_count: number;
}

function sha1(bytes: Uint8Array): string {
  return createHash("sha1").update(bytes).digest("hex");
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * A mod zip the way the game packs it: one folder "<name>_<version>/" with info.json inside, and `files`
 * (path inside the mod -> text) beside it.
 */
export async function buildModZip(
  info: Record<string, unknown>,
  files: Record<string, string> = {},
): Promise<Uint8Array> {
  const folder = `${info.name}_${info.version}`;
  const text = (s: string) => new TextEncoder().encode(s);
  return await collect(zipStream([
    { name: `${folder}/info.json`, data: text(JSON.stringify(info, null, 2)), method: "deflate" },
    {
      name: `${folder}/data.lua`,
      data: text(`-- ${info.name} ${info.version}: made by the fake mod portal\n`),
      method: "deflate",
    },
    ...Object.entries(files).map(([name, data]) => ({
      name: `${folder}/${name}`,
      data: text(data),
      method: "deflate" as const,
    })),
  ]));
}

let nextId = 0x5f00;
function downloadId(): string {
  return (nextId++).toString(16).padStart(24, "0");
}

async function generated(
  name: string,
  version: string,
  factorio_version: string,
  dependencies: string[],
  opts: { title?: string; zipName?: string; wrongSha?: boolean } = {},
): Promise<FakeRelease> {
  const bytes = await buildModZip({
    name: opts.zipName ?? name,
    version,
    title: opts.title ?? name,
    author: "Fake Portal",
    factorio_version,
    dependencies,
  });
  return {
    version,
    factorio_version,
    dependencies,
    id: downloadId(),
    file_name: `${name}_${version}.zip`,
    released_at: `2025-0${1 + (nextId % 9)}-1${nextId % 10}T12:00:00.000Z`,
    bytes,
    sha1: opts.wrongSha ? "0".repeat(40) : sha1(bytes),
  };
}

function fixture(
  file: string,
  version: string,
  factorio_version: string,
  dependencies: string[],
  id: string,
  released_at: string,
): FakeRelease {
  const bytes = new Uint8Array(readFileSync(join(FIXTURES, file)));
  return {
    version,
    factorio_version,
    dependencies,
    id,
    file_name: file,
    released_at,
    bytes,
    sha1: sha1(bytes),
  };
}

/** The dependencies of fp-trains: one of each kind the info.json grammar has. */
export const TRAINS_DEPENDENCIES = [
  "base >= 2.0",
  "fp-library >= 1.1.0",
  "~ fp-signals",
  "? fp-optional",
  "(?) fp-hidden",
  "! fp-conflict",
  "+ fp-recommended",
  "space-age",
  "quality >= 2.0",
];

export async function buildCatalog(): Promise<FakeMod[]> {
  const mod = (
    name: string,
    title: string,
    releases: FakeRelease[],
    summary = `${title}: a mod of the fake portal.`,
  ): FakeMod => ({
    name,
    title,
    owner: name === "belt-balancer" ? "knoxfighter" : "fake-author",
    summary,
    downloads_count: 1000 + releases.length,
    releases,
  });
  const lib = "Factorio Panel Library";
  return [
    mod("belt-balancer", "Belt Balancer", [
      fixture(
        "belt-balancer_2.1.3.zip",
        "2.1.3",
        "0.18",
        ["base >= 0.18.0", "(?) boblogistics >= 0.18.0"],
        "5e9f9db4bf9d30000c5303f2",
        "2020-04-21T23:21:13.000Z",
      ),
      fixture(
        "belt-balancer_3.0.0.zip",
        "3.0.0",
        "1.1",
        ["base >= 1.1.0", "(?) boblogistics >= 1.1.0"],
        "5fc1aca2bfe1b005c6943bf1",
        "2020-11-28T00:47:30.000Z",
      ),
    ], "Adds Balancer Parts, that can be put together, to balance all adjusting lanes."),
    mod("fp-library", lib, [
      await generated("fp-library", "0.9.0", "1.1", ["base >= 1.1"], { title: lib }),
      await generated("fp-library", "1.0.0", "2.0", ["base >= 2.0"], { title: lib }),
      await generated("fp-library", "1.1.0", "2.0", ["base >= 2.0"], { title: lib }),
      await generated("fp-library", "1.2.0", "2.1", ["base >= 2.1"], { title: lib }),
    ]),
    mod("fp-signals", "Signal Helper", [
      await generated("fp-signals", "1.0.0", "2.0", ["base"], { title: "Signal Helper" }),
      await generated("fp-signals", "1.0.1", "2.1", ["base"], { title: "Signal Helper" }),
    ]),
    mod("fp-trains", "Train Helper", [
      await generated("fp-trains", "2.0.0", "2.0", TRAINS_DEPENDENCIES, { title: "Train Helper" }),
      await generated("fp-trains", "2.1.0", "2.1", TRAINS_DEPENDENCIES.map((d) => d.replace("2.0", "2.1")), {
        title: "Train Helper",
      }),
    ]),
    ...(await Promise.all(
      ["fp-optional", "fp-hidden", "fp-conflict", "fp-recommended"].map(async (name) =>
        mod(name, name, [
          await generated(name, "1.0.0", "2.0", ["base"]),
          await generated(name, "1.0.1", "2.1", ["base"]),
        ])
      ),
    )),
    mod("fp-needs-missing", "Needs What Is Not There", [
      await generated("fp-needs-missing", "1.0.0", "2.0", ["base", "fp-not-on-portal", "fp-library >= 9.0"]),
    ]),
    mod("fp-bad-sha", "Bad Checksum", [
      await generated("fp-bad-sha", "1.0.0", "2.0", ["base"], { wrongSha: true }),
    ]),
    mod("fp-wrong-name", "Wrong Name Inside", [
      await generated("fp-wrong-name", "1.0.0", "2.0", ["base"], { zipName: "fp-impostor" }),
    ]),
  ];
}

const PREFIXES = [
  "aai",
  "bob",
  "angels",
  "kux",
  "jd",
  "ltn",
  "sc",
  "5dim",
  "py",
  "krastorio",
  "rso",
  "even",
  "squeak",
  "factory",
  "space",
  "quality",
  "rail",
  "robot",
  "helmod",
  "yarm",
];
const WORDS = [
  "logistics",
  "trains",
  "belts",
  "balancer",
  "loaders",
  "inserters",
  "chests",
  "storage",
  "power",
  "solar",
  "nuclear",
  "fusion",
  "turrets",
  "walls",
  "armor",
  "equipment",
  "robots",
  "roboports",
  "signals",
  "stations",
  "planner",
  "calculator",
  "recipes",
  "research",
  "modules",
  "beacons",
  "assemblers",
  "furnaces",
  "mining",
  "drills",
  "oil",
  "fluids",
  "pipes",
  "pumps",
  "barrels",
  "circuits",
  "combinators",
  "lamps",
  "tiles",
  "concrete",
  "landfill",
  "biters",
  "enemies",
  "artillery",
  "rockets",
  "satellites",
  "platforms",
  "asteroids",
  "quality",
  "recycling",
  "distribution",
  "through",
  "overhaul",
  "tweaks",
  "fixes",
  "graphics",
  "sounds",
  "ui",
  "helper",
  "manager",
];

/** `count` list-only entries with plausible names and titles, the same for every run (seeded). */
export function syntheticEntries(count: number): ListEntry[] {
  let seed = 20_000;
  const rnd = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const cap = (w: string) => w[0].toUpperCase() + w.slice(1);
  const out: ListEntry[] = [];
  const seen = new Set<string>();
  while (out.length < count) {
    const parts = [PREFIXES[rnd(PREFIXES.length)], WORDS[rnd(WORDS.length)]];
    if (rnd(3) === 0) parts.push(WORDS[rnd(WORDS.length)]);
    let name = parts.join(rnd(2) ? "-" : "_");
    if (seen.has(name)) name += `-${out.length}`;
    seen.add(name);
    const title = parts.map(cap).join(" ") + (rnd(4) === 0 ? ` ${1 + rnd(5)}` : "");
    out.push({
      name,
      title,
      owner: `author${rnd(900)}`,
      summary: `${title} for Factorio.`,
      downloads_count: rnd(100_000),
    });
  }
  return out;
}
