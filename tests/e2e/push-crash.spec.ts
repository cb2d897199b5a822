// The whole alert path with a real (simulated) game: a user enables notifications on the page, the game
// crashes, the panel pushes to the fake push service, which decrypts the alert; handed to the service
// worker, it shows the notification, and a click on it opens Controls.

import { rconExec } from "../fake-factorio/launch.mjs";
import { openSignedIn } from "./fixtures.ts";
import {
  deliverPush,
  expect,
  panelPushKey,
  shownNotifications,
  stubPushManager,
  testWithGame as test,
  waitForServiceWorker,
} from "./push-fixtures.ts";
import { PUSH_MSG } from "../../shared/messages.ts";

test("a crash of the game reaches the fake push service decrypted, and shows as a notification that opens Controls", async ({ page, panel, fakePush, gamePort: port }) => {
  const sub = await fakePush.subscribe(await panelPushKey(panel));
  await page.context().grantPermissions(["notifications"]);
  await stubPushManager(page.context(), sub);
  await openSignedIn(page, "/notifications");
  await waitForServiceWorker(page);
  await page.getByRole("button", { name: "Enable notifications on this device" }).click();
  const device = page.getByRole("listitem", { name: "Chrome on Windows" });
  await device.getByRole("checkbox", { name: "Started" }).check();

  // Start the game as the Controls page would, and wait for the "started" alert.
  const start = await page.request.post("/api/server/start", {
    data: { bindip: "127.0.0.1", port, savefile: "world.zip" },
  });
  expect(start.status(), await start.text()).toBe(200);
  const started = await fakePush.waitFor((r) => r.subscriptionId === sub.id && r.status === 201);
  expect(JSON.parse(started.payload!)).toMatchObject({
    kind: "started",
    // Led by the server's name ("Server 1: Factorio server started").
    title: expect.stringMatching(new RegExp(`^.+: ${PUSH_MSG.titleStarted}$`)),
    body: `world.zip is running on port ${port} (Factorio 2.0.72).`,
  });

  // A console command crashes the simulator, as a real crash would end the game.
  await rconExec(panel.dataDir, "/fake-crash 3");
  const crash = await fakePush.waitFor((r) => r.subscriptionId === sub.id && r.status === 201, {
    after: started.seq,
    timeoutMs: 30_000,
  });
  const alert = JSON.parse(crash.payload!);
  expect(alert).toMatchObject({
    kind: "crashed",
    title: expect.stringMatching(new RegExp(`^.+: ${PUSH_MSG.titleCrashed}$`)),
    url: "/",
    tag: "factorio-server-crash",
  });
  expect(alert.body).toMatch(/^Exit code 3\. Last log line: .+/);
  expect(crash.urgency).toBe("high");

  await deliverPush(page, crash.payload!);
  await expect.poll(async () => (await shownNotifications(page)).map((n) => n.title)).toContain(alert.title);
  const [worker] = page.context().serviceWorkers();
  await worker.evaluate(async () => {
    const sw = self as unknown as ServiceWorkerGlobalScope;
    const n = (await sw.registration.getNotifications()).find((x) => x.tag === "factorio-server-crash")!;
    sw.dispatchEvent(new NotificationEvent("notificationclick", { notification: n }));
  });
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("heading", { name: "Controls", level: 1 })).toBeVisible();
});
