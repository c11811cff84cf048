import ipaddr from 'ipaddr.js';

/** An IPv4 range: its first address as a number and its prefix length. */
export interface Ipv4Range {
  start: number;
  prefix: number;
}

const toNumber = (a: ipaddr.IPv4) => a.octets.reduce((n, o) => n * 256 + o, 0);
const toText = (n: number) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');
const size = (r: Ipv4Range) => 2 ** (32 - r.prefix);

/** `10.0.0.0/24` as a range; undefined unless it is an IPv4 CIDR with no host bits set. */
export function parseIpv4Cidr(text: string): Ipv4Range | undefined {
  if (typeof text !== 'string' || !/^\d{1,3}(\.\d{1,3}){3}\/\d{1,2}$/.test(text)) return undefined;
  try {
    const [addr, prefix] = ipaddr.IPv4.parseCIDR(text);
    const start = toNumber(addr);
    const r = { start, prefix };
    return start % size(r) === 0 ? r : undefined;
  } catch {
    return undefined;
  }
}

export const overlaps = (a: Ipv4Range, b: Ipv4Range) => a.start < b.start + size(b) && b.start < a.start + size(a);
export const contains = (outer: Ipv4Range, inner: Ipv4Range) => inner.start >= outer.start && inner.start + size(inner) <= outer.start + size(outer);
export const cidrText = (r: Ipv4Range) => `${toText(r.start)}/${r.prefix}`;
/** The gateway of a subnetwork's range: its first host address. */
export const gatewayOf = (r: Ipv4Range) => toText(r.start + 1);
/** The `n`th address of a range (0: the network address). */
export const addressAt = (r: Ipv4Range, n: number) => toText(r.start + n);
export const addressCount = size;

/** Ranges no subnetwork may take: this network, loopback, link-local, multicast and above. */
const RESERVED = ['0.0.0.0/8', '127.0.0.0/8', '169.254.0.0/16', '224.0.0.0/3'].map((t) => parseIpv4Cidr(t)!);
export const isReserved = (r: Ipv4Range) => RESERVED.some((x) => overlaps(x, r));
