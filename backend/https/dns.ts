// DNS-01: the TXT record _acme-challenge.<name> set and removed through the DNS service that holds the
// domain, by its public HTTP API. DuckDNS: one GET to /update (https://www.duckdns.org/spec.jsp). Cloudflare:
// the zone looked up by name, then a TXT record made and deleted (API v4, a token with Zone DNS Edit).
// The token is sent only to the service's base URL (--duckdns-url, --cloudflare-api-url) and never logged:
// DuckDNS takes it in the query, so no URL of these calls is ever written anywhere.

import { DNS_PROVIDER_LABELS, type DnsProvider } from "../../shared/https.ts";

/** A record that was set, to be removed after the check. */
export interface TxtRecord {
  name: string;
  remove(): Promise<void>;
}

export interface DnsService {
  label: string;
  /** Sets the TXT record `_acme-challenge.<name>` to `value`. Throws an Error a person understands. */
  setTxt(name: string, value: string): Promise<TxtRecord>;
}

/** A DNS service failed: the message says which and why (it becomes the certificate's last error). */
export class DnsError extends Error {}

const TIMEOUT_MS = 30_000;

async function call(label: string, url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (e) {
    // Not the URL: DuckDNS's holds the token.
    const why = e instanceof DOMException && e.name === "TimeoutError"
      ? `no answer within ${TIMEOUT_MS / 1000} s`
      : (e as Error).message;
    throw new DnsError(`Could not reach ${label}: ${why}`);
  }
}

export function dnsService(
  provider: DnsProvider,
  token: string,
  urls: { duckdns: string; cloudflare: string },
): DnsService {
  return provider === "duckdns" ? duckDns(token, urls.duckdns) : cloudflare(token, urls.cloudflare);
}

/** DuckDNS holds one TXT value per subdomain, answered for every name under it: set, then cleared. */
function duckDns(token: string, base: string): DnsService {
  const label = DNS_PROVIDER_LABELS.duckdns;
  const update = async (name: string, txt: string, clear: boolean) => {
    const sub = name.replace(/^\*\./, "").replace(/\.duckdns\.org$/, "").split(".").pop()!;
    const q = new URLSearchParams({
      domains: sub,
      token,
      txt,
      verbose: "true",
      ...(clear ? { clear: "true" } : {}),
    });
    const res = await call(label, `${base.replace(/\/$/, "")}/update?${q}`);
    const text = (await res.text()).slice(0, 200);
    if (!res.ok) throw new DnsError(`${label} answered HTTP ${res.status}`);
    // "OK" or "KO" on the first line: KO means the token or the subdomain is wrong.
    if (!text.startsWith("OK")) {
      throw new DnsError(
        `${label} refused to set the record for ${sub}.duckdns.org: check the token and that the subdomain is yours`,
      );
    }
  };
  return {
    label,
    async setTxt(name, value) {
      await update(name, value, false);
      return { name, remove: () => update(name, "", true) };
    },
  };
}

interface CloudflareAnswer {
  success?: boolean;
  errors?: { code?: number; message?: string }[];
  result?: unknown;
}

function cloudflare(token: string, base: string): DnsService {
  const label = DNS_PROVIDER_LABELS.cloudflare;
  const api = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await call(label, `${base.replace(/\/$/, "")}${path}`, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { "Content-Type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    let answer: CloudflareAnswer = {};
    try {
      answer = JSON.parse((await res.text()).slice(0, 64 * 1024));
    } catch {
      // not JSON: the status says it
    }
    if (!res.ok || answer.success === false) {
      const why = (answer.errors ?? []).map((e) => e.message).filter(Boolean).join("; ") ||
        `HTTP ${res.status}`;
      const hint = res.status === 401 || res.status === 403
        ? " (check the API token: it needs Zone > DNS > Edit for this domain's zone)"
        : "";
      throw new DnsError(`${label} refused: ${why}${hint}`);
    }
    return answer.result;
  };
  /** The zone holding `name`: the longest of its parent names Cloudflare knows. */
  const zoneOf = async (name: string): Promise<string> => {
    const labels = name.split(".");
    for (let i = 0; i < labels.length - 1; i++) {
      const candidate = labels.slice(i).join(".");
      const zones = await api("GET", `/zones?${new URLSearchParams({ name: candidate })}`) as
        | { id: string }[]
        | undefined;
      if (zones && zones.length > 0) return zones[0].id;
    }
    throw new DnsError(`${label} has no zone for ${name} that this token can see`);
  };
  return {
    label,
    async setTxt(name, value) {
      const host = name.replace(/^\*\./, "");
      const zone = await zoneOf(host);
      const made = await api("POST", `/zones/${encodeURIComponent(zone)}/dns_records`, {
        type: "TXT",
        name: `_acme-challenge.${host}`,
        content: value,
        ttl: 60,
      }) as { id: string };
      return {
        name,
        remove: async () =>
          void await api(
            "DELETE",
            `/zones/${encodeURIComponent(zone)}/dns_records/${encodeURIComponent(made.id)}`,
          ),
      };
    },
  };
}
