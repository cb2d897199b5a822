// The fake mod portal as a process, for e2e tests, the benchmark and trying the Mods page by hand:
//   npm run fake-portal -- [--extra-mods N] [--port P]
// Prints one line of JSON with the URLs once it listens, e.g.
//   {"url":"http://127.0.0.1:41234","cdnUrl":"http://127.0.0.1:41235","mods":13}
// Start the panel with --mod-portal-url <url> --auth-url <url>; log in as engineer / "correct horse battery".

import { startFakePortal } from "./server.ts";

function arg(name: string): string | undefined {
  const i = Deno.args.indexOf(`--${name}`);
  return i >= 0 ? Deno.args[i + 1] : undefined;
}

const portal = await startFakePortal({
  extraMods: Number(arg("extra-mods") ?? 0),
  port: Number(arg("port") ?? 0),
});
console.log(JSON.stringify({ url: portal.url, cdnUrl: portal.cdnUrl, mods: portal.mods.length }));
const stop = async () => {
  await portal.close();
  Deno.exit(0);
};
Deno.addSignalListener("SIGTERM", stop);
Deno.addSignalListener("SIGINT", stop);
