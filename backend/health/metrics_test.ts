// The exposition text against the format's rules, read back by a reader written here from the format's
// description (https://prometheus.io/docs/instrumenting/exposition_formats/), not from the formatter.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { formatMetrics, type MetricFamily, serverFamilies, type ServerHealth } from "./metrics.ts";

interface Read {
  help: Map<string, string>;
  type: Map<string, string>;
  samples: { name: string; labels: Record<string, string>; value: number }[];
}

/** Reads exposition text, failing on anything the format does not allow. */
function read(text: string): Read {
  assert.ok(text === "" || text.endsWith("\n"), "the last line ends with a line feed");
  const out: Read = { help: new Map(), type: new Map(), samples: [] };
  const finished = new Set<string>(); // families whose lines are over: they may not come back
  let current: string | null = null;
  const enter = (name: string) => {
    if (name === current) return;
    assert.ok(!finished.has(name), `the lines of ${name} are not together`);
    if (current) finished.add(current);
    current = name;
  };
  for (const line of text.split("\n").slice(0, -1)) {
    let m = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
    if (m) {
      enter(m[2]);
      const [, kind, name, rest] = m;
      if (kind === "TYPE") {
        assert.ok(!out.type.has(name), `one TYPE line for ${name}`);
        assert.ok(!out.samples.some((s) => s.name === name), `TYPE before the samples of ${name}`);
        assert.match(rest, /^(counter|gauge|histogram|summary|untyped)$/);
        out.type.set(name, rest);
      } else {
        assert.ok(!out.help.has(name), `one HELP line for ${name}`);
        assert.ok(!rest.replace(/\\[\\n]/g, "").includes("\\"), "HELP escapes only backslash and line feed");
        out.help.set(name, rest.replace(/\\(\\|n)/g, (_, c) => (c === "n" ? "\n" : "\\")));
      }
      continue;
    }
    m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `a sample line: ${JSON.stringify(line)}`);
    enter(m[1]);
    const labels: Record<string, string> = {};
    let rest = m[2] ?? "";
    while (rest !== "") {
      const l = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\[\\"n])*)"(,|$)/.exec(rest);
      assert.ok(l, `labels: ${rest}`);
      assert.ok(!(l[1] in labels), `label ${l[1]} once`);
      labels[l[1]] = l[2].replace(/\\([\\"n])/g, (_, c) => (c === "n" ? "\n" : c));
      rest = rest.slice(l[0].length);
    }
    const value = m[3] === "+Inf" ? Infinity : m[3] === "-Inf" ? -Infinity : Number(m[3]);
    assert.ok(m[3] === "NaN" || !Number.isNaN(value), `a value: ${m[3]}`);
    out.samples.push({ name: m[1], labels, value });
  }
  return out;
}

const game = (server: string, over: Partial<ServerHealth> = {}): ServerHealth => ({
  server,
  up: true,
  paused: false,
  ups: 59.8,
  playersOnline: 3,
  mapAgeSeconds: 397737,
  cpuSecondsTotal: 1234,
  residentMemoryBytes: 1.5e9,
  diskFreeBytes: 5e10,
  ...over,
});

Deno.test("servers' health as metric families: names and units by Prometheus' conventions, a server label, nothing for what is unknown", () => {
  const text = formatMetrics(
    serverFamilies([
      game("1"),
      game("2", {
        up: false,
        paused: false,
        ups: null,
        playersOnline: null,
        mapAgeSeconds: null,
        cpuSecondsTotal: null,
        residentMemoryBytes: null,
      }),
    ]),
  );
  const r = read(text);
  for (const [name, type] of r.type) {
    assert.match(name, /^factorio_/);
    assert.equal(
      type === "counter",
      name.endsWith("_total"),
      `${name}: counters and only counters end in _total`,
    );
    assert.ok(r.help.get(name), `${name} has help`);
  }
  assert.deepEqual([...r.type.keys()], [
    "factorio_server_up",
    "factorio_paused",
    "factorio_ups",
    "factorio_players_online",
    "factorio_map_age_seconds",
    "factorio_process_cpu_seconds_total",
    "factorio_process_resident_memory_bytes",
    "factorio_disk_free_bytes",
  ]);
  const of = (name: string) =>
    r.samples.filter((s) => s.name === name).map((s) => [s.labels.server, s.value]);
  assert.deepEqual(of("factorio_server_up"), [["1", 1], ["2", 0]]);
  assert.deepEqual(of("factorio_ups"), [["1", 59.8]], "a stopped game has no UPS sample, not a 0");
  assert.deepEqual(of("factorio_paused"), [["1", 0]]);
  assert.deepEqual(of("factorio_disk_free_bytes"), [["1", 5e10], ["2", 5e10]]);
  assert.deepEqual(of("factorio_process_cpu_seconds_total"), [["1", 1234]]);
});

Deno.test("escaping: help text, label values with quotes, backslashes, line feeds and any Unicode read back as given", () => {
  const awkward = 'Jean "Luc"\\ \n ünïcødé 🚂 {a=b},c="d"';
  const families: MetricFamily[] = [
    {
      name: "x_total",
      help: 'line one\nback\\slash "quoted"',
      type: "counter",
      samples: [{ labels: { server: awkward, b: "" }, value: 3 }],
    },
    {
      name: "y",
      help: "",
      type: "gauge",
      samples: [{ labels: {}, value: NaN }, { labels: { k: "v" }, value: Infinity }, {
        labels: { k: "w" },
        value: -0.5e-7,
      }],
    },
  ];
  const r = read(formatMetrics(families));
  assert.equal(r.help.get("x_total"), 'line one\nback\\slash "quoted"');
  assert.deepEqual(r.samples[0].labels, { server: awkward, b: "" });
  assert.ok(Number.isNaN(r.samples[1].value));
  assert.equal(r.samples[2].value, Infinity);
  assert.equal(r.samples[3].value, -0.5e-7);
});

Deno.test("one family per name: samples given under one name twice come out together; conflicts and bad names throw", () => {
  const a: MetricFamily = {
    name: "g",
    help: "a gauge",
    type: "gauge",
    samples: [{ labels: { server: "1" }, value: 1 }],
  };
  const b: MetricFamily = { name: "h", help: "another", type: "gauge", samples: [{ labels: {}, value: 2 }] };
  const text = formatMetrics([a, b, { ...a, samples: [{ labels: { server: "2" }, value: 3 }] }]);
  assert.deepEqual(read(text).samples.map((s) => [s.name, s.value]), [["g", 1], ["g", 3], ["h", 2]]);
  assert.equal(text.match(/^# TYPE g /gm)?.length, 1);
  assert.throws(() => formatMetrics([a, { ...a, type: "counter" }]), /both a gauge and a counter/);
  assert.throws(() => formatMetrics([{ ...a, name: "1bad" }]), /not a metric name/);
  assert.throws(() => formatMetrics([{ ...a, name: "bad-name" }]), /not a metric name/);
  assert.throws(
    () => formatMetrics([{ ...a, samples: [{ labels: { "bad-label": "x" }, value: 1 }] }]),
    /not a label name/,
  );
  assert.throws(
    () => formatMetrics([{ ...a, samples: [{ labels: { __name__: "x" }, value: 1 }] }]),
    /not a label name/,
  );
  assert.equal(formatMetrics([]), "");
});

Deno.test("the Grafana dashboard in deploy/ asks only for metrics the panel exposes, each of them", () => {
  const dashboard = readFileSync(new URL("../../deploy/grafana-dashboard.json", import.meta.url), "utf8");
  const used = new Set(dashboard.match(/factorio_[a-z_]+/g));
  const exposed = serverFamilies([]).map((f) => f.name);
  assert.deepEqual([...used].filter((n) => !exposed.includes(n)), []);
  assert.deepEqual(exposed.filter((n) => !used.has(n)), []);
});
