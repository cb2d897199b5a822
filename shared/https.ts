// HTTPS for phones (issue 50): the panel's certificate, where it comes from and how it is renewed. Used by
// the backend (config, backend/https/, the routes) and the PWA (Settings > HTTPS), so a name is checked by
// the same rule in the form, the API and the command line.

/** Let's Encrypt's production directory: the default ACME CA. */
export const LETS_ENCRYPT = "https://acme-v02.api.letsencrypt.org/directory";

export const ACME_CHALLENGES = ["http-01", "dns-01"] as const;
export type AcmeChallenge = typeof ACME_CHALLENGES[number];

export const DNS_PROVIDERS = ["duckdns", "cloudflare"] as const;
export type DnsProvider = typeof DNS_PROVIDERS[number];
export const DNS_PROVIDER_LABELS: Record<DnsProvider, string> = { duckdns: "DuckDNS", cloudflare: "Cloudflare" };

/**
 * Where the certificate comes from: none (plain HTTP), an ACME CA, files given with --https-cert/--https-key,
 * or the panel's own certificate authority (--local-ca).
 */
export type HttpsMode = "off" | "acme" | "files" | "local-ca";

/** What a certificate says, as the page shows it. */
export interface CertificateFacts {
  subject: string;
  issuer: string;
  /** The names and addresses it is valid for (its subject alternative names). */
  names: string[];
  not_before: string;
  not_after: string;
  serial: string;
  fingerprint_sha256: string;
}

/** GET /api/https (admins). Never a key or a token. */
export interface HttpsState {
  mode: HttpsMode;
  /** The option that set the mode on the command line (the page cannot change it), or null. */
  fixed_by: "--https-domain" | "--https-cert" | "--local-ca" | null;
  /** The certificate the panel serves (or would serve), null when it has none. */
  certificate: CertificateFacts | null;
  /** When the panel renews it (ACME and the local CA), null when it does not. */
  next_renewal: string | null;
  /** A certificate is being obtained right now. */
  busy: boolean;
  /** The port HTTPS is served on (443: the address needs none). */
  https_port: number;
  last_error: { message: string; at: string } | null;
  acme: {
    directory_url: string;
    domains: string[];
    email: string;
    challenge: AcmeChallenge;
    dns_provider: DnsProvider | null;
    /** Whether a DNS API token is stored (or given by file); the token itself never leaves the panel. */
    has_dns_token: boolean;
    /** The plain-HTTP port the CA connects to for http-01 (0: none). */
    http_port: number;
    /** The plain-HTTP listener runs there (the HTTP-01 check, the redirect, the local CA's download). */
    http_listening: boolean;
  };
  /** The panel's own CA, while --local-ca is on. */
  local_ca: {
    subject: string;
    not_after: string;
    fingerprint_sha256: string;
    /** Where devices download it (public, the CA certificate only). */
    download_path: string;
    /** The addresses and names its certificate for this machine covers. */
    names: string[];
  } | null;
}

/** POST /api/https: set up a certificate from an ACME CA. */
export interface HttpsSettings {
  domains: string[];
  email?: string;
  challenge?: AcmeChallenge;
  dns_provider?: DnsProvider | null;
  /** The DNS service's API token: stored owner-only, never shown again. Omitted: keep the stored one. */
  dns_token?: string;
}

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
  if (!labels.every((l) => LABEL.test(l))) return "is not a domain name (letters, digits and hyphens between dots)";
  if (labels.length < 2) return "is not a full domain name like panel.example.org";
  return null;
}

/** Why `v` is not an e-mail address for the ACME account, or null. */
export function emailProblem(v: string): string | null {
  return /^[^\s@:,;<>"]+@[^\s@:,;<>"]+\.[^\s@:,;<>"]+$/.test(v) ? null : "is not an e-mail address like you@example.org";
}

/** Why the settings cannot work, or null: the names, the challenge and the DNS service together. */
export function httpsSettingsProblem(s: { domains: string[]; challenge: AcmeChallenge; dns_provider: DnsProvider | null }): string | null {
  if (s.domains.length === 0) return "Give at least one domain name.";
  for (const d of s.domains) {
    const why = domainProblem(d);
    if (why) return `"${d}" ${why}.`;
  }
  const wildcard = s.domains.find((d) => d.startsWith("*."));
  if (wildcard && s.challenge !== "dns-01") return `A wildcard name (${wildcard}) needs the DNS-01 check: the CA checks it through DNS only.`;
  if (s.challenge === "dns-01" && !s.dns_provider) return "The DNS-01 check needs the DNS service that holds the domain (DuckDNS or Cloudflare).";
  if (s.challenge === "dns-01" && s.dns_provider === "duckdns") {
    const other = s.domains.find((d) => !d.endsWith(".duckdns.org"));
    if (other) return `DuckDNS holds only names ending in .duckdns.org, not ${other}.`;
  }
  return null;
}
