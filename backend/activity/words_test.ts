// The activity log in words (shared/activitywords.ts): every state-changing route of the table has its
// words, so a new route cannot show up as a raw "POST /api/..." line; and records made by real requests
// read as a person would say them.

import assert from "node:assert/strict";
import { withPanel } from "../../tests/support/harness.ts";
import { changesState } from "../http/routes.ts";
import { ACTIVITY_WORDS, activityWords } from "../../shared/activitywords.ts";
import { REFUSED_SIGN_INS } from "../../shared/access.ts";

const OFFLINE = ["--mod-portal-url", "http://127.0.0.1:9", "--auth-url", "http://127.0.0.1:9"];

Deno.test(
  "every state-changing route of the table has words in the activity log",
  withPanel(async (p) => {
    const missing = p.routes.filter(changesState).map((r) => `${r.method} ${r.path}`).filter((a) =>
      !ACTIVITY_WORDS[a]
    );
    assert.deepEqual(missing, [], "add their words to shared/activitywords.ts");
  }, { args: OFFLINE }),
);

Deno.test(
  "records of real requests in words: what was done, what was tried and why it failed",
  withPanel(async (p) => {
    const admin = await p.login();
    await p.client().post("/api/login", { username: "admin", password: "wrong password" });
    const made = await admin.post("/api/schedules", {
      name: "Nightly restart",
      cron: "0 4 * * *",
      condition: "always",
      enabled: false,
      tasks: [{ type: "command", text: "/save" }],
    });
    assert.equal(made.status, 201, made.text);
    assert.equal((await admin.post(`/api/schedules/${made.body.id}/run`)).status, 202);
    await admin.post("/api/user/add", {
      username: "vic",
      role: "viewer",
      email: "v@e.org",
      password: "vic password 1",
      password_confirmation: "vic password 1",
    });
    await admin.post("/api/user/role", { username: "vic", role: "operator" });
    await admin.post("/api/user/servers", { username: "vic", servers: { "1": "viewer" } });
    await admin.get("/api/saves/rm/old.zip");
    await admin.post(`/api/schedules/${made.body.id}/delete`);
    const words = p.ctx.activity.query({ limit: 100 }).reverse().map((e) => activityWords(e).text);
    assert.deepEqual(words, [
      "Signed in",
      "Tried to sign in: wrong name or password",
      "Created schedule 'Nightly restart'",
      "Ran schedule 'Nightly restart' now",
      "Added user vic (viewer)",
      "Changed the role of 'vic' to operator",
      "Changed the servers of 'vic' (server 1: viewer)",
      "Tried to delete save 'old.zip': not found",
      "Deleted schedule 'Nightly restart'",
    ]);
    assert.deepEqual(activityWords({ action: "console", detail: "/players", status: 200 }), {
      text: "Sent console command '/players'",
      extra: "",
    });
    const summary = activityWords({
      action: REFUSED_SIGN_INS,
      detail: "270 sign-in attempts refused by the limit in 4 s",
      status: 429,
    });
    assert.deepEqual(summary, {
      text: "Sign-in attempts refused by the limit",
      extra: "270 sign-in attempts refused by the limit in 4 s",
    });
    // A record made before the handler named the schedule still says which one.
    assert.equal(
      activityWords({ action: "POST /api/schedules/:id/run", detail: "/api/schedules/7/run", status: 202 })
        .text,
      "Ran schedule #7 now",
    );
  }, { args: OFFLINE }),
);
