// Web Push: the panel's public key, the signed-in user's devices, and the test notification. Every route
// acts on the caller's own devices only.

import { z } from "zod";
import { PUSH_MSG } from "../messages.ts";
import { Message, type Routes } from "./route.ts";
import { AlertEvent, QuietHours, RequestedEvents, RequestedServers } from "./alerts.ts";

/** GET /api/push/key. */
export const PushKey = z.object({ publicKey: z.string() });
export type PushKey = z.infer<typeof PushKey>;

/** The browser's PushSubscription.toJSON(), as POST /api/push/subscribe takes it. */
export const PushSubscriptionJson = z.looseObject({
  endpoint: z.string({ error: PUSH_MSG.endpointInvalid }),
  expirationTime: z.number().nullable().optional(),
  keys: z.looseObject({
    p256dh: z.string({ error: PUSH_MSG.keysInvalid }),
    auth: z.string({ error: PUSH_MSG.keysInvalid }),
  }, { error: PUSH_MSG.keysInvalid }),
}, { error: PUSH_MSG.subscriptionRequired });
export type PushSubscriptionJson = z.infer<typeof PushSubscriptionJson>;

export const PushSubscribeRequest = z.object({
  subscription: PushSubscriptionJson,
  /** Shown in the device list; derived from the browser's user agent when left out. */
  name: z.string().optional(),
  events: RequestedEvents.optional(),
});
export type PushSubscribeRequest = z.infer<typeof PushSubscribeRequest>;

/** One of the signed-in user's devices (GET /api/push/devices). */
export const PushDevice = z.object({
  id: z.number(),
  name: z.string(),
  /** The push service URL: the page compares it with its own subscription to find "this device". */
  endpoint: z.string(),
  events: z.array(AlertEvent),
  /**
   * The servers whose alerts it gets (null: every server its user may see; []: none, only the panel's own
   * alerts such as sign-ins). A server the user loses their role on sends it nothing.
   */
  servers: z.array(z.number()).nullable(),
  created_at: z.string(),
  last_success_at: z.string().nullable(),
  /** The last failed delivery, when it came after the last success. */
  last_error: z.string().nullable(),
  /** No alerts in these hours, except critical ones; null when not set. */
  quiet_hours: QuietHours.nullable(),
}).meta({ id: "PushDevice" });
export type PushDevice = z.infer<typeof PushDevice>;

/** POST /api/push/devices/:id. */
export const PushDeviceUpdate = z.object({
  name: z.string().optional(),
  events: RequestedEvents.optional(),
  servers: RequestedServers.optional(),
  quiet_hours: QuietHours.nullable().optional(),
});
export type PushDeviceUpdate = z.infer<typeof PushDeviceUpdate>;

/** POST /api/push/test answers one of these per device it tried. */
export const PushTestResult = z.object({
  id: z.number(),
  name: z.string(),
  ok: z.boolean(),
  /** The push service's HTTP status, null when it could not be reached. */
  status: z.number().nullable(),
  message: z.string(),
});
export type PushTestResult = z.infer<typeof PushTestResult>;

// Alerts to one's own devices: any role may have them.
export const pushRoutes = {
  "GET /api/push/key": { summary: "The panel's public VAPID key", role: "viewer", answer: PushKey },
  "GET /api/push/devices": {
    summary: "Your devices with notifications",
    role: "viewer",
    answer: z.array(PushDevice),
  },
  "POST /api/push/subscribe": {
    summary: "Turn notifications on for this browser",
    role: "viewer",
    body: PushSubscribeRequest,
    answer: PushDevice,
  },
  "POST /api/push/unsubscribe": {
    summary: "Turn notifications off for a device (by id or endpoint)",
    role: "viewer",
    // Neither, or a device that is not yours: 404.
    body: z.object({ id: z.number().optional(), endpoint: z.string().optional() }),
    answer: Message,
  },
  "POST /api/push/devices/:id": {
    summary: "Change a device's name, events, servers or quiet hours",
    role: "viewer",
    body: PushDeviceUpdate,
    answer: PushDevice,
  },
  "POST /api/push/test": {
    summary: "Send a test notification to your devices (or one, by id)",
    role: "viewer",
    body: z.object({ id: z.number().optional() }),
    answer: z.array(PushTestResult),
  },
} satisfies Routes;
