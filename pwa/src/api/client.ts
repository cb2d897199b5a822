// The only place that calls fetch. It sends cookies, speaks JSON, and applies the error rules of the spec
// (section 8): 502 flashes "Service not available"; 401 shows nothing and ends the session in the app;
// any other error status flashes the server's message. The error is then passed on to the caller.

import { PUSH_MSG } from "../../../shared/messages.ts";
import { messageOf, noAnswerFromPanel, PANEL_HEADER, parseBodyText, type ReadAnswer } from "./answer.ts";
import { showFlash } from "../state/flash.ts";
import { reportAnswer, reportNoAnswer } from "../state/connection.ts";

export class ApiError extends Error {
  constructor(readonly status: number, message: string, readonly body: unknown) {
    super(message);
    this.name = "ApiError";
  }
}

export interface RequestOptions {
  /** No flash for this call (background refreshes). The error is still thrown. */
  quiet?: boolean;
  /** A 401 here is an answer, not a lost session (sign-in itself). */
  expect401?: boolean;
  signal?: AbortSignal;
}

type Unauthorized = () => void;
let onUnauthorized: Unauthorized = () => {};

/** The session store registers what a lost session means (avoids an import cycle). */
export function setUnauthorizedHandler(handler: Unauthorized): void {
  onUnauthorized = handler;
}

/** Applies the spec's error rules and returns the error to throw. */
export function handleErrorStatus(status: number, body: unknown, opts: RequestOptions = {}): ApiError {
  const message = messageOf(body, status);
  if (status === 401) {
    if (!opts.expect401) onUnauthorized();
  } else if (!opts.quiet) {
    showFlash(message, "error");
  }
  return new ApiError(status, message, body);
}

async function parseBody(res: Response): Promise<unknown> {
  return parseBodyText(await res.text());
}

/**
 * No answer at all (offline, panel down): status 0. The offline banner explains the state; a request the
 * user made (not a background refresh) also gets a flash saying it needs a connection.
 */
function noAnswer(opts: RequestOptions, cause: unknown): ApiError {
  reportNoAnswer();
  if (!opts.quiet) showFlash(PUSH_MSG.needsConnection, "error");
  return new ApiError(0, "No connection to the panel", cause);
}

export { PANEL_HEADER };

/**
 * An answer already read (the pre-rendered sign-in form's, handed over): the same rules as request().
 */
export function settle<T>(a: ReadAnswer, opts: RequestOptions = {}): T {
  if (noAnswerFromPanel(a)) throw noAnswer(opts, a.status);
  reportAnswer();
  if (a.status < 200 || a.status >= 300) throw handleErrorStatus(a.status, a.body, opts);
  return a.body as T;
}

export async function request<T>(method: string, path: string, body?: unknown, opts: RequestOptions = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined ? { Accept: "application/json" } : { Accept: "application/json", "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: opts.signal,
    });
  } catch (e) {
    if (opts.signal?.aborted) throw new ApiError(0, "Cancelled", e);
    throw noAnswer(opts, e);
  }
  if (noAnswerFromPanel({ status: res.status, panelHeader: res.headers.get(PANEL_HEADER) })) throw noAnswer(opts, res.status);
  return settle<T>({ status: res.status, body: await parseBody(res), panelHeader: res.headers.get(PANEL_HEADER) }, opts);
}

/** A POST with a JSON body that answers a file (a map preview): the same error rules as request(). */
export async function requestBlob(path: string, body: unknown, opts: RequestOptions = {}): Promise<Blob> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
      signal: opts.signal,
    });
  } catch (e) {
    if (opts.signal?.aborted) throw new ApiError(0, "Cancelled", e);
    throw noAnswer(opts, e);
  }
  reportAnswer();
  if (!res.ok) throw handleErrorStatus(res.status, await parseBody(res), opts);
  return await res.blob();
}

export const api = {
  get: <T>(path: string, opts?: RequestOptions) => request<T>("GET", path, undefined, opts),
  post: <T>(path: string, body: unknown = {}, opts?: RequestOptions) => request<T>("POST", path, body, opts),
};

export interface UploadProgress {
  loaded: number;
  total: number;
  /** Bytes per second over the last few seconds; absent until a second of the upload has been seen. */
  bytesPerSecond?: number;
  /** At that speed; absent with the speed, or when the total is not known. */
  secondsLeft?: number;
}

/** How far back the speed looks: long enough to smooth the browser's bursts, short enough to follow a change. */
const RATE_WINDOW_MS = 5000;

/** Turns the browser's progress events into UploadProgress, with the speed and time left. */
export function uploadMeter(now: () => number = () => performance.now()): (loaded: number, total: number) => UploadProgress {
  const samples: { at: number; loaded: number }[] = [];
  return (loaded, total) => {
    const at = now();
    samples.push({ at, loaded });
    // Keep one sample at or beyond the window's start, so the span covers the whole window.
    while (samples.length > 2 && at - samples[1].at >= RATE_WINDOW_MS) samples.shift();
    const first = samples[0];
    const span = at - first.at;
    if (span < 1000 || loaded <= first.loaded) return { loaded, total };
    const bytesPerSecond = ((loaded - first.loaded) / span) * 1000;
    return total > 0 ? { loaded, total, bytesPerSecond, secondsLeft: Math.max(0, total - loaded) / bytesPerSecond } : { loaded, total, bytesPerSecond };
  };
}

/**
 * A multipart upload with progress, speed and time left (fetch cannot report upload progress,
 * XMLHttpRequest can). Same error rules as request().
 */
export function upload<T>(
  path: string,
  form: FormData,
  onProgress?: (p: UploadProgress) => void,
  opts: RequestOptions = {},
): { promise: Promise<T>; abort: () => void } {
  const xhr = new XMLHttpRequest();
  const promise = new Promise<T>((resolve, reject) => {
    xhr.open("POST", path);
    xhr.withCredentials = true;
    xhr.setRequestHeader("Accept", "application/json");
    const meter = uploadMeter();
    xhr.upload.onprogress = (e) => onProgress?.(meter(e.loaded, e.lengthComputable ? e.total : 0));
    xhr.onload = () => {
      if (xhr.status !== 0 && noAnswerFromPanel({ status: xhr.status, panelHeader: xhr.getResponseHeader(PANEL_HEADER) })) {
        reject(noAnswer(opts, xhr.status));
        return;
      }
      reportAnswer();
      let data: unknown = xhr.responseText;
      try {
        data = xhr.responseText === "" ? null : JSON.parse(xhr.responseText);
      } catch {
        // keep the text
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(data as T);
      else reject(handleErrorStatus(xhr.status, data, opts));
    };
    xhr.onerror = () => reject(noAnswer(opts, null));
    xhr.onabort = () => reject(new ApiError(0, "Upload cancelled", null));
    xhr.send(form);
  });
  return { promise, abort: () => xhr.abort() };
}
