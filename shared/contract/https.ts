// HTTPS (Settings > HTTPS, issue 50): the certificate's state, setting up a certificate from an ACME CA,
// renewing now. Admins only; no answer carries a key, a DNS token or an ACME account credential. The local
// CA's certificate (GET /ca.crt) is a public file, not an API route (backend/http/app.ts mounts it).

import { z } from "zod";
import type { Routes } from "./route.ts";
import { ACME_CHALLENGES, DNS_PROVIDERS } from "../https.ts";

const AcmeChallenge = z.enum(ACME_CHALLENGES);
const DnsProvider = z.enum(DNS_PROVIDERS);

/** What a certificate says, as the page shows it. */
export const CertificateFacts = z.object({
  subject: z.string(),
  issuer: z.string(),
  /** The names and addresses it is valid for (its subject alternative names). */
  names: z.array(z.string()),
  not_before: z.string(),
  not_after: z.string(),
  serial: z.string(),
  fingerprint_sha256: z.string(),
}).meta({ id: "CertificateFacts" });
export type CertificateFacts = z.infer<typeof CertificateFacts>;

/** GET /api/https. */
export const HttpsState = z.object({
  /** Where the certificate comes from: none (plain HTTP), an ACME CA, --https-cert/--https-key, the local CA. */
  mode: z.enum(["off", "acme", "files", "local-ca"]),
  /** The option that set the mode on the command line (the page cannot change it), or null. */
  fixed_by: z.enum(["--https-domain", "--https-cert", "--local-ca"]).nullable(),
  /** The certificate the panel serves (or would serve), null when it has none. */
  certificate: CertificateFacts.nullable(),
  /** When the panel renews it (ACME and the local CA), null when it does not. */
  next_renewal: z.string().nullable(),
  /** A certificate is being obtained right now. */
  busy: z.boolean(),
  /** The port HTTPS is served on (443: the address needs none). */
  https_port: z.number(),
  last_error: z.object({ message: z.string(), at: z.string() }).nullable(),
  acme: z.object({
    directory_url: z.string(),
    domains: z.array(z.string()),
    email: z.string(),
    challenge: AcmeChallenge,
    dns_provider: DnsProvider.nullable(),
    /** Whether a DNS API token is stored (or given by file); the token itself never leaves the panel. */
    has_dns_token: z.boolean(),
    /** The plain-HTTP port the CA connects to for http-01 (0: none). */
    http_port: z.number(),
    /** The plain-HTTP listener runs there (the HTTP-01 check, the redirect, the local CA's download). */
    http_listening: z.boolean(),
  }),
  /** The panel's own CA, while --local-ca is on. */
  local_ca: z.object({
    subject: z.string(),
    not_after: z.string(),
    fingerprint_sha256: z.string(),
    /** Where devices download it (public, the CA certificate only). */
    download_path: z.string(),
    /** The addresses and names its certificate for this machine covers. */
    names: z.array(z.string()),
  }).nullable(),
}).meta({ id: "HttpsState" });
export type HttpsState = z.infer<typeof HttpsState>;

/** POST /api/https: set up a certificate from an ACME CA. */
export const HttpsSettings = z.object({
  domains: z.array(z.string()),
  email: z.string().optional(),
  challenge: AcmeChallenge.optional(),
  dns_provider: DnsProvider.nullable().optional(),
  /** The DNS service's API token: stored owner-only, never shown again. Left out: keep the stored one. */
  dns_token: z.string().optional(),
});
export type HttpsSettings = z.input<typeof HttpsSettings>;

export const httpsRoutes = {
  "GET /api/https": {
    summary: "The HTTPS certificate: source, names, expiry, next renewal, last error",
    role: "admin",
    answer: HttpsState,
  },
  "POST /api/https": {
    summary:
      "Get a certificate from an ACME CA for these names (answers once issued, or 424 with the CA's reason)",
    role: "admin",
    body: HttpsSettings,
    answer: HttpsState,
  },
  "POST /api/https/renew": { summary: "Renew the certificate now", role: "admin", answer: HttpsState },
} satisfies Routes;
