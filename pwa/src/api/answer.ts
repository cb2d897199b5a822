// Reading an answer of the panel: shared by the API client (client.ts) and the pre-rendered sign-in form's
// small script (pages/Login/shell.ts), which must not pull in the app's state modules.

import { MSG } from "../../../shared/messages.ts";

/** The header the panel puts on every answer (backend/http/app.ts), to tell its answers from a proxy's. */
export const PANEL_HEADER = "X-Factorio-Panel";

/** An answer as read: its status (0: none came), its body (JSON parsed, else the text) and the panel's header. */
export interface ReadAnswer {
  status: number;
  body: unknown;
  panelHeader: string | null;
}

export function parseBodyText(text: string): unknown {
  if (text === "") return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function messageOf(body: unknown, status: number): string {
  if (status === 502) return MSG.serviceNotAvailable;
  if (typeof body === "string" && body.trim() !== "") return body;
  if (body && typeof body === "object" && "message" in body) {
    return String((body as { message: unknown }).message);
  }
  return `Request failed (HTTP ${status})`;
}

/**
 * No answer from the panel: nothing came (status 0), or a 502/503/504 without the panel's header, which a
 * reverse proxy in front of a panel that is down sends (offline banner, last known status; not a reason
 * to sign out).
 */
export function noAnswerFromPanel(a: Pick<ReadAnswer, "status" | "panelHeader">): boolean {
  return a.status === 0 || (a.status >= 502 && a.status <= 504 && a.panelHeader === null);
}
