// Alert channels (Notifications page): Discord, Slack, ntfy and a signed webhook. Panel-wide, admins only:
// answers carry masked URLs, and a webhook's HMAC secret once, in the answer that created it.

import { z } from "zod";
import { Message, type Routes } from "./route.ts";
import { ALERT_EVENTS, CHANNEL_TYPES } from "../alerts.ts";
import { CHANNEL_MSG, PUSH_MSG } from "../messages.ts";
import { CHANNEL_NAME_MAX } from "../validation.ts";

export const AlertEvent = z.enum(ALERT_EVENTS);
const ChannelType = z.enum(CHANNEL_TYPES);

/** Quiet hours of a push device, in the device's own time zone ("22:00" to "07:00"). */
export const QuietHours = z.object({
  start: z.string(),
  end: z.string(),
  /** IANA time zone name of the device, e.g. "Europe/Berlin". */
  tz: z.string(),
});
export type QuietHours = z.infer<typeof QuietHours>;

/** One channel as the API answers it: the URL's secret parts masked, the token and HMAC secret never. */
export const AlertChannel = z.object({
  id: z.number(),
  type: ChannelType,
  name: z.string(),
  /** The URL with its secret parts (tokens, query) replaced by "••••". */
  url: z.string(),
  events: z.array(AlertEvent),
  /**
   * The servers whose alerts it gets (null: every server; []: none, only the panel's own alerts such as
   * sign-ins and certificates, which every channel subscribed to them gets).
   */
  servers: z.array(z.number()).nullable(),
  enabled: z.boolean(),
  /** ntfy only: the topic (shortened), the priority 1-5, and whether a token is stored. */
  topic: z.string().optional(),
  priority: z.number().optional(),
  has_token: z.boolean().optional(),
  created_at: z.string(),
  last_delivery_at: z.string().nullable(),
  /** "HTTP 204", "HTTP 429 (retrying)", "no answer within 10 s" ... */
  last_result: z.string().nullable(),
  last_ok: z.boolean().nullable(),
}).meta({ id: "AlertChannel" });
export type AlertChannel = z.infer<typeof AlertChannel>;

/** POST /api/notifications/channels. The webhook's HMAC secret is made by the panel. */
/** The events a request asks for; anything else is refused with the list of known ones. */
export const RequestedEvents = z.array(z.enum(ALERT_EVENTS, { error: PUSH_MSG.eventsInvalid }), {
  error: PUSH_MSG.eventsInvalid,
});

/** The servers a device or channel gets alerts about: ids, or null for every server. */
export const RequestedServers = z.array(z.number({ error: PUSH_MSG.serversInvalid }), {
  error: PUSH_MSG.serversInvalid,
}).nullable();

// A channel's fields as a request gives them, each refused in the words of shared/validation.ts.
const channelFields = {
  name: z.string({ error: CHANNEL_MSG.nameInvalid(CHANNEL_NAME_MAX) }),
  url: z.string({ error: CHANNEL_MSG.urlInvalid }),
  events: RequestedEvents.optional(),
  servers: RequestedServers.optional(),
  enabled: z.boolean({ error: CHANNEL_MSG.enabledInvalid }).optional(),
  topic: z.string({ error: CHANNEL_MSG.topicInvalid }).optional(),
  priority: z.number({ error: CHANNEL_MSG.priorityInvalid }).optional(),
  token: z.string({ error: CHANNEL_MSG.tokenInvalid }).optional(),
};

export const NewAlertChannel = z.object({
  type: z.enum(CHANNEL_TYPES, { error: CHANNEL_MSG.typeInvalid }),
  ...channelFields,
});
export type NewAlertChannel = z.infer<typeof NewAlertChannel>;

/** The answer to creating a channel: for a webhook, its HMAC secret, shown this once. */
export const CreatedAlertChannel = AlertChannel.extend({ secret: z.string().optional() });
export type CreatedAlertChannel = z.infer<typeof CreatedAlertChannel>;

/** POST /api/notifications/channels/{id}: any of these; url and token replace the stored ones. */
export const AlertChannelUpdate = z.object({
  name: channelFields.name.optional(),
  url: channelFields.url.optional(),
  events: channelFields.events,
  servers: channelFields.servers,
  enabled: channelFields.enabled,
  topic: channelFields.topic,
  priority: channelFields.priority,
  token: z.string({ error: CHANNEL_MSG.tokenInvalid }).nullable().optional(),
});
export type AlertChannelUpdate = z.infer<typeof AlertChannelUpdate>;

/** POST /api/notifications/channels/{id}/test. */
export const ChannelTestResult = z.object({
  ok: z.boolean(),
  /** The endpoint's HTTP status, null when it could not be reached. */
  status: z.number().nullable(),
  message: z.string(),
});
export type ChannelTestResult = z.infer<typeof ChannelTestResult>;

// Channels hold webhook secrets and reach everyone: panel admins only.
export const alertRoutes = {
  "GET /api/notifications/channels": {
    summary: "The alert channels",
    role: "admin",
    answer: z.array(AlertChannel),
  },
  "POST /api/notifications/channels": {
    summary: "Add an alert channel (a webhook's secret is in this answer only)",
    role: "admin",
    body: NewAlertChannel,
    answer: CreatedAlertChannel,
  },
  "POST /api/notifications/channels/:id/test": {
    summary: "Send a test alert now",
    role: "admin",
    answer: ChannelTestResult,
  },
  "POST /api/notifications/channels/:id/delete": {
    summary: "Delete an alert channel",
    role: "admin",
    answer: Message,
  },
  "POST /api/notifications/channels/:id": {
    summary: "Change an alert channel",
    role: "admin",
    body: AlertChannelUpdate,
    answer: AlertChannel,
  },
} satisfies Routes;
