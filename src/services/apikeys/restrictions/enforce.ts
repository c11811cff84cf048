// Enforcement of stored key restrictions on API calls (hot path).
//
// compileRestrictions() does all parsing up front (referrer index, IP masks,
// Android/iOS sets, lowercase service map, lowercase method patterns); check()
// does no regex work and, except for the referer and Android-certificate
// normalization, no allocation.
//
// Order of checks: the application restriction (referrer / IP / Android /
// iOS) is checked first, then the API targets. So a call from a disallowed
// origin to a disallowed API reports the origin failure (API_KEY_*_BLOCKED for
// the app kind), and API_KEY_SERVICE_BLOCKED is only reported to callers that
// passed the application check. Rationale: the origin check does not depend on
// which API is called, and telling an unauthorized origin which APIs the key
// allows would leak configuration.
//
// Robustness: compileRestrictions accepts what validateRestrictions stores,
// but does not trust it blindly: invalid entries are skipped (match nothing),
// an application-restriction list that is empty counts as absent (as in
// validation), and if more than one application kind is present (which
// validation forbids) every present kind must pass (fail closed). An API
// target whose `methods` are all invalid allows no method (fail closed).

import { compileIpMatcher } from './ip.ts';
import { compileReferrerPatterns } from './referrer.ts';
import type { Restrictions } from './types.ts';
import { isValidMethodPattern, normalizeSha1Fingerprint } from './validate.ts';

export interface RequestOrigin {
  /** Service name, e.g. "youtube.googleapis.com". */
  service: string;
  /** Full ("youtube.api.v3.V3DataSearchService.List") or short ("List") method name. */
  method: string;
  referer?: string;
  ip?: string;
  androidPackage?: string;
  /** SHA-1 hex, with or without colons, any case. */
  androidCert?: string;
  iosBundleId?: string;
}

export type RestrictionFailure =
  | { reason: 'API_KEY_SERVICE_BLOCKED' }
  | { reason: 'API_KEY_HTTP_REFERRER_BLOCKED' }
  | { reason: 'API_KEY_IP_ADDRESS_BLOCKED' }
  | { reason: 'API_KEY_ANDROID_APP_BLOCKED' }
  | { reason: 'API_KEY_IOS_APP_BLOCKED' };

export interface CompiledRestrictions {
  check(origin: RequestOrigin): RestrictionFailure | null;
}

// Shared, frozen failure values: check() never allocates them.
const SERVICE_BLOCKED: RestrictionFailure = Object.freeze({ reason: 'API_KEY_SERVICE_BLOCKED' as const });
const REFERRER_BLOCKED: RestrictionFailure = Object.freeze({ reason: 'API_KEY_HTTP_REFERRER_BLOCKED' as const });
const IP_BLOCKED: RestrictionFailure = Object.freeze({ reason: 'API_KEY_IP_ADDRESS_BLOCKED' as const });
const ANDROID_BLOCKED: RestrictionFailure = Object.freeze({ reason: 'API_KEY_ANDROID_APP_BLOCKED' as const });
const IOS_BLOCKED: RestrictionFailure = Object.freeze({ reason: 'API_KEY_IOS_APP_BLOCKED' as const });

type AppCheck = (o: RequestOrigin) => RestrictionFailure | null;

interface MethodPattern {
  /** Lowercase pattern text without the trailing "*". */
  readonly text: string;
  readonly prefix: boolean;
}

interface CompiledTarget {
  readonly allMethods: boolean;
  readonly patterns: readonly MethodPattern[];
}

/** ASCII case-insensitive match of s[start..] against a lowercase pattern. */
function methodMatchesAt(p: MethodPattern, s: string, start: number): boolean {
  const text = p.text;
  const len = s.length - start;
  if (p.prefix ? len < text.length : len !== text.length) return false;
  for (let i = 0; i < text.length; i++) {
    let c = s.charCodeAt(start + i);
    if (c >= 65 && c <= 90) c += 32;
    if (c !== text.charCodeAt(i)) return false;
  }
  return true;
}

function hasUpperAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 65 && c <= 90) return true;
  }
  return false;
}

function compileTarget(service: string, methods: readonly string[] | undefined): CompiledTarget {
  if (methods === undefined || methods === null || methods.length === 0) {
    return { allMethods: true, patterns: [] };
  }
  const patterns: MethodPattern[] = [];
  const servicePrefix = service + '.';
  for (const m of methods) {
    if (!isValidMethodPattern(m)) continue;
    let lower = m.toLowerCase();
    // `translate.googleapis.com.Get*` names the method relative to its service.
    if (lower.length > servicePrefix.length && lower.startsWith(servicePrefix)) {
      lower = lower.slice(servicePrefix.length);
    }
    const prefix = lower.endsWith('*');
    patterns.push({ text: prefix ? lower.slice(0, -1) : lower, prefix });
  }
  return { allMethods: false, patterns };
}

function nonEmpty<T>(list: readonly T[] | undefined | null): list is readonly T[] {
  return Array.isArray(list) && list.length > 0;
}

export function compileRestrictions(r: Restrictions): CompiledRestrictions {
  const appChecks: AppCheck[] = [];

  const referrers = r?.browserKeyRestrictions?.allowedReferrers;
  if (nonEmpty(referrers)) {
    const match = compileReferrerPatterns(referrers);
    appChecks.push((o) => (o.referer !== undefined && match(o.referer) ? null : REFERRER_BLOCKED));
  }

  const ips = r?.serverKeyRestrictions?.allowedIps;
  if (nonEmpty(ips)) {
    const match = compileIpMatcher(ips);
    appChecks.push((o) => (o.ip !== undefined && match(o.ip) ? null : IP_BLOCKED));
  }

  const apps = r?.androidKeyRestrictions?.allowedApplications;
  if (nonEmpty(apps)) {
    const byPackage = new Map<string, Set<string>>();
    for (const a of apps) {
      if (a === null || typeof a !== 'object' || typeof a.packageName !== 'string') continue;
      const fp = normalizeSha1Fingerprint(a.sha1Fingerprint);
      if (fp === null) continue;
      let set = byPackage.get(a.packageName);
      if (set === undefined) byPackage.set(a.packageName, (set = new Set()));
      set.add(fp);
    }
    appChecks.push((o) => {
      const pkg = o.androidPackage;
      const cert = o.androidCert;
      if (pkg === undefined || cert === undefined || cert.length === 0) return ANDROID_BLOCKED;
      const set = byPackage.get(pkg);
      if (set === undefined) return ANDROID_BLOCKED;
      // 40 hex digits, or 20 colon-separated pairs (59 chars).
      let norm: string;
      if (cert.length === 40) norm = cert.toUpperCase();
      else if (cert.length === 59) norm = cert.replaceAll(':', '').toUpperCase();
      else return ANDROID_BLOCKED;
      return set.has(norm) ? null : ANDROID_BLOCKED;
    });
  }

  const bundles = r?.iosKeyRestrictions?.allowedBundleIds;
  if (nonEmpty(bundles)) {
    const set = new Set<string>(bundles.filter((b) => typeof b === 'string'));
    appChecks.push((o) => (o.iosBundleId !== undefined && set.has(o.iosBundleId) ? null : IOS_BLOCKED));
  }

  let targets: Map<string, CompiledTarget> | null = null;
  const apiTargets = r?.apiTargets;
  if (nonEmpty(apiTargets)) {
    targets = new Map();
    for (const t of apiTargets) {
      if (t === null || typeof t !== 'object' || typeof t.service !== 'string' || t.service.length === 0) continue;
      const service = t.service.toLowerCase();
      const compiled = compileTarget(service, t.methods);
      const prev = targets.get(service);
      if (prev === undefined) targets.set(service, compiled);
      else if (!prev.allMethods) {
        // Duplicate service (validation forbids it): union of the permissions.
        targets.set(service, compiled.allMethods ? compiled : { allMethods: false, patterns: [...prev.patterns, ...compiled.patterns] });
      }
    }
  }

  const app0 = appChecks.length > 0 ? appChecks[0] : null;
  const appMore = appChecks.length > 1 ? appChecks.slice(1) : null;
  const tmap = targets;

  return {
    check(o: RequestOrigin): RestrictionFailure | null {
      if (app0 !== null) {
        const f = app0(o);
        if (f !== null) return f;
        if (appMore !== null) {
          for (const c of appMore) {
            const g = c(o);
            if (g !== null) return g;
          }
        }
      }
      if (tmap !== null) {
        const service = o.service;
        if (typeof service !== 'string') return SERVICE_BLOCKED;
        let t = tmap.get(service);
        if (t === undefined && hasUpperAscii(service)) t = tmap.get(service.toLowerCase());
        if (t === undefined) return SERVICE_BLOCKED;
        if (t.allMethods) return null;
        const method = o.method;
        if (typeof method !== 'string' || method.length === 0) return SERVICE_BLOCKED;
        const lastDot = method.lastIndexOf('.');
        for (const p of t.patterns) {
          if (methodMatchesAt(p, method, 0)) return null;
          if (lastDot >= 0 && methodMatchesAt(p, method, lastDot + 1)) return null;
        }
        return SERVICE_BLOCKED;
      }
      return null;
    },
  };
}

/** Compiled form of "no restrictions". */
export const UNRESTRICTED: CompiledRestrictions = Object.freeze({ check: () => null });
