// The only place that calls fetch. It sends cookies, speaks JSON, and applies the error rules of the spec
// (section 8): 502 flashes "Service not available"; 401 shows nothing and ends the session in the app;
// any other error status flashes the server's message. The error is then passed on to the caller.
// A call names a route of the API contract ("GET /api/saves/list", shared/contract/), which types its
// path parameters, query, body and answer. Answers are not checked at run time: the contract's answers
// test (backend/http/contract_answers_test.ts) holds the panel to the same types, and the app ships no
// schema (the contract is imported for its types only).
// Several servers: a route of one server (isServerRoute in the contract) goes to the server shown
// (state/current.ts), or to the one a call names (`{ server: 2 }`): /api/R for server 1 as ever,
// /api/servers/2/R for server 2.

import { PUSH_MSG } from "../../../shared/messages.ts";
import type {
  AnswerOf,
  BodyOf,
  ParamsOf,
  QueryOf,
  RouteKey,
  ServerRouteKey,
} from "../../../shared/contract/index.ts";
import { FIRST_SERVER } from "../../../shared/servers.ts";
import { messageOf, noAnswerFromPanel, PANEL_HEADER, parseBodyText, type ReadAnswer } from "./answer.ts";
import { showFlash } from "../state/flash.ts";
import { reportAnswer, reportNoAnswer } from "../state/connection.ts";
import { current } from "../state/current.ts";

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
 * An answer already read (the pre-rendered sign-in form's, handed over): the same rules as a call's.
 */
export function settle<T>(a: ReadAnswer, opts: RequestOptions = {}): T {
  if (noAnswerFromPanel(a)) throw noAnswer(opts, a.status);
  reportAnswer();
  if (a.status < 200 || a.status >= 300) throw handleErrorStatus(a.status, a.body, opts);
  return a.body as T;
}

async function request<T>(
  method: string,
  path: string,
  body?: unknown,
  opts: RequestOptions = {},
): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: body === undefined
        ? { Accept: "application/json" }
        : { Accept: "application/json", "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: opts.signal,
    });
  } catch (e) {
    if (opts.signal?.aborted) throw new ApiError(0, "Cancelled", e);
    throw noAnswer(opts, e);
  }
  if (noAnswerFromPanel({ status: res.status, panelHeader: res.headers.get(PANEL_HEADER) })) {
    throw noAnswer(opts, res.status);
  }
  return settle<T>({
    status: res.status,
    body: await parseBody(res),
    panelHeader: res.headers.get(PANEL_HEADER),
  }, opts);
}

/** What a call of route `K` takes besides its key: its path parameters, query and body, where it has them. */
export type CallInput<K extends RouteKey> =
  & (ParamsOf<K> extends undefined ? { params?: never } : { params: ParamsOf<K> })
  & (QueryOf<K> extends undefined ? { query?: never }
    : { query?: { [P in keyof QueryOf<K>]?: QueryOf<K>[P] | number } })
  & (BodyOf<K> extends undefined ? { body?: never } : { body: BodyOf<K> })
  // A route of one server may name it (absent: the server shown); the panel's own routes have none.
  & (K extends ServerRouteKey ? { server?: number } : { server?: never });

/** The input may be left out when the route needs none. */
type CallArgs<K extends RouteKey> = Record<never, never> extends CallInput<K>
  ? [input?: CallInput<K>, opts?: RequestOptions]
  : [input: CallInput<K>, opts?: RequestOptions];

interface AnyInput {
  params?: Record<string, string | number>;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  server?: number;
}

/**
 * The areas of one server, by the first part of their path. The app ships no contract at run time, so it
 * cannot ask isServerRoute; client.test.ts holds this to it for every route of the contract.
 */
const SERVER_AREA_PATH =
  /^\/api\/(backups|config|factorio|health|log|mods|players|saves|schedules|server|settings|world)(\/|$)/;

/** The path a route of server `server` has: /api/R for server 1, /api/servers/N/R for another. */
export function serverRoutePath(path: string, server: number): string {
  if (server === FIRST_SERVER || !SERVER_AREA_PATH.test(path)) return path;
  return `/api/servers/${server}/${path.slice("/api/".length)}`;
}

/** The method and URL of a call: the route's path with its parameters filled in, and the query. */
function target(route: string, input: AnyInput): [string, string] {
  const space = route.indexOf(" ");
  let path = serverRoutePath(route.slice(space + 1), input.server ?? current.server).replace(
    /:(\w+)/g,
    (_, name: string) => encodeURIComponent(String(input.params?.[name])),
  );
  const query = Object.entries(input.query ?? {}).filter(([, v]) => v !== undefined);
  if (query.length > 0) path += `?${new URLSearchParams(query.map(([k, v]) => [k, String(v)]))}`;
  return [route.slice(0, space), path];
}

/**
 * Calls a route of the API: `call("POST /api/saves/mods", { body: { saveFile } })`. A POST without a body
 * sends {}, as the old API's clients did. A route of one server goes to the server shown, or to
 * `{ server: N }`: `call("GET /api/server/status", { server: 2 })`.
 */
export function call<K extends RouteKey>(route: K, ...args: CallArgs<K>): Promise<AnswerOf<K>> {
  const [given = {}, opts] = args as [AnyInput?, RequestOptions?];
  const [method, path] = target(route, given);
  return request<AnswerOf<K>>(method, path, method === "POST" ? given.body ?? {} : given.body, opts);
}

/** A call whose answer is a file (a map preview): the same error rules as call(), the answer as a Blob. */
export async function callForBlob<K extends RouteKey>(
  route: K,
  input: CallInput<K>,
  opts: RequestOptions = {},
): Promise<Blob> {
  const [method, path] = target(route, input as AnyInput);
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(input.body),
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

/** Where a route's file is downloaded: a link's target, not fetched by the app. */
export function fileUrl<K extends RouteKey>(route: K, ...args: CallArgs<K>): string {
  return target(route, (args[0] ?? {}) as AnyInput)[1];
}

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
export function uploadMeter(
  now: () => number = () => performance.now(),
): (loaded: number, total: number) => UploadProgress {
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
    return total > 0
      ? { loaded, total, bytesPerSecond, secondsLeft: Math.max(0, total - loaded) / bytesPerSecond }
      : { loaded, total, bytesPerSecond };
  };
}

/** The upload routes the app uses: a file field, no path parameters. */
type UploadRoute =
  | "POST /api/saves/upload"
  | "POST /api/mods/upload"
  | "POST /api/mods/settings/upload"
  | "POST /api/import/archive"
  | "POST /api/servers/import";

/**
 * A multipart upload with progress, speed and time left (fetch cannot report upload progress,
 * XMLHttpRequest can). Same error rules as request().
 */
export function upload<K extends UploadRoute>(
  route: K,
  form: FormData,
  onProgress?: (p: UploadProgress) => void,
  opts: RequestOptions = {},
): { promise: Promise<AnswerOf<K>>; abort: () => void } {
  const xhr = new XMLHttpRequest();
  const promise = new Promise<AnswerOf<K>>((resolve, reject) => {
    xhr.open("POST", target(route, {})[1]);
    xhr.withCredentials = true;
    xhr.setRequestHeader("Accept", "application/json");
    const meter = uploadMeter();
    xhr.upload.onprogress = (e) => onProgress?.(meter(e.loaded, e.lengthComputable ? e.total : 0));
    xhr.onload = () => {
      if (
        xhr.status !== 0 &&
        noAnswerFromPanel({ status: xhr.status, panelHeader: xhr.getResponseHeader(PANEL_HEADER) })
      ) {
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
      if (xhr.status >= 200 && xhr.status < 300) resolve(data as AnswerOf<K>);
      else reject(handleErrorStatus(xhr.status, data, opts));
    };
    xhr.onerror = () => reject(noAnswer(opts, null));
    xhr.onabort = () => reject(new ApiError(0, "Upload cancelled", null));
    xhr.send(form);
  });
  return { promise, abort: () => xhr.abort() };
}
