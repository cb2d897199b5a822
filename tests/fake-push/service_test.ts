// The fake push service must refuse what a real one refuses, or the notifier tests prove nothing.

import assert from "node:assert/strict";
import webpush from "web-push";
import { CA_FILE, FakePushService } from "./service.ts";

const client = Deno.createHttpClient({ caCerts: [Deno.readTextFileSync(CA_FILE)] });

async function send(
  _fake: FakePushService,
  sub: { endpoint: string; keys: { p256dh: string; auth: string } },
  vapid: { publicKey: string; privateKey: string },
  opts: { subject?: string; audience?: string; encoding?: "aes128gcm" | "aesgcm" } = {},
): Promise<number> {
  const details = webpush.generateRequestDetails(sub, JSON.stringify({ hello: "world" }), {
    vapidDetails: { subject: opts.subject ?? "mailto:a@b.c", ...vapid },
    TTL: 60,
    contentEncoding: opts.encoding ?? "aes128gcm",
  });
  const headers = new Headers(Object.entries(details.headers).map(([k, v]) => [k, String(v)]));
  if (opts.audience) {
    const jwt = webpush.getVapidHeaders(
      opts.audience,
      "mailto:a@b.c",
      vapid.publicKey,
      vapid.privateKey,
      "aes128gcm",
    );
    headers.set("Authorization", jwt.Authorization);
  }
  const res = await fetch(details.endpoint, {
    method: "POST",
    headers,
    body: details.body as BodyInit,
    client,
  });
  await res.body?.cancel();
  return res.status;
}

Deno.test("the fake push service decrypts good messages and refuses forged or misaddressed ones", async () => {
  const fake = await FakePushService.start();
  try {
    const vapid = webpush.generateVAPIDKeys();
    const other = webpush.generateVAPIDKeys();
    const sub = fake.subscribe(vapid.publicKey);
    assert.equal(await send(fake, sub, vapid), 201);
    assert.deepEqual(JSON.parse(fake.delivered(sub.id)[0].payload!), { hello: "world" });
    assert.equal(await send(fake, sub, other), 403, "signed with another key");
    assert.equal(
      await send(fake, sub, { publicKey: vapid.publicKey, privateKey: other.privateKey }),
      401,
      "bad signature",
    );
    assert.equal(
      await send(fake, sub, vapid, { audience: "https://elsewhere.example" }),
      401,
      "wrong audience",
    );
    assert.equal(
      await send(fake, sub, vapid, { encoding: "aesgcm" }),
      401,
      "the old aesgcm scheme and its authorization",
    );
    const otherSub = fake.subscribe(vapid.publicKey);
    assert.equal(
      await send(fake, { ...sub, keys: otherSub.keys }, vapid),
      400,
      "encrypted for another browser",
    );
    fake.expire(sub.id);
    assert.equal(await send(fake, sub, vapid), 410);
    assert.equal(fake.delivered().length, 1);
  } finally {
    await fake.close();
  }
});
