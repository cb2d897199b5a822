// The panel's own certificate authority (--local-ca), for a LAN panel without a domain: a CA made once (10
// years, its key owner-only in the data dir) that can vouch only for LAN names and private addresses (its
// name constraints: a device that trusts it trusts nothing else it could sign), and a certificate for this
// machine's names and addresses (397 days, the most Apple accepts) signed by it and renewed like any other.
// WebCrypto makes the keys and signs; @peculiar/x509 builds the certificates (2.x needs a Reflect polyfill,
// which the manager also loads on its own first: see manager.ts).

import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { AsnConvert } from "@peculiar/asn1-schema";
import {
  GeneralName,
  GeneralSubtree,
  GeneralSubtrees,
  id_ce_nameConstraints,
  NameConstraints,
} from "@peculiar/asn1-x509";
import { isIP } from "node:net";

x509.cryptoProvider.set(crypto);

const ALG = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const DAY = 86_400_000;
export const LEAF_DAYS = 397;
const CA_DAYS = 3650;

/** Names a LAN uses (RFC 8375 home.arpa, mDNS .local, the common .lan and .internal) and the private ranges. */
export const LAN_SUFFIXES = ["localhost", "lan", "local", "home.arpa", "internal"];
export const PRIVATE_RANGES = [
  "127.0.0.0/8",
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "169.254.0.0/16",
  "100.64.0.0/10", // CGNAT, and Tailscale's addresses
  "::1/128",
  "fc00::/7",
  "fe80::/10",
];

export interface Pair {
  /** The certificate (for a leaf, followed by the CA's). */
  cert: string;
  key: string;
}

function serial(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[0] &= 0x7f; // a positive number
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

async function pemOfKey(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await crypto.subtle.exportKey("pkcs8", key), "PRIVATE KEY") + "\n";
}

function inRange(ip: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split("/");
  const bytes = (a: string) => {
    if (isIP(a) === 4) return a.split(".").map(Number);
    // Expand "::" and read 8 groups of 16 bits.
    const [head, tail = ""] = a.split("::");
    const h = head ? head.split(":") : [];
    const t = tail ? tail.split(":") : [];
    const groups = a.includes("::") ? [...h, ...Array(8 - h.length - t.length).fill("0"), ...t] : h;
    return groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 255]);
  };
  if (isIP(ip) !== isIP(base)) return false;
  const a = bytes(ip), b = bytes(base);
  let bits = Number(bitsText);
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 255 : (255 << (8 - bits)) & 255;
    if ((a[i] & mask) !== (b[i] & mask)) return false;
  }
  return true;
}

/** Whether a certificate of the local CA may name `name` (within its name constraints). */
export function coveredByCa(name: string, hostname: string): boolean {
  if (isIP(name)) return PRIVATE_RANGES.some((r) => inRange(name, r));
  const n = name.toLowerCase();
  return [...LAN_SUFFIXES, hostname.toLowerCase()].some((s) => n === s || n.endsWith(`.${s}`));
}

/**
 * This machine's names and addresses a device on the LAN may open the panel at: localhost, the host name (and
 * its .local and .lan forms), loopback and every private address of its interfaces. Public addresses are left
 * out: the CA may not vouch for them.
 */
export function machineNames(): string[] {
  let host = "";
  try {
    host = Deno.hostname().toLowerCase();
  } catch {
    // no host name: addresses only
  }
  const names = ["localhost"];
  if (/^[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(host) && host !== "localhost") {
    names.push(host);
    if (!host.includes(".")) names.push(`${host}.local`, `${host}.lan`);
  }
  const addresses = ["127.0.0.1", "::1"];
  try {
    for (const i of Deno.networkInterfaces()) addresses.push(i.address);
  } catch {
    // the system will not say: loopback only
  }
  // Not link-local ones: a browser needs the interface's zone to open those.
  const linkLocal = (a: string) => a.startsWith("169.254.") || a.toLowerCase().startsWith("fe80:");
  const ips = [...new Set(addresses)].filter((a) => isIP(a) && !linkLocal(a) && coveredByCa(a, host));
  return [...names, ...ips];
}

function nameConstraints(hostname: string): x509.Extension {
  const dns = [
    ...new Set([...LAN_SUFFIXES, ...(hostname && !isIP(hostname) ? [hostname.toLowerCase()] : [])]),
  ];
  const subtrees = [
    ...dns.map((d) => new GeneralSubtree({ base: new GeneralName({ dNSName: d }) })),
    // A CIDR string is an address and its mask (RFC 5280 4.2.1.10).
    ...PRIVATE_RANGES.map((r) => new GeneralSubtree({ base: new GeneralName({ iPAddress: r }) })),
  ];
  const der = AsnConvert.serialize(new NameConstraints({ permittedSubtrees: new GeneralSubtrees(subtrees) }));
  return new x509.Extension(id_ce_nameConstraints, true, der);
}

/** A new CA, named with the day it was made so a device's list of CAs tells two panels' apart. */
export async function createCa(hostname: string, now: number): Promise<Pair> {
  const keys = await crypto.subtle.generateKey(ALG, true, ["sign", "verify"]) as CryptoKeyPair;
  const label = hostname ? ` on ${hostname.replace(/[,=+<>#;"\\]/g, "")}` : "";
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=Factorio Panel local CA${label} (${
      new Date(now).toISOString().slice(0, 10)
    }), O=Factorio Panel`,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + CA_DAYS * DAY),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      nameConstraints(hostname),
    ],
  });
  return { cert: ca.toString("pem") + "\n", key: await pemOfKey(keys.privateKey) };
}

/** A certificate for `names` (DNS names and addresses) signed by `ca`: the leaf followed by the CA. */
export async function issueLeaf(ca: Pair, names: string[], now: number): Promise<Pair> {
  const caCert = new x509.X509Certificate(ca.cert);
  const caKey = await crypto.subtle.importKey("pkcs8", x509.PemConverter.decode(ca.key)[0], ALG, false, [
    "sign",
  ]);
  const keys = await crypto.subtle.generateKey(ALG, true, ["sign", "verify"]) as CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${names.find((n) => !isIP(n)) ?? names[0]}`,
    issuer: caCert.subject,
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + LEAF_DAYS * DAY),
    publicKey: keys.publicKey,
    signingKey: caKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth], false),
      new x509.SubjectAlternativeNameExtension(
        names.map((v) => ({ type: isIP(v) ? "ip" as const : "dns" as const, value: v })),
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(caCert.publicKey),
    ],
  });
  return { cert: leaf.toString("pem") + "\n" + ca.cert, key: await pemOfKey(keys.privateKey) };
}
