// Ports of servers against real sockets: a port another server has, a port a program holds (bound here,
// as another program would), the next free ones from 34197 and 27015, and the server being changed.

import assert from "node:assert/strict";
import type dgram from "node:dgram";
import { checkPorts, nextFreePorts } from "./ports.ts";
import { Conflict, HttpError, Invalid } from "../lib/errors.ts";
import { FIRST_GAME_PORT, FIRST_RCON_PORT, SERVERS_MSG } from "../../shared/servers.ts";
import { freeTcpPort, freeUdpPort, holdUdpPort } from "../../tests/support/game.ts";

async function refusal(p: Promise<unknown>): Promise<HttpError> {
  const e = await p.then(() => null, (e) => e);
  assert.ok(e instanceof HttpError, `refused with an HttpError, got ${e}`);
  return e;
}

function udpClose(s: dgram.Socket): Promise<void> {
  return new Promise((done) => s.close(() => done()));
}

Deno.test("nextFreePorts: from 34197 and 27015, past other servers' ports and ports programs hold", async () => {
  const taken = [
    { name: "Main", port: FIRST_GAME_PORT, rconPort: FIRST_RCON_PORT },
    { name: "Space Age", port: FIRST_GAME_PORT + 1, rconPort: FIRST_RCON_PORT + 1 },
  ];
  const first = await nextFreePorts(taken);
  assert.ok(first.port >= FIRST_GAME_PORT + 2, `game port ${first.port} is past the servers' ones`);
  assert.ok(first.rconPort >= FIRST_RCON_PORT + 2, `RCON port ${first.rconPort} is past the servers' ones`);
  assert.notEqual(first.port, first.rconPort);

  // Held by a program (here, this test): the next call offers others.
  const udp = await holdUdpPort(first.port);
  const tcp = Deno.listen({ hostname: "127.0.0.1", port: first.rconPort });
  try {
    const next = await nextFreePorts(taken);
    assert.ok(next.port > first.port, `${next.port} comes after the held ${first.port}`);
    assert.ok(next.rconPort > first.rconPort, `${next.rconPort} comes after the held ${first.rconPort}`);
  } finally {
    await udpClose(udp);
    tcp.close();
  }
});

Deno.test("checkPorts: a port another program holds is refused, naming the program", async () => {
  const port = await freeUdpPort();
  const rconPort = await freeTcpPort();
  assert.deepEqual(await checkPorts(port, rconPort, []), { port, rconPort }, "free ports pass");

  const udp = await holdUdpPort(port);
  try {
    const e = await refusal(checkPorts(port, rconPort, []));
    assert.ok(e instanceof Conflict);
    assert.equal(e.status, 409);
    // ss names this test's own process (it lists the processes of the user it runs as).
    assert.equal(e.message, SERVERS_MSG.portHeld(port, `deno, pid ${Deno.pid}`));
  } finally {
    await udpClose(udp);
  }

  const tcp = Deno.listen({ hostname: "127.0.0.1", port: rconPort });
  try {
    const e = await refusal(checkPorts(port, rconPort, []));
    assert.equal(e.status, 409);
    assert.equal(e.message, SERVERS_MSG.portHeld(rconPort, `deno, pid ${Deno.pid}`));
  } finally {
    tcp.close();
  }
});

Deno.test("checkPorts: two servers never share a port; the server being changed keeps its own", async () => {
  const [a, b, c, d] = [await freeUdpPort(), await freeTcpPort(), await freeUdpPort(), await freeTcpPort()];
  const others = [{ id: 2, name: "Space Age", port: a, rconPort: b }];
  for (const [port, rcon, clash] of [[a, d, a], [c, b, b], [b, d, b], [c, a, a]]) {
    const e = await refusal(checkPorts(port, rcon, others));
    assert.equal(e.status, 409);
    assert.equal(e.message, SERVERS_MSG.portOfServer(clash, "Space Age"));
  }

  // Server 2 running: its game holds its ports. Changing server 2 itself does not refuse them.
  const udp = await holdUdpPort(a);
  const tcp = Deno.listen({ hostname: "127.0.0.1", port: b });
  try {
    assert.deepEqual(await checkPorts(a, b, others, { exceptId: 2 }), { port: a, rconPort: b });
    // A new RCON port for it is still tried on the machine.
    assert.deepEqual(await checkPorts(a, d, others, { exceptId: 2 }), { port: a, rconPort: d });
    assert.equal((await refusal(checkPorts(a, b, others, { exceptId: 3 }))).status, 409);
  } finally {
    await udpClose(udp);
    tcp.close();
  }
});

Deno.test("checkPorts: a port outside 1..65535, not a whole number, or the same twice is a 400", async () => {
  const ok = await freeTcpPort();
  for (const bad of [0, -1, 65536, 34197.5, "34197", null, undefined]) {
    const e = await refusal(checkPorts(bad, ok, []));
    assert.ok(e instanceof Invalid, `${bad}`);
    assert.equal(e.message, SERVERS_MSG.portInvalid);
    assert.equal((await refusal(checkPorts(ok, bad, []))).status, 400);
  }
  const e = await refusal(checkPorts(ok, ok, []));
  assert.equal(e.status, 400);
  assert.equal(e.message, SERVERS_MSG.portsEqual);
});
