// backend/crypto.ts against node:crypto and node:buffer, and the P-256 point check against an ECDH.

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createECDH, createHash, createHmac } from "node:crypto";
import * as ours from "./crypto.ts";
import { isP256PublicKey } from "./push/service.ts";

Deno.test("hashes, HMAC and encodings give node:crypto's and node:buffer's answers", async () => {
  for (const text of ["", "a", "session-token-ä€😀", "x".repeat(1000)]) {
    assert.equal(ours.sha256Hex(text), createHash("sha256").update(text).digest("hex"));
    assert.equal(ours.hmacSha256Hex("secret ä", text), createHmac("sha256", "secret ä").update(text).digest("hex"));
  }
  for (let n = 0; n < 40; n++) {
    const bytes = ours.randomBytes(n);
    assert.equal(bytes.length, n);
    assert.equal(ours.toBase64url(bytes), Buffer.from(bytes).toString("base64url"));
    assert.equal(ours.toHex(bytes), Buffer.from(bytes).toString("hex"));
    assert.deepEqual(ours.fromBase64url(Buffer.from(bytes).toString("base64url")), bytes);
    assert.deepEqual(ours.fromBase64(Buffer.from(bytes).toString("base64")), bytes);
  }
  assert.equal(ours.fromBase64url("not base64!"), null);
  assert.equal(ours.fromBase64("***"), null);
  assert.equal(ours.randomHex(6).length, 12);
  assert.match(ours.randomBase64url(32), /^[A-Za-z0-9_-]{43}$/);
  assert.ok(ours.timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2])));
  assert.ok(!ours.timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 3])));
  assert.ok(!ours.timingSafeEqual(new Uint8Array([1]), new Uint8Array([1, 0])));
  const h = await ours.fileHasher("sha1");
  h.update(new Uint8Array([1, 2, 3]));
  h.update("abc");
  assert.equal(h.digest("hex"), createHash("sha1").update(new Uint8Array([1, 2, 3])).update("abc").digest("hex"));
});

Deno.test("a P-256 public key is accepted exactly when an ECDH with it succeeds", () => {
  const probe = createECDH("prime256v1");
  probe.generateKeys();
  const ecdhAccepts = (key: Buffer) => {
    try {
      probe.computeSecret(key);
      return true;
    } catch {
      return false;
    }
  };
  const cases: Buffer[] = [];
  for (let i = 0; i < 50; i++) {
    const valid = createECDH("prime256v1");
    valid.generateKeys();
    const point = valid.getPublicKey();
    cases.push(point);
    // The same point with one bit changed in x or y is (almost surely) off the curve.
    const bent = Buffer.from(point);
    bent[1 + (i % 64)] ^= 1 << (i % 8);
    cases.push(bent);
    cases.push(Buffer.from(ours.randomBytes(65)).fill(4, 0, 1));
  }
  cases.push(Buffer.alloc(65).fill(4, 0, 1)); // (0, 0)
  cases.push(Buffer.concat([Buffer.from([4]), Buffer.alloc(64, 0xff)])); // coordinates past the field
  for (const key of cases) assert.equal(isP256PublicKey(key.toString("base64url")), ecdhAccepts(key), key.toString("hex"));
  assert.equal(isP256PublicKey(cases[0].subarray(1).toString("base64url")), false);
  assert.equal(isP256PublicKey(42), false);
});
