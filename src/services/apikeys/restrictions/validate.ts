// Validation and normalization of google.api.apikeys.v2.Restrictions as
// received on the wire (create/patch bodies). Pure: no I/O, no clock.
//
// Decisions where the contract is silent:
// - Input is untrusted JSON: wrong types produce violations, never throws.
// - Both proto3 JSON spellings are accepted (`allowedReferrers` and
//   `allowed_referrers`); the normalized output always uses lowerCamelCase.
//   JSON `null` counts as absent. Unknown field names are violations.
// - The four application restriction kinds form a proto `oneof`: two kinds
//   present (even as empty objects) is a violation, as for the real API.
// - Empty parts are dropped from the normalized value (an empty list of
//   referrers is no restriction at all; `{}` means unrestricted). An ApiTarget
//   with an empty `methods` list allows every method and is stored without
//   `methods`.
// - Referrers, IPs and bundle ids are stored exactly as given; Android
//   fingerprints are stored as uppercase hex without colons; API target
//   services are stored lowercase; method patterns are stored as given
//   (they are compared case-insensitively).
// - Duplicate list entries are accepted (and count towards the 1200 limit);
//   duplicate API target services are a violation.
// - At most MAX_REPORTED_VIOLATIONS violations are reported per call, so a
//   huge invalid list cannot produce an unbounded error body.

import { quote } from '../rules.ts';
import { ipEntryProblem } from './ip.ts';
import { parseReferrerPattern } from './referrer.ts';
import type { AndroidApplication, ApiTarget, FieldViolation, Restrictions } from './types.ts';

export const MAX_APPLICATION_RESTRICTION_ENTRIES = 1200;
export const MAX_REPORTED_VIOLATIONS = 100;
export const MAX_ANDROID_PACKAGE_NAME_LENGTH = 256;
export const MAX_IOS_BUNDLE_ID_LENGTH = 155;
export const MAX_SERVICE_NAME_LENGTH = 253;
export const MAX_METHOD_PATTERN_LENGTH = 512;

export type ValidateRestrictionsResult =
  | { ok: true; value: Restrictions }
  | { ok: false; violations: FieldViolation[] };

const ANDROID_PACKAGE = /^[a-zA-Z][a-zA-Z0-9_]*(?:\.[a-zA-Z][a-zA-Z0-9_]*)+$/;
const SHA1_PLAIN = /^[0-9A-Fa-f]{40}$/;
const SHA1_COLONS = /^[0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){19}$/;
const IOS_BUNDLE_ID = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*$/;
const SERVICE_NAME = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)+$/;
const METHOD_PATTERN = /^(?:[A-Za-z0-9_-]+\.)*(?:[A-Za-z0-9_]+\*?|\*)$/;

/** Normalizes a SHA-1 fingerprint (with or without colons, any case) to uppercase hex; null if invalid. */
export function normalizeSha1Fingerprint(s: unknown): string | null {
  if (typeof s !== 'string') return null;
  if (SHA1_PLAIN.test(s)) return s.toUpperCase();
  if (SHA1_COLONS.test(s)) return s.replaceAll(':', '').toUpperCase();
  return null;
}

export function isValidAndroidPackageName(s: unknown): s is string {
  return typeof s === 'string' && s.length <= MAX_ANDROID_PACKAGE_NAME_LENGTH && ANDROID_PACKAGE.test(s);
}

export function isValidIosBundleId(s: unknown): s is string {
  return typeof s === 'string' && s.length <= MAX_IOS_BUNDLE_ID_LENGTH && IOS_BUNDLE_ID.test(s);
}

/** Accepts any case; validity is judged on the lowercase form. */
export function isValidServiceName(s: unknown): s is string {
  return typeof s === 'string' && s.length <= MAX_SERVICE_NAME_LENGTH && SERVICE_NAME.test(s.toLowerCase());
}

export function isValidMethodPattern(s: unknown): s is string {
  return typeof s === 'string' && s.length <= MAX_METHOD_PATTERN_LENGTH && METHOD_PATTERN.test(s);
}

/** Quotes a value for an error message, truncating very long ones. */
function show(v: unknown): string {
  if (typeof v === 'string') return quote(v);
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'a list';
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`;
}

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

class Collector {
  violations: FieldViolation[] = [];
  add(field: string, description: string): void {
    if (this.violations.length < MAX_REPORTED_VIOLATIONS) this.violations.push({ field, description });
  }
}

/** A field as [camelCase, snake_case]. */
type FieldName = readonly [string, string];

const F = {
  browser: ['browserKeyRestrictions', 'browser_key_restrictions'],
  server: ['serverKeyRestrictions', 'server_key_restrictions'],
  android: ['androidKeyRestrictions', 'android_key_restrictions'],
  ios: ['iosKeyRestrictions', 'ios_key_restrictions'],
  apiTargets: ['apiTargets', 'api_targets'],
  allowedReferrers: ['allowedReferrers', 'allowed_referrers'],
  allowedIps: ['allowedIps', 'allowed_ips'],
  allowedApplications: ['allowedApplications', 'allowed_applications'],
  allowedBundleIds: ['allowedBundleIds', 'allowed_bundle_ids'],
  sha1Fingerprint: ['sha1Fingerprint', 'sha1_fingerprint'],
  packageName: ['packageName', 'package_name'],
  service: ['service', 'service'],
  methods: ['methods', 'methods'],
} as const satisfies Record<string, FieldName>;

/** Reads a field by either spelling; null/undefined -> undefined. */
function get(o: Obj, f: FieldName): unknown {
  const a = o[f[0]];
  if (a !== undefined && a !== null) return a;
  const b = o[f[1]];
  return b === null ? undefined : b;
}

function checkUnknown(o: Obj, allowed: readonly FieldName[], path: string, c: Collector): void {
  for (const k of Object.keys(o)) {
    if (!allowed.some((f) => f[0] === k || f[1] === k)) {
      c.add(`${path}.${k}`, `Unknown field '${k}'.`);
    }
  }
}

/** Reads an optional repeated field; reports a non-list. */
function getList(o: Obj, f: FieldName, path: string, c: Collector): unknown[] {
  const v = get(o, f);
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    c.add(path, `Expected a list for '${f[0]}', got ${show(v)}.`);
    return [];
  }
  return v;
}

function checkCount(list: unknown[], path: string, c: Collector): void {
  if (list.length > MAX_APPLICATION_RESTRICTION_ENTRIES) {
    c.add(path, `At most ${MAX_APPLICATION_RESTRICTION_ENTRIES} application restriction entries are allowed per key; got ${list.length}.`);
  }
}

const KIND_LABEL: Record<'browser' | 'server' | 'android' | 'ios', FieldName> = {
  browser: F.browser,
  server: F.server,
  android: F.android,
  ios: F.ios,
};

export function validateRestrictions(
  input: Restrictions | undefined,
  opts: { boundToServiceAccount: boolean },
): ValidateRestrictionsResult {
  const c = new Collector();
  const raw: unknown = input;
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (!isObject(raw)) {
    return { ok: false, violations: [{ field: 'restrictions', description: `Expected an object for 'restrictions', got ${show(raw)}.` }] };
  }
  const out: Restrictions = {};
  checkUnknown(raw, [F.browser, F.server, F.android, F.ios, F.apiTargets], 'restrictions', c);

  const kinds = (['browser', 'server', 'android', 'ios'] as const).filter((k) => get(raw, KIND_LABEL[k]) !== undefined);
  if (kinds.length > 1) {
    c.add(
      'restrictions',
      `Only one application restriction (browserKeyRestrictions, serverKeyRestrictions, androidKeyRestrictions or iosKeyRestrictions) may be set on a key; got ${kinds.map((k) => KIND_LABEL[k][0]).join(' and ')}.`,
    );
  }
  if (opts.boundToServiceAccount) {
    for (const k of kinds) {
      if (k !== 'server') {
        c.add(
          `restrictions.${KIND_LABEL[k][1]}`,
          `A key bound to a service account only supports serverKeyRestrictions as its application restriction; ${KIND_LABEL[k][0]} is not allowed.`,
        );
      }
    }
  }

  for (const k of kinds) {
    const path = `restrictions.${KIND_LABEL[k][1]}`;
    const v = get(raw, KIND_LABEL[k]);
    if (!isObject(v)) {
      c.add(path, `Expected an object for '${KIND_LABEL[k][0]}', got ${show(v)}.`);
      continue;
    }
    if (k === 'browser') {
      checkUnknown(v, [F.allowedReferrers], path, c);
      const lpath = `${path}.allowed_referrers`;
      const list = getList(v, F.allowedReferrers, lpath, c);
      checkCount(list, lpath, c);
      list.forEach((e, i) => {
        const r = parseReferrerPattern(e);
        if (!r.ok) c.add(`${lpath}[${i}]`, `Invalid referrer pattern ${show(e)}: ${r.reason}.`);
      });
      if (list.length > 0) out.browserKeyRestrictions = { allowedReferrers: [...list] as string[] };
    } else if (k === 'server') {
      checkUnknown(v, [F.allowedIps], path, c);
      const lpath = `${path}.allowed_ips`;
      const list = getList(v, F.allowedIps, lpath, c);
      checkCount(list, lpath, c);
      list.forEach((e, i) => {
        const problem = ipEntryProblem(e);
        if (problem !== null) c.add(`${lpath}[${i}]`, `Invalid IP address or CIDR block ${show(e)}: ${problem}.`);
      });
      if (list.length > 0) out.serverKeyRestrictions = { allowedIps: [...list] as string[] };
    } else if (k === 'android') {
      checkUnknown(v, [F.allowedApplications], path, c);
      const lpath = `${path}.allowed_applications`;
      const list = getList(v, F.allowedApplications, lpath, c);
      checkCount(list, lpath, c);
      const apps: AndroidApplication[] = [];
      list.forEach((e, i) => {
        const epath = `${lpath}[${i}]`;
        if (!isObject(e)) {
          c.add(epath, `Expected an object for an Android application, got ${show(e)}.`);
          return;
        }
        checkUnknown(e, [F.sha1Fingerprint, F.packageName], epath, c);
        const pkg = get(e, F.packageName);
        const fp = get(e, F.sha1Fingerprint);
        if (pkg === undefined || pkg === '') {
          c.add(`${epath}.package_name`, 'An Android application needs a package name.');
        } else if (!isValidAndroidPackageName(pkg)) {
          c.add(
            `${epath}.package_name`,
            `Invalid Android package name ${show(pkg)}: it must be a Java package name with at least two segments (e.g. com.example.app), each starting with a letter, at most ${MAX_ANDROID_PACKAGE_NAME_LENGTH} characters.`,
          );
        }
        const norm = normalizeSha1Fingerprint(fp);
        if (fp === undefined || fp === '') {
          c.add(`${epath}.sha1_fingerprint`, 'An Android application needs a SHA-1 certificate fingerprint.');
        } else if (norm === null) {
          c.add(
            `${epath}.sha1_fingerprint`,
            `Invalid SHA-1 certificate fingerprint ${show(fp)}: it must be 20 bytes written as 40 hexadecimal digits, with or without colons between byte pairs.`,
          );
        }
        if (typeof pkg === 'string' && norm !== null) apps.push({ sha1Fingerprint: norm, packageName: pkg });
      });
      if (list.length > 0) out.androidKeyRestrictions = { allowedApplications: apps };
    } else {
      checkUnknown(v, [F.allowedBundleIds], path, c);
      const lpath = `${path}.allowed_bundle_ids`;
      const list = getList(v, F.allowedBundleIds, lpath, c);
      checkCount(list, lpath, c);
      list.forEach((e, i) => {
        if (!isValidIosBundleId(e)) {
          c.add(
            `${lpath}[${i}]`,
            `Invalid iOS bundle ID ${show(e)}: it may only contain letters, digits, hyphens and dots (no empty segments), at most ${MAX_IOS_BUNDLE_ID_LENGTH} characters.`,
          );
        }
      });
      if (list.length > 0) out.iosKeyRestrictions = { allowedBundleIds: [...list] as string[] };
    }
  }

  const tpath = 'restrictions.api_targets';
  const targetsRaw = getList(raw, F.apiTargets, tpath, c);
  const targets: ApiTarget[] = [];
  const seen = new Set<string>();
  targetsRaw.forEach((t, i) => {
    const epath = `${tpath}[${i}]`;
    if (!isObject(t)) {
      c.add(epath, `Expected an object for an API target, got ${show(t)}.`);
      return;
    }
    checkUnknown(t, [F.service, F.methods], epath, c);
    const service = get(t, F.service);
    let lower: string | null = null;
    if (service === undefined || service === '') {
      c.add(`${epath}.service`, 'An API target needs a service name, e.g. translate.googleapis.com.');
    } else if (!isValidServiceName(service)) {
      c.add(
        `${epath}.service`,
        `Invalid service name ${show(service)}: it must be a dotted service name of the form <api>.<domain>, e.g. translate.googleapis.com.`,
      );
    } else {
      lower = service.toLowerCase();
      if (seen.has(lower)) {
        c.add(`${epath}.service`, `Duplicate API target for service ${show(service)}; each service may appear only once.`);
      }
      seen.add(lower);
    }
    const mpath = `${epath}.methods`;
    const methods = getList(t, F.methods, mpath, c);
    methods.forEach((m, j) => {
      if (!isValidMethodPattern(m)) {
        c.add(
          `${mpath}[${j}]`,
          `Invalid method ${show(m)}: a method is a dotted name of letters, digits and underscores (e.g. google.cloud.translate.v2.TranslateService.GetSupportedLanguage or Get*); a wildcard '*' may only be its last character.`,
        );
      }
    });
    if (lower !== null) {
      targets.push(methods.length > 0 ? { service: lower, methods: [...methods] as string[] } : { service: lower });
    }
  });
  if (targets.length > 0) out.apiTargets = targets;

  if (c.violations.length > 0) return { ok: false, violations: c.violations };
  return { ok: true, value: out };
}
