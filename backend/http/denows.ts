// Hono's Deno WebSocket upgrade and connection address, on Hono's own WebSocket helper ("hono/ws").
// The same code as "hono/deno" (deprecated, to leave Hono in v5), without the rest of that module: its
// index also loads the static file server and the static site generator, which cost every cold start
// 10-30 ms before the first answer for two functions of a few lines.

import { defineWebSocketHelper, type UpgradeWebSocket, WSContext } from "hono/ws";

/** `upgradeWebSocket` of "hono/deno". */
export const upgradeWebSocket: UpgradeWebSocket<WebSocket, Deno.UpgradeWebSocketOptions> = defineWebSocketHelper<
  WebSocket,
  Deno.UpgradeWebSocketOptions
>(async (c, events, options) => {
  if (c.req.header("upgrade") !== "websocket") return;
  const subprotocol = c.req.header("sec-websocket-protocol")?.split(",")[0]?.trim();
  const { response, socket } = Deno.upgradeWebSocket(c.req.raw, {
    ...(subprotocol ? { protocol: subprotocol } : {}),
    ...options,
  });
  const wsContext = new WSContext<WebSocket>({
    close: (code, reason) => socket.close(code, reason),
    get protocol() {
      return socket.protocol;
    },
    raw: socket,
    get readyState() {
      return socket.readyState as 0 | 1 | 2 | 3;
    },
    url: socket.url ? new URL(socket.url) : null,
    send: (source) => socket.send(source),
  });
  socket.onopen = (evt) => events.onOpen?.(evt, wsContext);
  socket.onmessage = (evt) => events.onMessage?.(evt, wsContext);
  socket.onclose = (evt) => events.onClose?.(evt, wsContext);
  socket.onerror = (evt) => events.onError?.(evt, wsContext);
  return response;
});
