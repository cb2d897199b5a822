// Typed errors. Domain code throws these; one handler in http/app.ts turns them into an HTTP status and a JSON
// string body, so no route builds an error response by hand.

export class HttpError extends Error {
  constructor(readonly status: number, message: string, readonly headers: Record<string, string> = {}) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400: the request is wrong; the message says what to change. */
export class Invalid extends HttpError {
  constructor(message: string) {
    super(400, message);
  }
}

export class Unauthorized extends HttpError {
  constructor(message: string) {
    super(401, message);
  }
}

export class Forbidden extends HttpError {
  constructor(message: string) {
    super(403, message);
  }
}

export class NotFound extends HttpError {
  constructor(message: string) {
    super(404, message);
  }
}

/** 409: the request clashes with the current state (already running, name taken, last admin...). */
export class Conflict extends HttpError {
  constructor(message: string) {
    super(409, message);
  }
}

export class PayloadTooLarge extends HttpError {
  constructor(message: string) {
    super(413, message);
  }
}

export class UnsupportedMediaType extends HttpError {
  constructor(message: string) {
    super(415, message);
  }
}

/** 423: not possible while the game server runs. */
export class Locked extends HttpError {
  constructor(message: string) {
    super(423, message);
  }
}

export class TooManyRequests extends HttpError {
  constructor(message: string, retryAfterSeconds: number) {
    super(429, message, { "Retry-After": String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

/**
 * The game did not do what was asked: it did not finish saving in time, did not answer its console, or
 * refused a change (422). Its reason is the message. A failure of the game is not a fault of the panel, so
 * not a 5xx (which the app shows as "Service not available").
 */
export class GameFailed extends HttpError {
  constructor(message: string, status: 422 | 424 = 424) {
    super(status, message);
  }
}

/** 502/503/504: an outside service (mod portal, auth server) failed. */
export class Upstream extends HttpError {
  constructor(message: string, status: 502 | 503 | 504 = 503) {
    super(status, message);
  }
}

/**
 * Something the admin must fix before the panel can start (an unreadable database, ...). run.ts prints
 * its message, one line naming the file and the remedy, instead of a stack trace.
 */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StartupError";
  }
}

/** A game install that failed for a reason the user should read; nothing was installed. */
export class InstallError extends Error {}

/** True for "no space left on the device" from node:fs, Deno or SQLite (full disk). */
export function isNoSpace(err: unknown): boolean {
  for (
    let e = err as { code?: unknown; message?: unknown; cause?: unknown } | undefined, i = 0;
    e && i < 5;
    i++
  ) {
    if (e.code === "ENOSPC" || e.code === "SQLITE_FULL") return true;
    if (
      typeof e.message === "string" &&
      /no space left on device|os error 28|database or disk is full/i.test(e.message)
    ) {
      return true;
    }
    e = e.cause as typeof e;
  }
  return false;
}

/** What a request was writing, by its path, for the full-disk answer. */
export function areaOfPath(path: string): string {
  if (path.startsWith("/api/saves")) return "the saves";
  if (path.startsWith("/api/mods/packs")) return "the mod packs";
  if (path.startsWith("/api/mods")) return "the mods";
  if (path.startsWith("/api/settings") || path.startsWith("/api/config")) return "the server settings";
  if (path.startsWith("/api/players")) return "the player lists";
  return "the panel's data";
}
