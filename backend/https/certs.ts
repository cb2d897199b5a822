// Reading certificates: what one says (subject, issuer, names, validity) and whether a key belongs to it.
// node:crypto's X509Certificate parses; nothing here makes certificates (acme.ts, localca.ts do).

import { createPrivateKey, X509Certificate } from "node:crypto";
import type { CertificateFacts } from "../../shared/https.ts";

/** The PEM blocks of `text` of one type, in order (a chain is the leaf first). */
export function pemBlocks(text: string, type = "CERTIFICATE"): string[] {
  const re = new RegExp(`-----BEGIN ${type}-----[^-]+-----END ${type}-----`, "g");
  return text.match(re) ?? [];
}

export interface ParsedCertificate {
  facts: CertificateFacts;
  notBefore: number;
  notAfter: number;
}

/** What the first certificate of `chainPem` says. Throws a readable Error when it is not a certificate. */
export function readCertificate(chainPem: string): ParsedCertificate {
  const first = pemBlocks(chainPem)[0];
  if (!first) throw new Error("holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
  let x: X509Certificate;
  try {
    x = new X509Certificate(first);
  } catch (e) {
    throw new Error(`is not a readable certificate (${(e as Error).message})`);
  }
  const notBefore = Date.parse(x.validFrom);
  const notAfter = Date.parse(x.validTo);
  const names = (x.subjectAltName ?? "").split(/,\s*/).filter(Boolean).map((n) =>
    n.replace(/^(DNS|IP Address):/, "")
  );
  return {
    notBefore,
    notAfter,
    facts: {
      subject: x.subject.split("\n").join(", "),
      issuer: x.issuer.split("\n").join(", "),
      names,
      not_before: new Date(notBefore).toISOString(),
      not_after: new Date(notAfter).toISOString(),
      serial: x.serialNumber,
      fingerprint_sha256: x.fingerprint256,
    },
  };
}

/** Why `keyPem` cannot serve `chainPem`, or null when it is the certificate's own key. */
export function keyProblem(chainPem: string, keyPem: string): string | null {
  let key;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    return "the key file holds no readable private key (PEM)";
  }
  try {
    return new X509Certificate(pemBlocks(chainPem)[0]).checkPrivateKey(key)
      ? null
      : "the key does not belong to the certificate";
  } catch (e) {
    return `the certificate cannot be read (${(e as Error).message})`;
  }
}
