// The fake factorio.com as a process, for e2e tests, the benchmark and trying the install by hand:
//   deno run --allow-net --allow-read --allow-write --allow-env --allow-run --allow-sys \
//     tests/fake-factorio-com/main.ts [--port P] [--cache-dir DIR] [--padding-mb N] [--slow-bps N]
//     [--releases 2.0.76:stable,2.1.12:experimental]
// Prints one line of JSON once it listens: {"url":"http://127.0.0.1:41234"}. Start the panel with
// --factorio-com-url <url>. POST <url>/_fake/release?version=&channel= publishes a release,
// POST <url>/_fake/mode?version=&mode= sets a failure mode (see server.ts).

import { join } from "node:path";
import { tmpdir } from "node:os";
import { type Channel, type Release, startFakeFactorioCom } from "./server.ts";

function arg(name: string): string | undefined {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}

const releases: Release[] | undefined = arg("releases")?.split(",").map((pair) => {
  const [version, channel] = pair.split(":");
  return { version, channel: (channel ?? "stable") as Channel };
});
const fake = startFakeFactorioCom({
  port: Number(arg("port") ?? 0),
  cacheDir: arg("cache-dir") ?? join(tmpdir(), "fake-factorio-com-cache"),
  paddingBytes: Number(arg("padding-mb") ?? 0) * 1024 * 1024,
  slowBytesPerSecond: arg("slow-bps") ? Number(arg("slow-bps")) : undefined,
  releases,
});
console.log(JSON.stringify({ url: fake.url }));
const stop = async () => {
  await fake.close();
  Deno.exit(0);
};
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
