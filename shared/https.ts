// HTTPS for phones (issue 50): the panel's certificate, where it comes from and how it is renewed. Used by
// the backend (config, backend/https/, the routes) and the PWA (Settings > HTTPS), so a name is checked by
// the same rule in the form, the API and the command line.

/** Let's Encrypt's production directory: the default ACME CA. */
export const LETS_ENCRYPT = "https://acme-v02.api.letsencrypt.org/directory";

export const ACME_CHALLENGES = ["http-01", "dns-01"] as const;
export type AcmeChallenge = typeof ACME_CHALLENGES[number];

export const DNS_PROVIDERS = ["duckdns", "cloudflare"] as const;
export type DnsProvider = typeof DNS_PROVIDERS[number];
export const DNS_PROVIDER_LABELS: Record<DnsProvider, string> = {
  duckdns: "DuckDNS",
  cloudflare: "Cloudflare",
};

/**
 * Where the certificate comes from: none (plain HTTP), an ACME CA, files given with --https-cert/--https-key,
 * or the panel's own certificate authority (--local-ca).
 */
export type HttpsMode = "off" | "acme" | "files" | "local-ca";

// The state and the settings of the API: their schemas are the contract's (shared/contract/https.ts).
export type { CertificateFacts, HttpsSettings, HttpsState } from "./contract/https.ts";

/** The public download of the local CA's certificate. */
export const CA_DOWNLOAD_PATH = "/ca.crt";
/** Its headers: the type Android and iOS open as "install a CA certificate". */
export const CA_HEADERS = {
  "Content-Type": "application/x-x509-ca-cert",
  "Content-Disposition": 'attachment; filename="factorio-panel-ca.crt"',
};

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Why `name` cannot be in a certificate from a public ACME CA, or null. A wildcard needs dns-01 (checked apart). */
export function domainProblem(name: string): string | null {
  const n = name.trim().toLowerCase().replace(/\.$/, "");
  if (n === "") return "is empty";
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(n) || n.includes(":")) {
    return "is an address, not a name: ACME CAs such as Let's Encrypt give certificates for domain names (for a LAN address, use the panel's own CA, --local-ca)";
  }
  if (n.length > 253) return "is longer than 253 characters";
  const labels = (n.startsWith("*.") ? n.slice(2) : n).split(".");
  if (!labels.every((l) => LABEL.test(l))) {
    return "is not a domain name (letters, digits and hyphens between dots)";
  }
  if (labels.length < 2) return "is not a full domain name like panel.example.org";
  return null;
}

/** Why `v` is not an e-mail address for the ACME account, or null. */
export function emailProblem(v: string): string | null {
  return /^[^\s@:,;<>"]+@[^\s@:,;<>"]+\.[^\s@:,;<>"]+$/.test(v)
    ? null
    : "is not an e-mail address like you@example.org";
}

/** Why the settings cannot work, or null: the names, the challenge and the DNS service together. */
export function httpsSettingsProblem(
  s: { domains: string[]; challenge: AcmeChallenge; dns_provider: DnsProvider | null },
): string | null {
  if (s.domains.length === 0) return "Give at least one domain name.";
  for (const d of s.domains) {
    const why = domainProblem(d);
    if (why) return `"${d}" ${why}.`;
  }
  const wildcard = s.domains.find((d) => d.startsWith("*."));
  if (wildcard && s.challenge !== "dns-01") {
    return `A wildcard name (${wildcard}) needs the DNS-01 check: the CA checks it through DNS only.`;
  }
  if (s.challenge === "dns-01" && !s.dns_provider) {
    return "The DNS-01 check needs the DNS service that holds the domain (DuckDNS or Cloudflare).";
  }
  if (s.challenge === "dns-01" && s.dns_provider === "duckdns") {
    const other = s.domains.find((d) => !d.endsWith(".duckdns.org"));
    if (other) return `DuckDNS holds only names ending in .duckdns.org, not ${other}.`;
  }
  return null;
}
