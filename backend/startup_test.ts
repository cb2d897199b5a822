import assert from "node:assert/strict";
import { panelUrls, startupLines } from "./startup.ts";

const lan = [
  { family: "IPv4", address: "127.0.0.1", internal: true },
  { family: "IPv6", address: "fe80::1", internal: false },
  { family: "IPv4", address: "192.168.1.20", internal: false },
  { family: "IPv4", address: "10.0.0.5", internal: false },
];
const base = {
  scheme: "http" as const,
  bind: "0.0.0.0",
  port: 8080,
  interfaces: lan,
  factorioDir: "/opt/factorio",
  factorioBinary: "/opt/factorio/bin/x64/factorio",
  binaryFound: true,
};

Deno.test("bound to every address: localhost and each IPv4 LAN address, never loopback or link-local v6", () => {
  assert.deepEqual(panelUrls(base), {
    local: "http://localhost:8080",
    lan: ["http://192.168.1.20:8080", "http://10.0.0.5:8080"],
  });
});

Deno.test("bound to one address: only that one", () => {
  assert.deepEqual(panelUrls({ ...base, bind: "192.168.1.20" }), { local: "http://192.168.1.20:8080", lan: [] });
  assert.deepEqual(panelUrls({ ...base, bind: "::1" }), { local: "http://[::1]:8080", lan: [] });
});

Deno.test("plain HTTP says phones need HTTPS; HTTPS does not", () => {
  const http = startupLines(base).join("\n");
  assert.match(http, /On your network: http:\/\/192\.168\.1\.20:8080, http:\/\/10\.0\.0\.5:8080/);
  assert.match(http, /Phones need HTTPS/);
  assert.doesNotMatch(startupLines({ ...base, scheme: "https" }).join("\n"), /Phones need HTTPS/);
});

Deno.test("a missing game names the directory and what to do", () => {
  assert.doesNotMatch(startupLines(base).join("\n"), /No Factorio/);
  const text = startupLines({ ...base, binaryFound: false }).join("\n");
  assert.match(text, /No Factorio found in \/opt\/factorio \(looked for \/opt\/factorio\/bin\/x64\/factorio\)/);
  assert.match(text, /factorio\.com\/download/);
  assert.match(text, /--factorio-dir/);
});
