// HTTPS (Settings > HTTPS): the certificate's state, setting up a certificate from an ACME CA, renewing it
// now (admins only), and the local CA's certificate for devices to download (public: the CA's public half).

import type { AppContext } from "../boot/context.ts";
import { objectBody } from "./body.ts";
import { type Route, route, routeCheckedByDomain } from "./routes.ts";
import { CA_HEADERS } from "../../shared/https.ts";

export function httpsRoutes(ctx: AppContext): Route[] {
  const https = ctx.https;
  return [
    route("GET /api/https", () => https.state()),
    // The manager's own check names each problem of the settings (a domain, the e-mail, the DNS provider).
    routeCheckedByDomain("POST /api/https", async (c, { body }) => {
      const state = await https.configure(objectBody(body));
      c.set("activity", { detail: state.acme.domains.join(", ") });
      return state;
    }),
    route("POST /api/https/renew", () => https.renewNow()),
  ];
}

/**
 * GET /ca.crt: the local CA's certificate (public: a phone fetches it before it can trust the panel). A
 * file, not an API route: backend/http/app.ts mounts it beside the web app's files.
 */
export function caDownload(ctx: AppContext): () => Response {
  return () => {
    const pem = ctx.https.caCertificate();
    if (!pem) {
      return new Response("The panel has no local certificate authority (--local-ca is off).", {
        status: 404,
      });
    }
    return new Response(pem, { headers: CA_HEADERS });
  };
}
