// Server-key (IP address) restrictions: validation of allowedIps entries and a
// precompiled matcher for caller addresses.
//
// Entry grammar: a strict IPv4 dotted quad (no leading zeros, exactly four
// parts), an IPv6 address (any RFC 4291 text form ipaddr.js accepts, without a
// zone id), or either one followed by `/<prefix>` (IPv4 0..32, IPv6 0..128,
// decimal without leading zeros). Host bits set below the prefix are accepted
// and ignored (`10.1.2.3/8` behaves as `10.0.0.0/8`); the entry is stored as
// given.
//
// IPv4/IPv6 interplay: an IPv4-mapped IPv6 caller (`::ffff:1.2.3.4`, as Node
// reports IPv4 peers on dual-stack sockets) is matched as its IPv4 address.
// Symmetrically, an IPv6 entry lying inside `::ffff:0:0/96` (prefix >= 96) is
// compiled into the equivalent IPv4 entry. Other IPv6 entries (e.g. `::/0`)
// match IPv6 callers only, and IPv4 entries match IPv4 callers only.

import ipaddr from 'ipaddr.js';

export type ParsedIpEntry =
  | { kind: 'v4'; addr: number; prefix: number }
  | { kind: 'v6'; words: [number, number, number, number]; prefix: number };

/**
 * Parses a strict IPv4 dotted quad in s[start, end). Returns the address as an
 * unsigned 32-bit number, or -1. Allocation-free.
 */
export function parseIpv4(s: string, start = 0, end = s.length): number {
  let addr = 0;
  let parts = 0;
  let i = start;
  while (parts < 4) {
    let value = 0;
    let digits = 0;
    const first = i;
    while (i < end) {
      const c = s.charCodeAt(i);
      if (c < 48 || c > 57) break;
      value = value * 10 + (c - 48);
      digits++;
      i++;
      if (digits > 3) return -1;
    }
    if (digits === 0 || value > 255) return -1;
    if (digits > 1 && s.charCodeAt(first) === 48) return -1; // leading zero
    addr = addr * 256 + value;
    parts++;
    if (parts < 4) {
      if (i >= end || s.charCodeAt(i) !== 46 /* . */) return -1;
      i++;
    }
  }
  return i === end ? addr : -1;
}

function wordsOfV6(addr: ipaddr.IPv6): [number, number, number, number] {
  const p = addr.parts;
  return [
    ((p[0] << 16) | p[1]) >>> 0,
    ((p[2] << 16) | p[3]) >>> 0,
    ((p[4] << 16) | p[5]) >>> 0,
    ((p[6] << 16) | p[7]) >>> 0,
  ];
}

function parseV6(s: string): ipaddr.IPv6 | null {
  if (s.indexOf(':') < 0 || s.indexOf('%') >= 0) return null;
  if (!ipaddr.IPv6.isValid(s)) return null;
  try {
    return ipaddr.IPv6.parse(s);
  } catch {
    return null;
  }
}

function parsePrefix(s: string, max: number): number {
  if (s.length === 0 || s.length > 3) return -1;
  if (s.length > 1 && s.charCodeAt(0) === 48) return -1;
  let v = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    v = v * 10 + (c - 48);
  }
  return v <= max ? v : -1;
}

const WHITESPACE = /\s/;

/**
 * Checks one allowedIps entry. Returns null when valid, otherwise a
 * human-readable reason (without the entry itself).
 */
export function ipEntryProblem(entry: unknown): string | null {
  if (typeof entry !== 'string') return 'must be a string';
  if (entry.length === 0) return 'must not be empty';
  if (WHITESPACE.test(entry)) return 'must not contain whitespace';
  if (entry.toLowerCase() === 'localhost') {
    return "'localhost' is not supported; use 127.0.0.1 or ::1";
  }
  const slash = entry.indexOf('/');
  const addrPart = slash < 0 ? entry : entry.slice(0, slash);
  const prefixPart = slash < 0 ? null : entry.slice(slash + 1);
  if (parseIpv4(addrPart) >= 0) {
    if (prefixPart !== null && parsePrefix(prefixPart, 32) < 0) {
      return 'the prefix length of an IPv4 CIDR block must be a number from 0 to 32';
    }
    return null;
  }
  if (parseV6(addrPart) !== null) {
    if (prefixPart !== null && parsePrefix(prefixPart, 128) < 0) {
      return 'the prefix length of an IPv6 CIDR block must be a number from 0 to 128';
    }
    return null;
  }
  if (addrPart.indexOf('%') >= 0) return 'IPv6 zone identifiers are not supported';
  return 'must be an IPv4 address, an IPv6 address, or a CIDR block; host names are not supported';
}

/** Parses a valid allowedIps entry; null when invalid. */
export function parseIpEntry(entry: string): ParsedIpEntry | null {
  if (ipEntryProblem(entry) !== null) return null;
  const slash = entry.indexOf('/');
  const addrPart = slash < 0 ? entry : entry.slice(0, slash);
  const v4 = parseIpv4(addrPart);
  if (v4 >= 0) {
    const prefix = slash < 0 ? 32 : parsePrefix(entry.slice(slash + 1), 32);
    return { kind: 'v4', addr: v4, prefix };
  }
  const v6 = parseV6(addrPart)!;
  const prefix = slash < 0 ? 128 : parsePrefix(entry.slice(slash + 1), 128);
  return { kind: 'v6', words: wordsOfV6(v6), prefix };
}

function maskOf(bits: number): number {
  // bits in 0..32
  return bits <= 0 ? 0 : bits >= 32 ? 0xffffffff : (0xffffffff << (32 - bits)) >>> 0;
}

/**
 * Compiles allowedIps entries into a matcher. Invalid entries are ignored
 * (they match nothing). The returned function is allocation-free for IPv4 and
 * `::ffff:`-mapped callers; an unparsable caller address never matches.
 */
export function compileIpMatcher(entries: readonly string[]): (ip: string) => boolean {
  const v4Exact = new Set<number>();
  const v4Nets: number[] = []; // pairs: network, mask
  const v6Nets: number[] = []; // groups of 8: 4 network words, 4 mask words
  for (const e of entries) {
    const parsed = parseIpEntry(e);
    if (parsed === null) continue;
    let kind = parsed.kind;
    let addr = 0;
    let prefix = parsed.prefix;
    if (parsed.kind === 'v6') {
      const w = parsed.words;
      if (prefix >= 96 && w[0] === 0 && w[1] === 0 && w[2] === 0x0000ffff) {
        kind = 'v4';
        addr = w[3];
        prefix -= 96;
      } else {
        for (let i = 0; i < 4; i++) {
          const mask = maskOf(prefix - 32 * i);
          v6Nets.push((w[i] & mask) >>> 0);
        }
        for (let i = 0; i < 4; i++) v6Nets.push(maskOf(prefix - 32 * i));
        continue;
      }
    } else {
      addr = parsed.addr;
    }
    if (kind === 'v4') {
      if (prefix === 32) v4Exact.add(addr);
      else {
        const mask = maskOf(prefix);
        v4Nets.push((addr & mask) >>> 0, mask);
      }
    }
  }

  const matchV4 = (a: number): boolean => {
    if (v4Exact.has(a)) return true;
    for (let i = 0; i < v4Nets.length; i += 2) {
      if (((a & v4Nets[i + 1]) >>> 0) === v4Nets[i]) return true;
    }
    return false;
  };

  return (ip: string): boolean => {
    if (typeof ip !== 'string' || ip.length === 0) return false;
    let a = parseIpv4(ip);
    if (a >= 0) return matchV4(a);
    // Fast path for the dual-stack form Node reports: ::ffff:a.b.c.d
    if (ip.length > 7 && ip.charCodeAt(0) === 58 && ip.charCodeAt(1) === 58 &&
        (ip.charCodeAt(2) | 32) === 102 && (ip.charCodeAt(3) | 32) === 102 &&
        (ip.charCodeAt(4) | 32) === 102 && (ip.charCodeAt(5) | 32) === 102 &&
        ip.charCodeAt(6) === 58) {
      a = parseIpv4(ip, 7);
      if (a >= 0) return matchV4(a);
    }
    if (ip.indexOf(':') < 0) return false;
    let v6: ipaddr.IPv6;
    try {
      if (!ipaddr.IPv6.isValid(ip)) return false;
      v6 = ipaddr.IPv6.parse(ip);
    } catch {
      return false;
    }
    const p = v6.parts;
    const w0 = ((p[0] << 16) | p[1]) >>> 0;
    const w1 = ((p[2] << 16) | p[3]) >>> 0;
    const w2 = ((p[4] << 16) | p[5]) >>> 0;
    const w3 = ((p[6] << 16) | p[7]) >>> 0;
    if (w0 === 0 && w1 === 0 && w2 === 0x0000ffff) return matchV4(w3);
    for (let i = 0; i < v6Nets.length; i += 8) {
      if (((w0 & v6Nets[i + 4]) >>> 0) === v6Nets[i] &&
          ((w1 & v6Nets[i + 5]) >>> 0) === v6Nets[i + 1] &&
          ((w2 & v6Nets[i + 6]) >>> 0) === v6Nets[i + 2] &&
          ((w3 & v6Nets[i + 7]) >>> 0) === v6Nets[i + 3]) {
        return true;
      }
    }
    return false;
  };
}
