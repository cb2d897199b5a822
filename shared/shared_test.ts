import assert from "node:assert/strict";
import { isIPv4, validateLogin, validateNewUser, validatePasswordChange } from "./validation.ts";
import { parseClientMessage } from "./ws.ts";
import { compareVersionStrings, formatVersion, parseVersion } from "./versions.ts";
import { formatWait, MSG } from "./messages.ts";
import { PANEL_MSG } from "./messages.ts";
import { validateStart } from "./validation.ts";
import { formatUtc } from "./format.ts";

Deno.test("IPv4: dotted quads with octets 0-255 only", () => {
  for (const ok of ["0.0.0.0", "127.0.0.1", "255.255.255.255", "192.168.001.010"]) assert.ok(isIPv4(ok), ok);
  for (
    const bad of ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "a.b.c.d", "1.2.3.-4", " 1.2.3.4", "1..2.3", "::1"]
  ) {
    assert.ok(!isIPv4(bad), bad);
  }
});

Deno.test("form rules give the spec's messages", () => {
  assert.deepEqual(validateLogin({}), { username: MSG.usernameRequired, password: MSG.passwordRequired });
  assert.deepEqual(validateLogin({ username: "a", password: " " }), {});
  assert.deepEqual(
    validateNewUser({ username: "a", email: "e", password: "p", password_confirmation: "q" }),
    {
      password: PANEL_MSG.passwordTooShort,
      password_confirmation: MSG.passwordConfirmationMismatch,
    },
  );
  assert.deepEqual(validatePasswordChange({ new_password: "x" }), {
    new_password: PANEL_MSG.passwordTooShort,
    old_password: MSG.oldPasswordRequired,
    new_password_confirmation: MSG.newPasswordConfirmationRequired,
  });
});

Deno.test("socket messages: only well-formed controls are accepted", () => {
  assert.deepEqual(parseClientMessage('{"room_name":"","controls":{"type":"subscribe","value":"gamelog"}}'), {
    room_name: "",
    controls: { type: "subscribe", value: "gamelog" },
  });
  assert.ok(parseClientMessage('{"controls":{"type":"command","value":"/time"}}'));
  for (
    const bad of [
      "",
      "x",
      "null",
      "[]",
      '{"room_name":"gamelog","message":"x"}',
      '{"controls":{"type":"nope","value":""}}',
      42,
    ]
  ) {
    assert.equal(parseClientMessage(bad), null, String(bad));
  }
});

Deno.test("versions compare numerically with 2 to 4 parts", () => {
  assert.deepEqual(parseVersion("1.1"), [1, 1, 0, 0]);
  assert.deepEqual(parseVersion("2.0.7.79385"), [2, 0, 7, 79385]);
  assert.equal(parseVersion("1.x"), null);
  assert.equal(compareVersionStrings("1.10.0", "1.9.9"), 1);
  assert.equal(compareVersionStrings("2.0", "2.0.0.0"), 0);
  assert.equal(formatVersion([1, 1, 6, 0], 4), "1.1.6.0");
});

Deno.test("waiting times read naturally", () => {
  assert.equal(formatWait(1), "1 second");
  assert.equal(formatWait(58.2), "59 seconds");
  assert.equal(formatWait(59.2), "1 minute");
  assert.equal(formatWait(61), "2 minutes");
  assert.equal(formatWait(900), "15 minutes");
});

Deno.test("the start form: the spec's messages, ports as numbers or their text", () => {
  const ok = { bindip: "0.0.0.0", port: 34197, savefile: "Load Latest" };
  assert.deepEqual(validateStart(ok), {});
  assert.deepEqual(validateStart({ ...ok, port: "34197" }), {});
  assert.deepEqual(validateStart({}), {
    bindip: MSG.ipInvalid,
    port: MSG.portRequired,
    savefile: MSG.saveRequired,
  });
  assert.equal(validateStart({ ...ok, bindip: " 10.0.0.1 " }).bindip, undefined);
  for (const port of [0, -1, 1.5, "", "12a", null]) {
    assert.equal(validateStart({ ...ok, port }).port, MSG.portRequired, String(port));
  }
  assert.equal(validateStart({ ...ok, port: 65536 }).port, PANEL_MSG.portRange);
  assert.equal(validateStart({ ...ok, savefile: "  " }).savefile, MSG.saveRequired);
});

Deno.test("dates in UTC as the spec shows them", () => {
  assert.equal(formatUtc("2026-02-03T04:05:06.789Z"), "2026-02-03 04:05:06");
  assert.equal(formatUtc("2026-02-03T04:05:06+02:00"), "2026-02-03 02:05:06");
  assert.equal(formatUtc(""), "");
  assert.equal(formatUtc("not a date"), "");
});
