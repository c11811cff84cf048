// Browser-key (HTTP referrer) restrictions: pattern grammar, validation, and
// precompiled matchers.
//
// Pattern grammar (ASCII only, 1..2048 chars, no whitespace/control chars):
//
//   pattern  = "*"                                   ; any non-empty referer
//            | [ scheme "://" ] host [ ":" port ] [ path ]
//   scheme   = "http" | "https"                      ; case-insensitive
//   host     = "*"                                   ; any host
//            | "*." dnsname                          ; strict subdomains, any depth
//            | dnsname | ipv4 | "[" ipv6 "]"
//   dnsname  = label *( "." label )                  ; label: [A-Za-z0-9] with inner
//                                                    ; hyphens, 1..63 chars; <= 253
//                                                    ; total; a last label that is
//                                                    ; all digits must be a full IPv4
//   port     = 1..65535, decimal, no leading zero    ; "*" ports are not supported
//   path     = "/" *pchar [ "*" ]                    ; "*" only as the last char,
//                                                    ; no "?" or "#"
//
// Semantics:
// - no scheme: http and https (and scheme-less referers) match; with a scheme
//   only that scheme matches;
// - hosts compare case-insensitively; `*.h` matches `x.h`, `x.y.h`, ... but
//   never `h` itself;
// - with a port, the referer's effective port (explicit, else 80/443 by scheme)
//   must be equal; without a port any port matches;
// - no path means "/*"; a path ending in "*" is a case-sensitive prefix match
//   on the referer's path; any other path must equal the referer's path
//   exactly; the referer's query and fragment are ignored; an empty referer
//   path counts as "/";
// - an empty or unparsable referer matches nothing; the lone pattern "*"
//   matches any non-empty referer (even one that does not parse as a URL).

import ipaddr from 'ipaddr.js';
import { parseIpv4 } from './ip.ts';

export const MAX_REFERRER_PATTERN_LENGTH = 2048;

export interface ReferrerPattern {
  /** The lone "*" pattern. */
  readonly matchAll: boolean;
  /** '' = http, https or scheme-less referers. */
  readonly scheme: '' | 'http' | 'https';
  readonly hostKind: 'any' | 'exact' | 'subdomains';
  /** Lowercase host; for 'subdomains' the suffix after "*."; IPv6 as "[canonical]". */
  readonly host: string;
  /** 0 = any port. */
  readonly port: number;
  /** Exact path, or the prefix when pathPrefix is true. */
  readonly path: string;
  readonly pathPrefix: boolean;
}

export type ParsePatternResult =
  | { ok: true; pattern: ReferrerPattern }
  | { ok: false; reason: string };

export const WILDCARD_REASON =
  'a wildcard may only replace a whole leading subdomain label or a trailing path';

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const ALL_DIGITS = /^[0-9]+$/;
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;
// Visible ASCII except the characters handled separately.
const PATH_CHARS = /^\/[\x21-\x22\x24-\x29\x2b-\x3e\x40-\x7e]*\*?$/;
const FORBIDDEN_CHARS = /[\s\x00-\x1f\x7f]/;
const NON_ASCII = /[^\x00-\x7f]/;

function dnsNameProblem(name: string, wildcard: boolean): string | null {
  if (name.length === 0) return 'the host is missing';
  if (name.length > 253) return 'the host name is longer than 253 characters';
  const labels = name.split('.');
  for (const label of labels) {
    if (label.indexOf('*') >= 0) return WILDCARD_REASON;
    if (label.length === 0) return 'the host name has an empty label';
    if (label.length > 63) return 'a host name label is longer than 63 characters';
    if (!LABEL.test(label)) {
      return 'host name labels may only contain letters, digits and inner hyphens';
    }
  }
  if (ALL_DIGITS.test(labels[labels.length - 1])) {
    if (wildcard) return WILDCARD_REASON;
    if (parseIpv4(name) < 0) return 'the host is not a valid IPv4 address or host name';
  }
  return null;
}

function parsePort(s: string): number {
  if (s.length === 0 || s.length > 5 || s.charCodeAt(0) === 48) return -1;
  let v = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    v = v * 10 + (c - 48);
  }
  return v >= 1 && v <= 65535 ? v : -1;
}

function canonicalV6(inner: string): string | null {
  if (inner.indexOf(':') < 0 || inner.indexOf('%') >= 0) return null;
  if (!ipaddr.IPv6.isValid(inner)) return null;
  try {
    return '[' + ipaddr.IPv6.parse(inner).toRFC5952String() + ']';
  } catch {
    return null;
  }
}

/** Parses and validates one allowedReferrers entry. */
export function parseReferrerPattern(input: unknown): ParsePatternResult {
  if (typeof input !== 'string') return { ok: false, reason: 'must be a string' };
  const p = input;
  if (p.length === 0) return { ok: false, reason: 'must not be empty' };
  if (p.length > MAX_REFERRER_PATTERN_LENGTH) {
    return { ok: false, reason: `must be at most ${MAX_REFERRER_PATTERN_LENGTH} characters long` };
  }
  if (FORBIDDEN_CHARS.test(p)) {
    return { ok: false, reason: 'must not contain whitespace or control characters' };
  }
  if (NON_ASCII.test(p)) {
    return { ok: false, reason: 'must be ASCII; write internationalized domain names in punycode' };
  }
  if (p === '*') {
    return {
      ok: true,
      pattern: { matchAll: true, scheme: '', hostKind: 'any', host: '', port: 0, path: '/', pathPrefix: true },
    };
  }

  let rest = p;
  let scheme: '' | 'http' | 'https' = '';
  const m = SCHEME.exec(p);
  if (m !== null) {
    const s = m[1].toLowerCase();
    if (s !== 'http' && s !== 'https') {
      return { ok: false, reason: `the scheme '${m[1]}' is not supported; use http, https or no scheme` };
    }
    scheme = s;
    rest = p.slice(m[0].length);
  } else if (p.indexOf('://') >= 0) {
    const before = p.slice(0, p.indexOf('://'));
    if (before.indexOf('/') < 0) {
      if (before.indexOf('*') >= 0) return { ok: false, reason: 'the scheme may not be a wildcard' };
      return { ok: false, reason: `the scheme '${before}' is not supported; use http, https or no scheme` };
    }
  }

  const slash = rest.indexOf('/');
  const authority = slash < 0 ? rest : rest.slice(0, slash);
  const rawPath = slash < 0 ? '' : rest.slice(slash);

  if (authority.indexOf('?') >= 0 || authority.indexOf('#') >= 0 ||
      rawPath.indexOf('?') >= 0 || rawPath.indexOf('#') >= 0) {
    return { ok: false, reason: 'must not contain a query or a fragment' };
  }
  if (authority.indexOf('@') >= 0) {
    return { ok: false, reason: 'must not contain user information' };
  }
  if (authority.length === 0) return { ok: false, reason: 'the host is missing' };

  // Split host and port.
  let hostPart: string;
  let portPart: string | null = null;
  if (authority.charCodeAt(0) === 91 /* [ */) {
    const close = authority.indexOf(']');
    if (close < 0) return { ok: false, reason: 'the IPv6 host is missing its closing bracket' };
    hostPart = authority.slice(0, close + 1);
    const after = authority.slice(close + 1);
    if (after.length > 0) {
      if (after.charCodeAt(0) !== 58 /* : */) return { ok: false, reason: 'unexpected text after the IPv6 host' };
      portPart = after.slice(1);
    }
  } else {
    const colon = authority.indexOf(':');
    if (colon >= 0) {
      if (authority.indexOf(':', colon + 1) >= 0) {
        return { ok: false, reason: 'IPv6 hosts must be enclosed in square brackets' };
      }
      hostPart = authority.slice(0, colon);
      portPart = authority.slice(colon + 1);
    } else {
      hostPart = authority;
    }
  }

  let port = 0;
  if (portPart !== null) {
    if (portPart.indexOf('*') >= 0) return { ok: false, reason: 'the port may not be a wildcard' };
    port = parsePort(portPart);
    if (port < 0) return { ok: false, reason: 'the port must be a number from 1 to 65535' };
  }

  let hostKind: 'any' | 'exact' | 'subdomains';
  let host: string;
  if (hostPart === '*') {
    hostKind = 'any';
    host = '';
  } else if (hostPart.charCodeAt(0) === 91) {
    const canon = canonicalV6(hostPart.slice(1, -1));
    if (canon === null) return { ok: false, reason: 'the bracketed host is not a valid IPv6 address' };
    hostKind = 'exact';
    host = canon;
  } else if (hostPart.startsWith('*.')) {
    const suffix = hostPart.slice(2).toLowerCase();
    const problem = dnsNameProblem(suffix, true);
    if (problem !== null) return { ok: false, reason: problem };
    hostKind = 'subdomains';
    host = suffix;
  } else {
    const lower = hostPart.toLowerCase();
    const problem = dnsNameProblem(lower, false);
    if (problem !== null) return { ok: false, reason: problem };
    hostKind = 'exact';
    host = lower;
  }

  let path = '/';
  let pathPrefix = true;
  if (rawPath.length > 0) {
    const star = rawPath.indexOf('*');
    if (star >= 0 && star !== rawPath.length - 1) return { ok: false, reason: WILDCARD_REASON };
    if (!PATH_CHARS.test(rawPath)) return { ok: false, reason: 'the path contains characters that are not allowed' };
    if (star >= 0) {
      path = rawPath.slice(0, -1);
      pathPrefix = true;
    } else {
      path = rawPath;
      pathPrefix = false;
    }
  }

  return { ok: true, pattern: { matchAll: false, scheme, hostKind, host, port, path, pathPrefix } };
}

/** Null when valid, else a reason. */
export function referrerPatternProblem(p: unknown): string | null {
  const r = parseReferrerPattern(p);
  return r.ok ? null : r.reason;
}

export interface ParsedReferer {
  /** Lowercase scheme; '' when the referer has none. */
  scheme: string;
  /** Lowercase host; bracketed canonical IPv6. */
  host: string;
  /** Explicit port, else 80/443 for http/https, else 0 (unknown). */
  port: number;
  /** Path without query/fragment; "/" when empty. */
  path: string;
}

function isSchemeChar(c: number, first: boolean): boolean {
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) return true;
  if (first) return false;
  return (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46;
}

/**
 * Parses a Referer header value. Returns null when empty or unparsable.
 * Accepts absolute URLs and, leniently, scheme-less `host[:port][/path]`.
 */
export function parseReferer(r: string): ParsedReferer | null {
  if (typeof r !== 'string') return null;
  const n = r.length;
  if (n === 0) return null;
  let i = 0;
  while (i < n && isSchemeChar(r.charCodeAt(i), i === 0)) i++;
  let scheme = '';
  let authStart = 0;
  if (i > 0 && i + 2 < n && r.charCodeAt(i) === 58 && r.charCodeAt(i + 1) === 47 && r.charCodeAt(i + 2) === 47) {
    scheme = r.slice(0, i).toLowerCase();
    authStart = i + 3;
  }
  let authEnd = authStart;
  while (authEnd < n) {
    const c = r.charCodeAt(authEnd);
    if (c === 47 || c === 63 || c === 35) break; // / ? #
    authEnd++;
  }
  let hostStart = authStart;
  const at = r.lastIndexOf('@', authEnd - 1);
  if (at >= authStart) hostStart = at + 1;
  if (hostStart >= authEnd) return null;

  let host: string;
  let portStart = -1;
  if (r.charCodeAt(hostStart) === 91) {
    const close = r.indexOf(']', hostStart);
    if (close < 0 || close >= authEnd) return null;
    const canon = canonicalV6(r.slice(hostStart + 1, close));
    if (canon === null) return null;
    host = canon;
    if (close + 1 < authEnd) {
      if (r.charCodeAt(close + 1) !== 58) return null;
      portStart = close + 2;
    }
  } else {
    const colon = r.indexOf(':', hostStart);
    const hostEnd = colon >= 0 && colon < authEnd ? colon : authEnd;
    if (hostEnd === hostStart) return null;
    host = r.slice(hostStart, hostEnd).toLowerCase();
    if (hostEnd < authEnd) portStart = hostEnd + 1;
  }

  let port = 0;
  if (portStart >= 0 && portStart < authEnd) {
    if (authEnd - portStart > 5) return null;
    for (let k = portStart; k < authEnd; k++) {
      const c = r.charCodeAt(k);
      if (c < 48 || c > 57) return null;
      port = port * 10 + (c - 48);
    }
    if (port < 1 || port > 65535) return null;
  }
  if (port === 0) port = scheme === 'http' ? 80 : scheme === 'https' ? 443 : 0;

  let pathEnd = authEnd;
  while (pathEnd < n) {
    const c = r.charCodeAt(pathEnd);
    if (c === 63 || c === 35) break;
    pathEnd++;
  }
  const path = pathEnd > authEnd && r.charCodeAt(authEnd) === 47 ? r.slice(authEnd, pathEnd) : '/';
  return { scheme, host, port, path };
}

function hostMatches(p: ReferrerPattern, host: string): boolean {
  if (p.hostKind === 'any') return true;
  if (p.hostKind === 'exact') return host === p.host;
  const h = p.host;
  return host.length > h.length + 1 && host.endsWith(h) &&
    host.charCodeAt(host.length - h.length - 1) === 46;
}

/** Matches everything but the host (the host is matched by the caller). */
function restMatches(p: ReferrerPattern, r: ParsedReferer): boolean {
  if (p.scheme === '') {
    if (r.scheme !== '' && r.scheme !== 'http' && r.scheme !== 'https') return false;
  } else if (r.scheme !== p.scheme) {
    return false;
  }
  if (p.port !== 0 && r.port !== p.port) return false;
  return p.pathPrefix ? r.path.startsWith(p.path) : r.path === p.path;
}

/** Whether a parsed pattern matches a parsed referer. */
export function patternMatches(p: ReferrerPattern, r: ParsedReferer): boolean {
  if (p.matchAll) return true;
  return hostMatches(p, r.host) && restMatches(p, r);
}

/**
 * Compiles one pattern into a matcher. Throws a TypeError for an invalid
 * pattern (validate first with parseReferrerPattern).
 */
export function compileReferrerPattern(pattern: string): (referer: string) => boolean {
  const res = parseReferrerPattern(pattern);
  if (!res.ok) throw new TypeError(`Invalid referrer pattern '${pattern}': ${res.reason}.`);
  const p = res.pattern;
  if (p.matchAll) return (referer) => typeof referer === 'string' && referer.length > 0;
  return (referer) => {
    const r = parseReferer(referer);
    return r !== null && patternMatches(p, r);
  };
}

/**
 * Compiles a whole allowedReferrers list: the referer is parsed once per call
 * and candidate patterns are found by host lookup (exact host, then every
 * parent domain for `*.` patterns), so the cost does not grow with the number
 * of patterns for other hosts. Invalid patterns are ignored (match nothing).
 */
export function compileReferrerPatterns(patterns: readonly string[]): (referer: string) => boolean {
  let matchAll = false;
  const exact = new Map<string, ReferrerPattern[]>();
  const subdomains = new Map<string, ReferrerPattern[]>();
  const anyHost: ReferrerPattern[] = [];
  for (const s of patterns) {
    const res = parseReferrerPattern(s);
    if (!res.ok) continue;
    const p = res.pattern;
    if (p.matchAll) {
      matchAll = true;
    } else if (p.hostKind === 'any') {
      anyHost.push(p);
    } else {
      const map = p.hostKind === 'exact' ? exact : subdomains;
      const list = map.get(p.host);
      if (list === undefined) map.set(p.host, [p]);
      else list.push(p);
    }
  }
  const hasSubdomains = subdomains.size > 0;
  return (referer: string): boolean => {
    if (typeof referer !== 'string' || referer.length === 0) return false;
    if (matchAll) return true;
    const r = parseReferer(referer);
    if (r === null) return false;
    const list = exact.get(r.host);
    if (list !== undefined) {
      for (const p of list) if (restMatches(p, r)) return true;
    }
    for (const p of anyHost) if (restMatches(p, r)) return true;
    if (hasSubdomains && r.host.charCodeAt(0) !== 91) {
      let dot = r.host.indexOf('.');
      while (dot >= 0) {
        const cands = subdomains.get(r.host.slice(dot + 1));
        if (cands !== undefined && dot > 0) {
          for (const p of cands) if (restMatches(p, r)) return true;
        }
        dot = r.host.indexOf('.', dot + 1);
      }
    }
    return false;
  };
}
