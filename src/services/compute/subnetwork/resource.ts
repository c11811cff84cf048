/**
 * The Subnetwork resource: its insert, patch and range rules and how a stored subnetwork is
 * answered. Pure: the service reads the network and the other subnetworks and passes them in.
 */
import { invalidField, requiredField } from '../errors.ts';
import { applyPatch, checkDescription, checkResourceName, withoutOutputFields } from '../fieldRules.ts';
import { NAME, NAME_REGEX_TEXT } from '../instanceTemplate/rules/common.ts';
import { LINK_BASE } from '../names.ts';
import { AUTO_MODE_BLOCK } from '../network/autoMode.ts';
import { type Ipv4Range, cidrText, contains, gatewayOf, isReserved, overlaps, parseIpv4Cidr } from '../network/cidr.ts';
import { isAutoMode, isLegacy } from '../network/resource.ts';
import { scopeLink, scopePath } from '../scope.ts';
import { type StoredKind, presented } from '../store/reader.ts';
import type { StoredResource } from '../store/resources.ts';
import { refTarget } from '../usage.ts';

export const SUBNETWORKS: StoredKind = { kind: 'subnetwork', collection: 'subnetworks', schema: 'Subnetwork', aggregatedScopes: ['region'], present: (r, projectId) => presentSubnetwork(r, projectId) };

const OUTPUT = ['gatewayAddress', 'fingerprint', 'region', 'state', 'internalIpv6Prefix', 'externalIpv6Prefix', 'ipv6CidrRange', 'systemReservedExternalIpv6Ranges', 'systemReservedInternalIpv6Ranges', 'utilizationDetails'];
const MUTABLE = new Set(['description', 'privateIpGoogleAccess', 'secondaryIpRanges', 'logConfig', 'enableFlowLogs', 'privateIpv6GoogleAccess', 'stackType', 'ipv6AccessType', 'role', 'allowSubnetCidrRoutesOverlap']);
const AUTO_BLOCK = parseIpv4Cidr(AUTO_MODE_BLOCK)!;

export const subnetworkPath = (project: string, region: string, name: string) => `projects/${project}/regions/${region}/subnetworks/${name}`;

/** A subnetwork's primary range (`10.0.0.0/24`): a valid IPv4 CIDR with no host bits, /8 to /29, outside the reserved blocks. */
export function checkSubnetRange(field: string, v: unknown, secondary = false): Ipv4Range {
  const r = typeof v === 'string' ? parseIpv4Cidr(v) : undefined;
  if (!r) throw invalidField(field, v, `Invalid IPCidrRange: ${String(v)} is not a valid IPv4 CIDR range (an address with no host bits set and a prefix length).`);
  if (r.prefix < (secondary ? 4 : 8) || r.prefix > 29) throw invalidField(field, v, `Invalid IPCidrRange: ${v}. The prefix length must be between /${secondary ? 4 : 8} and /29.`);
  if (isReserved(r)) throw invalidField(field, v, `Invalid IPCidrRange: ${v} is in a reserved range.`);
  return r;
}

/** Every range of a subnetwork (primary and secondary), with what each is called in a conflict message. */
export function rangesOf(body: Record<string, any>): Ipv4Range[] {
  const all = [body.ipCidrRange, ...((body.secondaryIpRanges ?? []) as { ipCidrRange?: string }[]).map((s) => s?.ipCidrRange)];
  return all.map((t) => (typeof t === 'string' ? parseIpv4Cidr(t) : undefined)).filter((r): r is Ipv4Range => r !== undefined);
}

/**
 * The ranges of a subnetwork (`body`) against the network and its other subnetworks: none may
 * overlap another's, and a custom subnetwork of an auto-mode network stays out of 10.128.0.0/9.
 * Answers the conflict as Compute words it, or undefined.
 */
export function rangeConflict(body: Record<string, any>, network: StoredResource, others: readonly StoredResource[]): { field: string; value: string; message: string } | undefined {
  const own: { field: string; range: Ipv4Range }[] = [
    { field: 'resource.ipCidrRange', range: parseIpv4Cidr(body.ipCidrRange)! },
    ...((body.secondaryIpRanges ?? []) as { ipCidrRange: string }[]).map((s, i) => ({ field: `resource.secondaryIpRanges[${i}].ipCidrRange`, range: parseIpv4Cidr(s.ipCidrRange)! })),
  ];
  for (const o of own) {
    const text = cidrText(o.range);
    if (isAutoMode(network.body) && overlaps(o.range, AUTO_BLOCK)) {
      return { field: o.field, value: text, message: `Invalid IPCidrRange: ${text} conflicts with the auto mode range ${AUTO_MODE_BLOCK} of network '${network.name}'.` };
    }
    for (const s of others) {
      if (rangesOf(s.body).some((r) => overlaps(r, o.range))) {
        return { field: o.field, value: text, message: `Invalid IPCidrRange: ${text} conflicts with existing subnetwork '${s.name}' in region '${s.scope.type === 'region' ? s.scope.name : ''}'.` };
      }
    }
  }
  for (let i = 0; i < own.length; i++) {
    for (let j = i + 1; j < own.length; j++) {
      if (overlaps(own[i].range, own[j].range)) return { field: own[j].field, value: cidrText(own[j].range), message: `Invalid IPCidrRange: ${cidrText(own[j].range)} conflicts with ${cidrText(own[i].range)} of the same subnetwork.` };
    }
  }
  return undefined;
}

function checkSecondaryRanges(body: Record<string, any>): void {
  const names = new Set<string>();
  ((body.secondaryIpRanges ?? []) as Record<string, unknown>[]).forEach((s, i) => {
    const at = `resource.secondaryIpRanges[${i}]`;
    if (s.rangeName === undefined) throw requiredField(`${at}.rangeName`);
    if (typeof s.rangeName !== 'string' || !NAME.test(s.rangeName)) throw invalidField(`${at}.rangeName`, s.rangeName, `Must be a match of regex '${NAME_REGEX_TEXT}'`);
    if (names.has(s.rangeName)) throw invalidField(`${at}.rangeName`, s.rangeName, 'Secondary range names must be unique within a subnetwork.');
    names.add(s.rangeName);
    if (s.ipCidrRange === undefined) throw requiredField(`${at}.ipCidrRange`);
    checkSubnetRange(`${at}.ipCidrRange`, s.ipCidrRange, true);
  });
}

/** The network a subnetwork names, as a path in `projectId`'s terms (required). */
export function networkOfBody(body: Record<string, any>, projectId: string): string {
  if (body.network === undefined || body.network === '') throw requiredField('resource.network');
  const path = refTarget(body.network, 'networks', { projectId, scope: 'global' });
  if (!path || !/^projects\/[^/]+\/global\/networks\/[^/]+$/.test(path)) throw invalidField('resource.network', body.network, 'The URL is malformed.');
  return path;
}

/** Checks an insert body against its network; answers the subnetwork to store. */
export function subnetworkToInsert(input: Record<string, any>, network: StoredResource, ctx: { networkLink: string; fingerprint: string }): Record<string, unknown> {
  const body = withoutOutputFields(input, OUTPUT) as Record<string, any>;
  const name = checkResourceName(body);
  checkDescription(body);
  if (isLegacy(network.body)) throw invalidField('resource.network', body.network, 'Subnetworks cannot be created in a legacy network.');
  if (body.ipCidrRange === undefined) throw requiredField('resource.ipCidrRange');
  checkSubnetRange('resource.ipCidrRange', body.ipCidrRange);
  checkSecondaryRanges(body);
  const stackType = body.stackType ?? 'IPV4_ONLY';
  if (stackType !== 'IPV4_ONLY' && body.ipv6AccessType === undefined) throw requiredField('resource.ipv6AccessType');
  if (stackType !== 'IPV4_ONLY' && body.ipv6AccessType === 'INTERNAL' && network.body.enableUlaInternalIpv6 !== true) {
    throw invalidField('resource.ipv6AccessType', 'INTERNAL', 'Internal IPv6 needs a network with enableUlaInternalIpv6.');
  }
  return {
    ...body,
    kind: 'compute#subnetwork',
    name,
    network: ctx.networkLink,
    privateIpGoogleAccess: body.privateIpGoogleAccess ?? false,
    purpose: body.purpose ?? 'PRIVATE',
    stackType,
    fingerprint: ctx.fingerprint,
  };
}

/** A patch (its fingerprint checked by the service): the mutable fields, secondary ranges checked again. */
export function patchedSubnetwork(current: Record<string, any>, input: Record<string, any>, fingerprint: string): Record<string, unknown> {
  checkDescription(input);
  const next = applyPatch(current, input, MUTABLE, OUTPUT) as Record<string, any>;
  checkSecondaryRanges(next);
  return { ...next, fingerprint };
}

/** `expandIpCidrRange`: a larger range holding the current one. */
export function expandedRange(current: Record<string, any>, v: unknown): string {
  const r = checkSubnetRange('ipCidrRange', v);
  const old = parseIpv4Cidr(current.ipCidrRange)!;
  if (r.prefix >= old.prefix || !contains(r, old)) throw invalidField('ipCidrRange', v, `The new range must contain the current range ${current.ipCidrRange} and be larger.`);
  return cidrText(r);
}

/** A fingerprint for a row that has none (an entry the world declared): stable, derived from its id. */
const fingerprintOf = (r: StoredResource) => Buffer.from(BigInt(r.id).toString(16).padStart(16, '0').slice(-16), 'hex').toString('base64');

/** A subnetwork as Compute answers it. */
export function presentSubnetwork(r: StoredResource, projectId: string): Record<string, unknown> {
  const range = parseIpv4Cidr(String(r.body.ipCidrRange));
  const network = refTarget(r.body.network, 'networks', { projectId, scope: 'global' });
  return presented('Subnetwork', r, {
    privateIpGoogleAccess: false,
    purpose: 'PRIVATE',
    stackType: 'IPV4_ONLY',
    privateIpv6GoogleAccess: 'DISABLE_GOOGLE_ACCESS',
    fingerprint: fingerprintOf(r),
    ...(range ? { gatewayAddress: gatewayOf(range) } : {}),
  }, {
    network: network ? LINK_BASE + network : r.body.network,
    region: scopeLink(projectId, r.scope),
    selfLink: `${LINK_BASE}${scopePath(projectId, r.scope)}/subnetworks/${r.name}`,
  });
}
