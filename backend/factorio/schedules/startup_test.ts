// A stored schedule whose cron expression does not parse (written into panel.db by hand, or by an older
// panel) must not stop the panel: it starts, the schedule is switched off with a warning in the panel log
// and on the Schedules page (a failed run saying why), and the other schedules run as before.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { startPanelProcess } from "../../../tests/support/process.ts";
import { withDirs } from "../../../tests/support/dirs.ts";
import type { Schedule } from "../../../shared/backups.ts";

const PASSWORD = "schedules-startup-password";

const schedule = (name: string) => ({
  name,
  cron: "0 4 * * *",
  condition: "always",
  enabled: true,
  tasks: [{ type: "save", delay_s: 0 }],
});

Deno.test("a stored schedule with a cron that does not parse is switched off at start-up, with a warning; the panel starts", async () => {
  await withDirs("panel-bad-cron", async (dataDir, factorioDir) => {
    const args = [
      "--data-dir",
      dataDir,
      "--factorio-dir",
      factorioDir,
      "--port",
      "0",
      "--bind",
      "127.0.0.1",
      "--factorio-update-check-hours",
      "0",
    ];
    const env = { PANEL_ADMIN_PASSWORD: PASSWORD };
    const first = await startPanelProcess({ args, env });
    try {
      const c = await first.login("admin", PASSWORD);
      for (const name of ["Broken", "Fine"]) {
        assert.equal((await c.post("/api/schedules", schedule(name))).status, 201);
      }
    } finally {
      assert.equal(await first.stop(), 0);
    }
    const db = new DatabaseSync(join(dataDir, "panel.db"));
    db.prepare("UPDATE schedules SET cron = '99 * * * *' WHERE name = 'Broken'").run();
    db.close();

    const panel = await startPanelProcess({ args, env });
    try {
      const c = await panel.login("admin", PASSWORD);
      // The schedules' start-up look (missed runs) happens before this answer.
      const r = await c.get("/api/schedules");
      assert.equal(r.status, 200, r.text);
      const [broken, fine] = r.body as Schedule[];
      assert.equal(broken.name, "Broken");
      assert.equal(broken.enabled, false, "switched off");
      assert.deepEqual(broken.next_runs, []);
      assert.equal(broken.last_runs[0]?.result, "failed");
      assert.match(
        broken.last_runs[0].output,
        /The cron expression "99 \* \* \* \*" is not valid.*switched off/,
      );
      assert.match(broken.description, /not valid/);
      assert.equal(fine.enabled, true);
      assert.equal(fine.next_runs.length, 3);
      // Still up, and the warning is in the panel log.
      assert.equal((await c.get("/api/server/status")).status, 200);
      const log = readFileSync(join(dataDir, "panel.log"), "utf8");
      assert.match(log, /WARN .*cron expression does not parse: switched it off .*"99 \* \* \* \*"/);
      // Fixed and switched on again through the form's route, it runs on its timetable again.
      const fixed = await c.post(`/api/schedules/${broken.id}/update`, {
        ...schedule("Broken"),
        cron: "30 * * * *",
      });
      assert.equal(fixed.status, 200, fixed.text);
      assert.equal(fixed.body.enabled, true);
      assert.equal(fixed.body.next_runs.length, 3);
    } finally {
      assert.equal(await panel.stop(), 0, panel.output());
    }
  });
});
