// HTTPS (Settings > HTTPS): the certificate's state, setting up a certificate from an ACME CA, renewing it
// now, and the local CA's certificate for devices to download. Admins only, but the download: it is the
// public half of the CA, which a phone fetches before it can trust the panel.

import type { AppContext } from "../context.ts";
import { readObject } from "./body.ts";
import type { Route } from "./routes.ts";
import { NotFound } from "../errors.ts";
import { CA_DOWNLOAD_PATH, CA_HEADERS } from "../../shared/https.ts";

export function httpsRoutes(ctx: AppContext): Route[] {
  const https = ctx.https;
  return [
    {
      method: "GET",
      path: "/api/https",
      role: "admin",
      handler: (c) => c.json(https.state()),
    },
    {
      method: "POST",
      path: "/api/https",
      role: "admin",
      handler: async (c) => {
        const body = await readObject(c);
        const state = await https.configure(body);
        c.set("activity", { detail: state.acme.domains.join(", ") });
        return c.json(state);
      },
    },
    {
      method: "POST",
      path: "/api/https/renew",
      role: "admin",
      handler: async (c) => c.json(await https.renewNow()),
    },
    {
      method: "GET",
      path: CA_DOWNLOAD_PATH,
      public: true,
      handler: () => {
        const pem = https.caCertificate();
        if (!pem) throw new NotFound("The panel has no local certificate authority (--local-ca is off).");
        return new Response(pem, { headers: CA_HEADERS });
      },
    },
  ];
}
