// Getting a certificate from an ACME CA (RFC 8555: Let's Encrypt, a step-ca at home) with the acme-client
// package: the account (its key kept owner-only, reused for every renewal), the order, one check per name
// (HTTP-01 answered by responder.ts, or DNS-01 through dns.ts), then the certificate for a fresh key.
// Step by step rather than acme-client's auto(): auto() orders names only, checks the challenge itself
// through the system's DNS first, and hides which name failed.

import acme from "acme-client";
import { join } from "node:path";
import { ensureDir, writeJsonAtomic, writeSecretFile } from "../lib/fsutil.ts";
import type { Logger } from "../lib/log.ts";
import type { DnsService, TxtRecord } from "./dns.ts";

/** The CA, a DNS service or the network refused or failed: the message is for the admin, as it is. */
export class AcmeError extends Error {}

export interface AcmeAccountOptions {
  directoryUrl: string;
  /** Extra CA certificates (PEM) to trust for the ACME server, beside the public roots (--acme-ca-file). */
  caPem: string | null;
  email: string;
  /** Where the account's key and URL are kept (owner-only). */
  dir: string;
  log: Logger;
}

export type ChallengeSolver =
  | { type: "http-01"; set(token: string, keyAuthorization: string): void; remove(token: string): void }
  | { type: "dns-01"; service: DnsService; waitMs: number };

interface StoredAccount {
  directory_url: string;
  url: string;
  email: string;
}

const TIMEOUT_MS = 30_000;

interface AxiosRequest {
  url?: string;
  method?: string;
  headers?: { toJSON?: () => Record<string, unknown> } & Record<string, unknown>;
  data?: string;
}

/**
 * acme-client's HTTP goes through an axios adapter of our own, on Deno's fetch: --acme-ca-file is then
 * trusted beside the public roots for this client only (Deno.createHttpClient's caCerts), and a network
 * failure keeps its reason. With axios's own adapter, acme-client retries network errors and then throws
 * "Cannot read properties of undefined (reading 'config')" instead (its issue #101): an error without
 * `config` passes its retry step untouched. Its own retries (5, up to 25 s apart, or a 429's Retry-After,
 * hours at Let's Encrypt) are off: the manager retries with its own backoff, and an admin waiting on the
 * page gets the reason at once. axios itself still turns the request into JSON and parses the answer.
 */
let client: { pem: string | null; http: Deno.HttpClient } | null = null;
const defaults = acme.axios.defaults as unknown as {
  adapter: unknown;
  acmeSettings: { retryMaxAttempts: number };
};
defaults.acmeSettings.retryMaxAttempts = 0;
defaults.adapter = async (config: AxiosRequest) => {
  const url = config.url ?? "";
  const headers = new Headers();
  for (const [k, v] of Object.entries(config.headers?.toJSON?.() ?? config.headers ?? {})) {
    if (v !== undefined && v !== null && v !== false) headers.set(k, String(v));
  }
  let res: Response;
  try {
    res = await fetch(url, {
      method: (config.method ?? "get").toUpperCase(),
      headers,
      body: config.data,
      client: client?.http,
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (e) {
    const cause = (e as { cause?: unknown }).cause;
    // Deno's "error sending request for url (...): client error (Connect): tcp connect error: Connection
    // refused (os error 111)": the URL is said once already, the layers' names say nothing to a person.
    const why = e instanceof DOMException && e.name === "TimeoutError"
      ? `no answer within ${TIMEOUT_MS / 1000} s`
      : (cause instanceof Error ? cause.message : (e as Error).message).replace(
        /^error sending request for url \([^)]*\): /,
        "",
      )
        .replace(/^client error \((Connect|SendRequest)\): /, "");
    let host = url;
    try {
      host = new URL(url).host;
    } catch {
      // the URL as it is
    }
    throw new AcmeError(`Could not reach ${host}: ${why}`);
  }
  return {
    data: await res.text(),
    status: res.status,
    statusText: res.statusText,
    headers: Object.fromEntries(res.headers),
    config,
    request: null,
  };
};

/** Trust `caPem` (--acme-ca-file) beside the public roots. One client for the module: the panel has one ACME CA. */
function trust(caPem: string | null): void {
  if (client?.pem === caPem) return;
  client?.http.close();
  client = { pem: caPem, http: Deno.createHttpClient(caPem ? { caCerts: [caPem] } : {}) };
}

/** The message of an error from acme-client or the network, for a person. */
function reasonOf(e: unknown): string {
  const msg = e instanceof Error ? e.message : String(e);
  return msg.replace(/\s+/g, " ").trim() || "no reason given";
}

/** The account's client: its key and URL from `dir`, made with the CA at the first use of this directory. */
async function accountClient(o: AcmeAccountOptions): Promise<acme.Client> {
  const keyFile = join(o.dir, "account.key");
  const infoFile = join(o.dir, "account.json");
  let stored: StoredAccount | null = null;
  let storedKey: string | null = null;
  try {
    stored = JSON.parse(Deno.readTextFileSync(infoFile));
    storedKey = Deno.readTextFileSync(keyFile);
  } catch {
    // none yet
  }
  const same = stored?.directory_url === o.directoryUrl && storedKey !== null;
  const accountKey = same ? storedKey! : (await acme.crypto.createPrivateEcdsaKey()).toString();
  // A short first wait: the CA's check takes about a second, and acme-client's 5 s default made each certificate ~6 s.
  const client = new acme.Client({
    directoryUrl: o.directoryUrl,
    accountKey,
    accountUrl: same ? stored!.url : undefined,
    backoffMin: 250,
    backoffMax: 5000,
    backoffAttempts: 20,
  });
  const contact = o.email ? [`mailto:${o.email}`] : [];
  if (!same) {
    ensureDir(o.dir, 0o700);
    try {
      await client.createAccount({ termsOfServiceAgreed: true, contact });
    } catch (e) {
      throw e instanceof AcmeError ? e : new AcmeError(`The CA refused to make an account: ${reasonOf(e)}`);
    }
    // The key first: an account URL without its key is useless, a key without the URL is looked up again.
    writeSecretFile(keyFile, accountKey);
    writeJsonAtomic(
      infoFile,
      { directory_url: o.directoryUrl, url: client.getAccountUrl(), email: o.email },
      0o600,
    );
    o.log.info("Made an account with the ACME CA", { directory: o.directoryUrl });
  } else if (stored!.email !== o.email) {
    try {
      await client.updateAccount({ contact });
    } catch (e) {
      throw e instanceof AcmeError
        ? e
        : new AcmeError(`The CA refused the new e-mail address: ${reasonOf(e)}`);
    }
    writeJsonAtomic(infoFile, { ...stored, email: o.email }, 0o600);
  }
  return client;
}

/** Gets a certificate for `names` (a fresh ECDSA P-256 key): the chain and the key, as PEM. */
export async function obtainCertificate(
  o: AcmeAccountOptions,
  names: string[],
  solver: ChallengeSolver,
): Promise<{ cert: string; key: string }> {
  trust(o.caPem);
  const client = await accountClient(o);
  let order: acme.Order;
  try {
    order = await client.createOrder({ identifiers: names.map((value) => ({ type: "dns", value })) });
  } catch (e) {
    throw e instanceof AcmeError ? e : new AcmeError(`The CA refused the order: ${reasonOf(e)}`);
  }
  let authorizations: acme.Authorization[];
  try {
    authorizations = await client.getAuthorizations(order);
  } catch (e) {
    throw e instanceof AcmeError
      ? e
      : new AcmeError(`The CA did not give the checks for the order: ${reasonOf(e)}`);
  }
  // One name at a time: DuckDNS holds one TXT value per domain, and the CA's reason then names the name.
  for (const authz of authorizations) {
    if (authz.status === "valid") continue;
    const name = (authz.wildcard ? "*." : "") + authz.identifier.value;
    const challenge = authz.challenges.find((c) => c.type === solver.type);
    if (!challenge) throw new AcmeError(`The CA offers no ${solver.type} check for ${name}`);
    const keyAuthorization = await client.getChallengeKeyAuthorization(challenge);
    let record: TxtRecord | null = null;
    if (solver.type === "http-01") solver.set(challenge.token, keyAuthorization);
    else {
      record = await solver.service.setTxt(authz.identifier.value, keyAuthorization);
      if (solver.waitMs > 0) await new Promise<void>((r) => setTimeout(r, solver.waitMs));
    }
    try {
      await client.completeChallenge(challenge);
      await client.waitForValidStatus(challenge);
    } catch (e) {
      if (e instanceof AcmeError) throw e;
      throw new AcmeError(`The CA could not confirm ${name}: ${reasonOf(e)}`);
    } finally {
      if (solver.type === "http-01") solver.remove(challenge.token);
      else {
        await record?.remove().catch((e) =>
          o.log.warn("Could not remove the DNS check record", { name, error: reasonOf(e) })
        );
      }
    }
  }
  const [key, csr] = await acme.crypto.createCsr(
    { altNames: names, ...(names[0].length <= 64 ? { commonName: names[0] } : {}) },
    await acme.crypto.createPrivateEcdsaKey(),
  );
  try {
    const finalized = await client.finalizeOrder(order, csr);
    const cert = await client.getCertificate(finalized);
    return { cert, key: key.toString() };
  } catch (e) {
    throw e instanceof AcmeError ? e : new AcmeError(`The CA did not issue the certificate: ${reasonOf(e)}`);
  }
}
