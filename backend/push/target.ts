// Where a push message may go. A subscription's endpoint comes from a browser, that is from any signed-in
// user, so it must not turn the panel into a tool against its own machine or network: the real push
// services (Google, Mozilla, Apple, Microsoft) are public, and an endpoint on a loopback, private,
// link-local or otherwise non-public address is refused, by its name's addresses as the system resolves
// them. The admin names exceptions (a self-hosted push service on the LAN) with --push-private-hosts;
// their certificate must still verify (--push-ca-file for a private CA).

import { lookup } from "node:dns/promises";

export class PushTargetRefused extends Error {}

export interface PushTarget {
  url: URL;
  /** The host name as the certificate must name it (an IPv6 address without brackets). */
  host: string;
  port: number;
  /** The addresses to connect to, each checked. */
  addresses: string[];
}

/** The endpoint's host name, lower-case, without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^\[(.*)\]$/, "$1");
}

/**
 * The addresses a push message to `endpoint` may be sent to. Throws PushTargetRefused when the endpoint
 * is on this machine or a non-public network (and not one of `privateHosts`), or the name does not
 * resolve (then as a plain Error, worth another try).
 */
export async function pushTarget(endpoint: string, privateHosts: readonly string[]): Promise<PushTarget> {
  const url = new URL(endpoint);
  const host = hostOf(url);
  const port = url.port === "" ? 443 : Number(url.port);
  let addresses: string[];
  if (ipv4(host) || ipv6(host)) addresses = [host];
  else {
    const found = await lookup(host, { all: true, verbatim: true });
    addresses = found.map((a) => a.address);
    if (addresses.length === 0) throw new Error(`${host} has no address`);
  }
  if (!privateHosts.includes(host) && !addresses.every(isPublicAddress)) {
    throw new PushTargetRefused("the push service's address is on this machine or a private network");
  }
  return { url, host, port, addresses };
}

/** Dotted IPv4 as four numbers, or null. */
function ipv4(text: string): number[] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (!m) return null;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : null;
}

/** IPv6 as eight 16-bit groups (a zone index dropped, a dotted IPv4 tail taken), or null. */
function ipv6(text: string): number[] | null {
  let t = text.replace(/%.*$/, "");
  const tail = /:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(t);
  if (tail) {
    const v4 = ipv4(tail[1]);
    if (!v4) return null;
    t = t.slice(0, tail.index + 1) +
      `${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  if (!/^[0-9a-f:]+$/i.test(t) || t.split("::").length > 2) return null;
  const [head, rest] = t.split("::");
  const groups = (s: string | undefined) => (s ? s.split(":") : []);
  const a = groups(head);
  const b = groups(rest);
  const missing = 8 - a.length - b.length;
  if (rest === undefined ? missing !== 0 : missing < 1) return null;
  const all = [...a, ...Array(rest === undefined ? 0 : missing).fill("0"), ...b];
  if (!all.every((g) => /^[0-9a-f]{1,4}$/i.test(g))) return null;
  return all.map((g) => parseInt(g, 16));
}

function v4InRange(p: number[], base: number[], bits: number): boolean {
  const n = (x: number[]) => ((x[0] << 24) | (x[1] << 16) | (x[2] << 8) | x[3]) >>> 0;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return ((n(p) & mask) >>> 0) === ((n(base) & mask) >>> 0);
}

// Special-use IPv4 blocks (RFC 6890 and its updates) that are not the public internet.
const V4_NOT_PUBLIC: [number[], number][] = [
  [[0, 0, 0, 0], 8], // "this network"
  [[10, 0, 0, 0], 8], // private
  [[100, 64, 0, 0], 10], // carrier-grade NAT
  [[127, 0, 0, 0], 8], // loopback
  [[169, 254, 0, 0], 16], // link-local (cloud metadata services live here)
  [[172, 16, 0, 0], 12], // private
  [[192, 0, 0, 0], 24], // protocol assignments
  [[192, 0, 2, 0], 24], // documentation
  [[192, 88, 99, 0], 24], // 6to4 relay
  [[192, 168, 0, 0], 16], // private
  [[198, 18, 0, 0], 15], // benchmarking
  [[198, 51, 100, 0], 24], // documentation
  [[203, 0, 113, 0], 24], // documentation
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, broadcast
];

function v4Public(p: number[]): boolean {
  return !V4_NOT_PUBLIC.some(([base, bits]) => v4InRange(p, base, bits));
}

/** True for an address on the public internet; false for loopback, private, link-local, reserved... */
export function isPublicAddress(address: string): boolean {
  const v4 = ipv4(address);
  if (v4) return v4Public(v4);
  const g = ipv6(address);
  if (!g) return false;
  const embedded = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
  // ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (NAT64) reach an IPv4 address: judge that one.
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return v4Public(embedded(g[6], g[7]));
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return v4Public(embedded(g[6], g[7]));
  }
  // 6to4 (2002::/16) carries its IPv4 address in the next 32 bits.
  if (g[0] === 0x2002) return v4Public(embedded(g[1], g[2]));
  // Teredo (2001::/32) and documentation (2001:db8::/32) are no push service.
  if (g[0] === 0x2001 && (g[1] === 0 || g[1] === 0xdb8)) return false;
  // Global unicast is 2000::/3; the rest (::, ::1, fc00::/7, fe80::/10, ff00::/8, 100::/64...) is not.
  return (g[0] & 0xe000) === 0x2000;
}
