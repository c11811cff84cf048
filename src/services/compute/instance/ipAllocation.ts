/**
 * Internal IPv4 addresses of a subnetwork: which a VM may have, and the first free one. Compute
 * keeps four addresses of every primary range for itself: the network address, the gateway (the
 * first host), the second-to-last address and the broadcast address.
 */
import { type Ipv4Range, addressAt, addressCount, parseIpv4Cidr } from '../network/cidr.ts';

const toNumber = (ip: string) => ip.split('.').reduce((n, o) => n * 256 + Number(o), 0);
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;

export const isIpv4 = (v: unknown): v is string => typeof v === 'string' && IPV4.test(v);

/** Why `ip` cannot be a VM's address in `range` (`10.0.0.0/24`), or undefined when it can. */
export function unusableAddress(range: string, ip: string): string | undefined {
  const r = parseIpv4Cidr(range);
  if (!r || !isIpv4(ip)) return `IP address '${ip}' is not a valid IPv4 address.`;
  const n = toNumber(ip) - r.start;
  const size = addressCount(r);
  if (n < 0 || n >= size) return `Requested internal IP address '${ip}' is outside the subnetwork CIDR range '${range}'.`;
  if (n === 0 || n === 1 || n === size - 2 || n === size - 1) return `Requested internal IP address '${ip}' is reserved in the subnetwork CIDR range '${range}'.`;
  return undefined;
}

/** The lowest address of `range` a VM may have that `taken` does not hold; undefined when the range is full. */
export function firstFreeAddress(range: string, taken: ReadonlySet<string>): string | undefined {
  const r: Ipv4Range | undefined = parseIpv4Cidr(range);
  if (!r) return undefined;
  const size = addressCount(r);
  for (let n = 2; n < size - 2; n++) {
    const ip = addressAt(r, n);
    if (!taken.has(ip)) return ip;
  }
  return undefined;
}
