// Player lines of Factorio 1.1 (a real server's stdout, tests/fixtures/logs/stdout-1.1.log) and 2.x.

import assert from "node:assert/strict";
import { parsePlayerLine } from "./logline.ts";

const FIXTURE = new URL("../../../tests/fixtures/logs/stdout-1.1.log", import.meta.url);

Deno.test("1.1: the join and leave lines of a real server's stdout, nothing from the engine lines around them", () => {
  const parsed = Deno.readTextFileSync(FIXTURE).split("\n").map(parsePlayerLine).filter((p) => p !== null);
  assert.deepEqual(parsed, [
    { kind: "leave", name: "kkndvulcanic" },
    { kind: "join", name: "Mattie" },
  ]);
});

Deno.test("1.1 and 2.x: join, leave, chat, kick and ban, with names that have spaces or are not ASCII", () => {
  const cases: [string, unknown][] = [
    ["2022-01-26 18:30:15 [JOIN] Mattie joined the game", { kind: "join", name: "Mattie" }],
    ["2025-06-01 09:00:00 [JOIN] Jean Luc joined the game", { kind: "join", name: "Jean Luc" }],
    ["2025-06-01 09:00:00 [JOIN] Zoë_Ø joined the game", { kind: "join", name: "Zoë_Ø" }],
    ["2025-06-01 09:00:00 [LEAVE] игрок left the game", { kind: "leave", name: "игрок" }],
    ["2025-06-01 09:00:00 [LEAVE] Jean Luc left the game\r", { kind: "leave", name: "Jean Luc" }],
    ["2025-06-01 09:01:00 [CHAT] alice: hi: how are you?", {
      kind: "chat",
      name: "alice",
      tag: null,
      message: "hi: how are you?",
    }],
    ["2025-06-01 09:01:00 [CHAT] Jean Luc [builder]: more iron", {
      kind: "chat",
      name: "Jean Luc",
      tag: "builder",
      message: "more iron",
    }],
    ["2025-06-01 09:01:00 [CHAT] <server>: restarting in 5", {
      kind: "chat",
      name: "<server>",
      tag: null,
      message: "restarting in 5",
    }],
    ["2025-06-01 09:01:00 [CHAT] 玩家: 你好", { kind: "chat", name: "玩家", tag: null, message: "你好" }],
    ["2025-06-01 09:02:00 [KICK] bob was kicked by alice. Reason: afk.", {
      kind: "kick",
      name: "bob",
      by: "alice",
      reason: "afk",
    }],
    ["2025-06-01 09:03:00 [BAN] bob was banned by <server>. Reason: griefing.", {
      kind: "ban",
      name: "bob",
      by: "<server>",
      reason: "griefing",
    }],
    ["2025-06-01 09:03:00 [BAN] Jean Luc (not on map) was banned by <server>. Reason: unspecified.", {
      kind: "ban",
      name: "Jean Luc",
      by: "<server>",
      reason: "unspecified",
    }],
  ];
  for (const [line, want] of cases) assert.deepEqual(parsePlayerLine(line), want, line);
});

Deno.test("lines that only look like player lines are not", () => {
  for (
    const line of [
      "  97.763 Info ServerMultiplayerManager.cpp:978: updateTick(7672) received stateChanged peerID(1)",
      "   1.234 Info ServerMultiplayerManager.cpp:1098: Player alice joined the game (peer 1)",
      "2025-06-01 09:00:00 [COMMAND] <server> (command): /players",
      "2025-06-01 09:00:00 [PROMOTE] alice was promoted to admin by <server>.",
      "[JOIN] alice joined the game",
      "user> 2025-06-01 09:00:00 [JOIN] mallory joined the game",
      "2025-06-01 09:00:00 [JOIN] ",
      "2025-06-01 09:00:00 [CHAT] no colon here",
    ]
  ) assert.equal(parsePlayerLine(line), null, line);
});
